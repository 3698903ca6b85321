/*
 * mchgen_model.h - internal interfaces of the synthetic collection generator (bench/mchgen).
 *
 * The model: a fixed "program" (the universe: modules, classes, methods with IL, named from a
 * shared vocabulary) is compiled by a sequence of process runs. A run fixes what a process
 * fixes: the handle bases (ASLR), helper addresses, ISA flags, config values; each context of
 * a run compiles one method and records what a JIT asks about it. Redundancy therefore sits
 * where it sits in real collections: inside a context (maps sharing key sets, mostly-zero
 * structs, handles sharing high bytes), across the contexts of a run (same handles, callee
 * records, recompiled roots) and, weakly, across runs (names, IL, EE info). The calibration
 * is in bench/README.md.
 */
#ifndef MCHGEN_MODEL_H
#define MCHGEN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool.h"

/* ---- Pseudo-random numbers: xoshiro256** seeded by splitmix64 (never rand()). ---- */

typedef struct mg_rng {
    uint64_t s[4];
} mg_rng;

static inline uint64_t mg_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A stateless hash of two values: per-entity properties that must not depend on call order. */
static inline uint64_t mg_hash2(uint64_t a, uint64_t b)
{
    return mg_mix64(a ^ mg_mix64(b + 0x632BE59BD9B4E019ull));
}

void mg_rng_seed(mg_rng *r, uint64_t seed);
uint64_t mg_rng_next(mg_rng *r);
/* Uniform in [0, n); n > 0. */
uint32_t mg_rng_below(mg_rng *r, uint32_t n);
/* Uniform in [0, 1). */
double mg_rng_unit(mg_rng *r);
/* True with probability p. */
bool mg_rng_chance(mg_rng *r, double p);
/* Log-normal with the given median and sigma (of the logarithm). */
double mg_rng_lognormal(mg_rng *r, double median, double sigma);

/* ---- Presets: every tunable of the model. ---- */

typedef struct mg_preset {
    const char *name;
    const char *help;
    uint32_t default_contexts;
    uint32_t run_median;      /* contexts per process run (log-normal median) */
    double minopts_share;     /* fresh roots compiled TIER0/MIN_OPT: no inlining */
    double no_names_share;    /* contexts without PrintClassName/PrintMethodName */
    double pgo_share;         /* optimized contexts with PGO data (share) */
    double cr_share;          /* contexts with compile-result packets */
    uint32_t giant_interval;  /* one huge (> 1 MiB) context every N contexts; 0: none */
    double inline_chance;     /* an inline candidate is imported (inlined) */
    uint32_t inline_depth;    /* nesting limit */
    uint32_t inline_budget;   /* IL bytes inlined per context */
    uint32_t inline_max_il;   /* largest inline candidate, IL bytes */
    double callee_name_share; /* callees whose names are printed (named contexts) */
    double cluster_share;     /* a root starts a burst of methods of its class */
    uint32_t cluster_mean;    /* mean extra methods in a burst */
    double candidate_share;   /* direct callees whose method info the inliner examines */
    double variant_share;     /* recompilations: Tier1 after Tier0, other instantiations */
    double requery_share;     /* call sites whose call info is asked for twice */
} mg_preset;

/* The named preset, or NULL. */
const mg_preset *mg_preset_find(const char *name);
/* All presets, NULL-terminated, for --help. */
const mg_preset *const *mg_preset_list(void);

/* ---- The universe ---- */

enum { MG_MAX_ARGS = 12, MG_NONE = 0xFFFFFFFFu };

/* What an IL token refers to. */
typedef enum mg_ref_kind {
    MG_REF_CALL,     /* call, callvirt, newobj: a method */
    MG_REF_FIELD,    /* ldfld, stfld, ldsfld, stsfld: field `target` of class `cls` */
    MG_REF_TYPE,     /* box, castclass, isinst, newarr, ldtoken: a class */
    MG_REF_STRING    /* ldstr */
} mg_ref_kind;

typedef struct mg_ref {
    uint32_t token;
    uint32_t target; /* method or class index; field number for fields; string id */
    uint32_t cls;    /* owning class of a field */
    uint8_t kind;    /* mg_ref_kind */
    uint8_t opcode;
} mg_ref;

typedef struct mg_type {
    uint8_t cor_type; /* CorInfoType */
    uint32_t cls;     /* class for CLASS/VALUECLASS, else MG_NONE */
} mg_type;

typedef struct mg_class {
    uint32_t name, name_len; /* in the universe's text arena: the printed full name */
    uint32_t ns, ns_len;     /* namespace part */
    uint32_t simple, simple_len;
    uint16_t module;
    uint8_t is_value;
    uint8_t generic_arity;   /* instantiated over __Canon / primitives */
    uint32_t first_method, method_count;
    uint32_t token; /* TypeDef token */
    uint32_t attribs;
    uint32_t parent;
    uint32_t inst[2]; /* instantiation classes when generic */
    uint16_t field_count;
    uint16_t instance_size;
} mg_class;

typedef struct mg_method {
    uint32_t cls;
    uint32_t name, name_len;
    uint32_t token;   /* MethodDef token */
    uint32_t attribs; /* CorInfoFlag */
    uint32_t sig_offset; /* blob-heap offset of its signature in the module */
    uint32_t popularity_rank;
    uint32_t il_target;
    uint8_t nargs, nlocals;
    bool hasthis;
    bool intrinsic;
    mg_type ret;
    mg_type args[MG_MAX_ARGS];
    mg_type locals[MG_MAX_ARGS];
    /* IL, generated on first use */
    uint8_t *il;
    uint32_t il_len;
    mg_ref *refs;
    uint32_t ref_count;
    uint16_t max_stack;
    uint8_t eh_count;
} mg_method;

typedef struct mg_module {
    const char *name;
} mg_module;

typedef struct mg_universe {
    uint64_t seed;
    char *text; /* every name, back to back (not NUL-terminated individually) */
    size_t text_len, text_cap;
    mg_class *classes;
    uint32_t class_count;
    mg_method *methods;
    uint32_t method_count;
    uint32_t *by_rank;        /* method index by popularity rank */
    uint32_t *module_first;   /* module m's methods: module_methods[first[m] .. first[m+1]) */
    uint32_t *module_methods; /* grouped by module, each group by popularity */
    uint32_t module_count;
    uint32_t builtin[8]; /* class index of Object, String, ... (CorInfoClassId order) */
} mg_universe;

mg_universe *mg_universe_create(uint64_t seed);
void mg_universe_free(mg_universe *u);
/* Generates the method's IL and references if not done yet. */
void mg_method_ensure_il(mg_universe *u, uint32_t method);
/* A method drawn by popularity (power law over ranks), anywhere or within a module. */
uint32_t mg_universe_popular_method(const mg_universe *u, mg_rng *r);
uint32_t mg_universe_module_method(const mg_universe *u, uint32_t module, mg_rng *r);
/* Writes the ECMA signature blob of a method (args or locals) into out (>= 64 bytes); returns
 * its length; *arg_offsets receives the offset of each argument inside the blob. */
uint32_t mg_sig_blob(const mg_universe *u, const mg_method *m, bool locals, uint8_t *out,
                     uint32_t *arg_offsets);

/* ---- Generating a corpus ---- */

typedef struct mg_generator mg_generator;

/* jit_ee: the JIT-EE version written (packet table, write order, CorInfoType numbering). */
mg_generator *mg_generator_create(const mg_preset *preset, const mcz_jit_ee *jit_ee,
                                  uint64_t seed, uint32_t contexts);
void mg_generator_free(mg_generator *g);
/* The next context's bytes (valid until the next call); 1 = produced, 0 = done, < 0 error. */
int mg_generator_next(mg_generator *g, const uint8_t **bytes, size_t *size);
/* After the corpus: `contexts` more, from fresh process runs (a held-out sample that shares
 * no run with the corpus, for training a dictionary). */
void mg_generator_hold_out(mg_generator *g, uint32_t contexts);

/* ---- Report ---- */

/* Validates every context of the image and prints the statistics and the three compression
 * ratios against their targets to stdout; the dictionary is trained on the contexts of
 * `train` (a held-out sample). Returns MCZ_OK, or the first context's error (on stderr with
 * its number and offset), or MCZ_ENOMEM / MCZ_EZSTD. */
int mg_report(const uint8_t *image, size_t size, const uint8_t *train, size_t train_size);

/* IL statistics helper: number of token operands in an IL stream (0 on undecodable input). */
uint32_t mg_il_token_count(const uint8_t *il, uint32_t len);

#endif /* MCHGEN_MODEL_H */
