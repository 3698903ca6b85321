/*
 * context.c - process runs and method contexts.
 *
 * A run fixes what a process fixes: the handle bases (ASLR), the module handles, the config
 * values, the machine's ISA flags. A context compiles one method of the universe: it plans what
 * the JIT touches (the root, the callees of every call token, the inlinees and their own tokens,
 * the classes and fields involved) and then writes one packet per map in SuperPMI's write order
 * (mcz_jit_ee_write_order of the version generated), each packet's emitter walking the plan.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_agnostic.h"
#include "mcz_superpmi.h"
#include "mchgen_model.h"
#include "tool.h"

/* Core helpers per run: HELPER_CORE_MIN + [0, HELPER_CORE_SPREAD). */
#define HELPER_CORE_MIN 30
#define HELPER_CORE_SPREAD 20

/* The program every collection compiles is fixed (as the framework is); --seed varies the
 * collection: processes, handles, which methods compile and how. */
#ifndef UNIVERSE_SEED
#define UNIVERSE_SEED 3
#endif

enum {
    GIANT_IL = 60000,
    MAX_MODULES = 32,
    CONFIG_MAX = 16,
    HELPER_CORE_MAX = 64,
    HELPER_COUNT = 200
};

/* jit flag bits (corjitflags.h, snapshot B). */
enum {
    JIT_MIN_OPT = 1u << 5,
    JIT_BBINSTR = 1u << 18,
    JIT_BBOPT = 1u << 20,
    JIT_TIER0 = 1u << 26,
    JIT_TIER1 = 1u << 27,
    JIT_DEBUG_INFO = 1u << 4,
    JIT_PROCSPLIT = 1u << 17
};

typedef struct run_state {
    uint64_t seed;
    uint64_t class_base, method_base, field_base, string_base, helper_base, stub_base;
    uint64_t class_stride, method_gap;
    uint64_t module_handle[MAX_MODULES];
    uint64_t image_base[MAX_MODULES];
    uint64_t isa[2];
    bool tiered; /* a tiered JIT process (TIER0/TIER1) rather than full opts */
    bool string_config; /* the JIT asked for a string config value */
    bool debug_info;    /* the runtime tracks debug info: boundaries and variables */
    uint32_t modules;   /* bit set: the libraries this process mostly runs */
    uint64_t runtime_base;                /* where the runtime's helpers are (ASLR) */
    uint8_t core_helpers[HELPER_CORE_MAX]; /* helpers nearly every compilation uses */
    uint32_t core_helper_count;
    uint32_t config_count;
    uint8_t config[CONFIG_MAX];
    uint32_t config_value[CONFIG_MAX];
    char process_name[200];
} run_state;

/* What one context touched. */
typedef struct ctx_method {
    uint32_t method;
    uint32_t caller; /* method index that referenced it (the root for itself) */
    uint8_t role;    /* ROLE_* */
    bool named;      /* its name gets printed */
    bool examined;   /* an inline candidate: its GetMethodInfo was asked for */
} ctx_method;

enum { ROLE_ROOT, ROLE_CALLEE, ROLE_INLINEE };

typedef struct ctx_site {
    uint32_t context_method; /* method whose IL holds the token */
    const mg_ref *ref;
} ctx_site;

typedef struct ctx_plan {
    uint32_t root;
    uint64_t salt; /* nonzero: another instantiation of the root's class */
    bool optimized, named, pgo, cr;
    uint64_t jit_flags;
    ctx_method *methods;
    uint32_t method_count, method_cap;
    uint32_t *classes;
    uint32_t class_count, class_cap;
    ctx_site *sites;
    uint32_t site_count, site_cap;
    uint32_t *queue; /* methods whose IL is scanned, with their depth */
    uint8_t *queue_depth;
    uint32_t queue_len, queue_cap;
    uint64_t sig_inst[8]; /* SigInstHandleMap of the context */
    uint32_t sig_inst_count;
} ctx_plan;

/* A root compiled lately in the run: a candidate for a recompilation (Tier1 after Tier0) or a
 * compilation of another instantiation of the same code. */
typedef struct recent_root {
    uint32_t method;
    uint64_t salt;
    bool optimized, promoted;
} recent_root;

enum { RECENT_ROOTS = 48 };

struct mg_generator {
    const mg_preset *preset;
    const mcz_jit_ee *jit_ee;
    mg_universe *u;
    mg_rng rng;
    uint32_t total, produced;
    uint32_t os;
    mcz_mc_builder *b;
    run_state run;
    uint32_t run_left;
    uint32_t *order; /* root methods of the run, in compile order */
    uint32_t order_pos;
    uint32_t *compiled; /* == run_serial when compiled in this run */
    uint32_t run_serial;
    uint32_t cluster_class, cluster_left; /* roots come in bursts from one class */
    recent_root recent[RECENT_ROOTS];      /* the run's latest roots, for recompilations */
    uint32_t recent_count;
    uint32_t *method_stamp, *class_stamp; /* == serial when already in the plan */
    uint32_t serial;
    ctx_plan plan;
};

/* ---- Config knobs the JIT reads through the host (names are UTF-8 in snapshot B) ---- */

static const struct {
    const char *name;
    uint32_t def;
} config_knobs[] = {
    {"JitStdOutFile", 0},     {"JitEnableNoWayAssert", 1}, {"JitMinOpts", 0},
    {"TieredCompilation", 1}, {"TC_QuickJitForLoops", 1},  {"TieredPGO", 1},
    {"OSR_HitLimit", 10},     {"JitAggressiveInlining", 0}, {"EnableAVX512F", 1},
    {"EnableHWIntrinsic", 1}, {"JitNoInline", 0},           {"ReadyToRun", 1},
    {"JitEnableGuardedDevirtualization", 1},                {"JitObjectStackAllocation", 1},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Handles: pure functions of the run and the entity ---- */

/* Loader heaps fill in load order, and the framework (low class indices) loads first, so
 * handles are roughly sequential by class index, with a stride and jitter of the run's own.
 * Another instantiation of the root's class lives elsewhere (offset by its salt). */
static uint64_t instantiation_offset(const mg_generator *g, uint32_t cls)
{
    bool other = g->plan.salt && cls == g->u->methods[g->plan.root].cls;
    return other ? 0x00800000ull + ((g->plan.salt & 0x3FFFF) << 4) : 0;
}

static uint64_t class_handle(const mg_generator *g, uint32_t cls)
{
    return g->run.class_base + instantiation_offset(g, cls) + cls * g->run.class_stride +
           ((mg_hash2(g->run.seed, cls) & 0x7) << 4);
}

static uint64_t method_handle(const mg_generator *g, uint32_t method)
{
    const mg_method *m = &g->u->methods[method];
    return g->run.method_base + instantiation_offset(g, m->cls) +
           ((uint64_t)method + m->cls) * 0x18 + ((uint64_t)m->cls & ~7ull) * g->run.method_gap;
}

static uint64_t field_handle(const mg_generator *g, uint32_t cls, uint32_t idx)
{
    return g->run.field_base + (uint64_t)cls * 0x100 + (uint64_t)idx * 0x10;
}

static uint64_t module_handle(const mg_generator *g, uint32_t method)
{
    return g->run.module_handle[g->u->classes[g->u->methods[method].cls].module % MAX_MODULES];
}

static uint64_t sig_pointer(const mg_generator *g, uint32_t method, bool locals)
{
    const mg_method *m = &g->u->methods[method];
    uint32_t module = g->u->classes[m->cls].module % MAX_MODULES;
    return g->run.image_base[module] + 0x30000 + m->sig_offset + (locals ? 2u * m->nargs + 4 : 0);
}

static uint64_t string_handle(const mg_generator *g, uint32_t string_id)
{
    return g->run.string_base + ((mg_hash2(g->run.seed, 0x30000000ull + string_id) & 0x3FFFF) << 3);
}

/* ---- Runs ---- */

static uint64_t random_region(mg_rng *r)
{
    /* canonical user-space addresses: 0x00007Fxx_xxxx_x000 */
    return 0x00007F0000000000ull | ((mg_rng_next(r) & 0xFFFFFFFull) << 12);
}

static void start_run(mg_generator *g)
{
    mg_rng *r = &g->rng;
    run_state *run = &g->run;
    memset(run, 0, sizeof *run);
    run->seed = mg_rng_next(r);
    uint64_t heap = random_region(r);
    run->class_base = heap;
    run->method_base = heap + 0x01000000ull + (mg_rng_next(r) & 0xFFFFF0ull);
    run->field_base = heap + 0x02000000ull + (mg_rng_next(r) & 0xFFFFF0ull);
    run->stub_base = heap + 0x04000000ull + (mg_rng_next(r) & 0xFFF000ull);
    run->class_stride = 0x1C0 + 0x10 * mg_rng_below(r, 16);
    run->method_gap = mg_rng_below(r, 4);
    run->string_base = random_region(r);
    run->helper_base = random_region(r);
    uint64_t modules = random_region(r);
    for (uint32_t i = 0; i < MAX_MODULES; i++) {
        run->module_handle[i] = modules + i * 0x1F0ull + (mg_rng_next(r) & 0x70ull);
        run->image_base[i] = random_region(r) & ~0xFFFFull;
    }
    static const uint64_t machines[3][2] = {{0x00000000017FFFFFull, 0x0000000000000000ull},
                                            {0x000000003FFFFFFFull, 0x0000000000000001ull},
                                            {0x00000000007BFFFFull, 0x0000000000000000ull}};
    uint32_t machine = mg_rng_below(r, 3);
    run->isa[0] = machines[machine][0];
    run->isa[1] = machines[machine][1];
    run->tiered = mg_rng_chance(r, 0.8);
    run->runtime_base = random_region(r) & ~0xFFFFull;
    run->core_helper_count = HELPER_CORE_MIN + mg_rng_below(r, HELPER_CORE_SPREAD);
    for (uint32_t i = 0; i < run->core_helper_count; i++)
        run->core_helpers[i] = (uint8_t)(i < 12 ? i * 3 + 1 : mg_rng_below(r, HELPER_COUNT));
    run->modules = 1; /* the framework, always */
    for (uint32_t k = 1 + mg_rng_below(r, 3); k > 0; k--)
        run->modules |= 1u << mg_rng_below(r, g->u->module_count);
    run->config_count = mg_rng_below(r, 4);
    run->string_config = mg_rng_chance(r, 0.25);
    run->debug_info = mg_rng_chance(r, 0.85);
    for (uint32_t i = 0; i < run->config_count; i++) {
        run->config[i] = (uint8_t)mg_rng_below(r, COUNT_OF(config_knobs));
        run->config_value[i] = mg_rng_chance(r, 0.85) ? config_knobs[run->config[i]].def
                                                      : mg_rng_below(r, 4);
    }
    static const char *const hosts[] = {"dotnet", "corerun", "dotnet exec"};
    static const char *const apps[] = {
        "System.Runtime.Tests.dll", "MicroBenchmarks.dll", "Microsoft.CodeAnalysis.CSharp.dll",
        "Kestrel.Benchmarks.dll", "System.Text.Json.Tests.dll", "xunit.console.dll",
        "PlatformBenchmarks.dll", "System.Linq.Tests.dll"};
    const char *host = hosts[mg_rng_below(r, COUNT_OF(hosts))]; /* draws in a fixed order */
    const char *app = apps[mg_rng_below(r, COUNT_OF(apps))];
    uint32_t partition = mg_rng_below(r, 64);
    snprintf(run->process_name, sizeof run->process_name,
             "/home/helix/work/correlation/%s /home/helix/work/workitem/e/%s --filter * "
             "--partition %u",
             host, app, partition);
    double len = mg_rng_lognormal(r, g->preset->run_median, 0.7);
    g->run_left = (uint32_t)(len < 20 ? 20 : len);
    g->order_pos = 0;
    g->run_serial++;
    g->cluster_left = 0;
    g->recent_count = 0;
    /* a run compiles distinct methods: a fresh shuffle of the universe */
    uint32_t n = g->u->method_count;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = mg_rng_below(r, i + 1);
        uint32_t t = g->order[i];
        g->order[i] = g->order[j];
        g->order[j] = t;
    }
}

/* ---- Planning ---- */

static void *grow(void *p, uint32_t *cap, size_t item)
{
    uint32_t want = *cap ? *cap * 2 : 64;
    void *q = realloc(p, (size_t)want * item);
    if (!q) {
        tool_error("out of memory");
        exit(1);
    }
    *cap = want;
    return q;
}

static void plan_class(mg_generator *g, uint32_t cls)
{
    if (cls == MG_NONE || g->class_stamp[cls] == g->serial)
        return;
    g->class_stamp[cls] = g->serial;
    ctx_plan *p = &g->plan;
    if (p->class_count == p->class_cap)
        p->classes = grow(p->classes, &p->class_cap, sizeof *p->classes);
    p->classes[p->class_count++] = cls;
}

static void plan_signature_classes(mg_generator *g, const mg_method *m)
{
    plan_class(g, m->ret.cls);
    for (uint8_t i = 0; i < m->nargs; i++)
        plan_class(g, m->args[i].cls);
}

/* Adds a method once; returns its plan entry. */
static ctx_method *plan_method(mg_generator *g, uint32_t method, uint32_t caller, uint8_t role)
{
    ctx_plan *p = &g->plan;
    if (g->method_stamp[method] == g->serial) {
        for (uint32_t i = 0; i < p->method_count; i++)
            if (p->methods[i].method == method) {
                if (role == ROLE_INLINEE)
                    p->methods[i].role = ROLE_INLINEE;
                return &p->methods[i];
            }
    }
    g->method_stamp[method] = g->serial;
    if (p->method_count == p->method_cap)
        p->methods = grow(p->methods, &p->method_cap, sizeof *p->methods);
    ctx_method *cm = &p->methods[p->method_count++];
    cm->examined = false;
    cm->method = method;
    cm->caller = caller;
    cm->role = role;
    cm->named = p->named && (role == ROLE_ROOT ||
                             mg_rng_chance(&g->rng, g->preset->callee_name_share));
    plan_class(g, g->u->methods[method].cls);
    plan_signature_classes(g, &g->u->methods[method]);
    return cm;
}

static void queue_push(ctx_plan *p, uint32_t method, uint8_t depth)
{
    if (p->queue_len == p->queue_cap) {
        uint32_t cap = p->queue_cap;
        p->queue = grow(p->queue, &p->queue_cap, sizeof *p->queue);
        p->queue_depth = grow(p->queue_depth, &cap, sizeof *p->queue_depth);
    }
    p->queue[p->queue_len] = method;
    p->queue_depth[p->queue_len++] = depth;
}

static bool inline_candidate(const mg_generator *g, uint32_t callee, uint32_t depth,
                             uint32_t *budget)
{
    const mg_preset *pr = g->preset;
    const mg_method *m = &g->u->methods[callee];
    if (!g->plan.optimized || depth >= pr->inline_depth || m->il_target > pr->inline_max_il)
        return false;
    if (g->method_stamp[callee] == g->serial || *budget < m->il_target)
        return false;
    return true;
}

static void plan_sites_of(mg_generator *g, uint32_t method, uint8_t depth, uint32_t *budget)
{
    mg_method *m = &g->u->methods[method];
    ctx_plan *p = &g->plan;
    for (uint32_t i = 0; i < m->ref_count; i++) {
        const mg_ref *ref = &m->refs[i];
        if (p->site_count == p->site_cap)
            p->sites = grow(p->sites, &p->site_cap, sizeof *p->sites);
        p->sites[p->site_count++] = (ctx_site){method, ref};
        switch (ref->kind) {
        case MG_REF_CALL: {
            bool inl = inline_candidate(g, ref->target, depth, budget) &&
                       mg_rng_chance(&g->rng, g->preset->inline_chance);
            ctx_method *cm = plan_method(g, ref->target, method, inl ? ROLE_INLINEE : ROLE_CALLEE);
            cm->examined = cm->examined || inl ||
                           (p->optimized && ref->opcode != 0x6F &&
                            mg_rng_chance(&g->rng, g->preset->candidate_share));
            if (inl) {
                *budget -= g->u->methods[ref->target].il_target;
                mg_method_ensure_il(g->u, ref->target);
                queue_push(p, ref->target, (uint8_t)(depth + 1));
            }
            break;
        }
        case MG_REF_FIELD:
        case MG_REF_TYPE:
            plan_class(g, ref->kind == MG_REF_FIELD ? ref->cls : ref->target);
            break;
        default:
            break;
        }
    }
}

static bool root_available(const mg_generator *g, uint32_t m)
{
    /* giants come only when drawn as such */
    return g->compiled[m] != g->run_serial && g->u->methods[m].il_target < GIANT_IL;
}

/* Most roots come from the run's libraries; a few from anywhere. */
static bool in_run_modules(const mg_generator *g, uint32_t m)
{
    uint32_t module = g->u->classes[g->u->methods[m].cls].module;
    return (g->run.modules >> (module % 32) & 1) || mg_hash2(g->run.seed, m) % 100 < 8;
}

/* The next method of the current burst's class not compiled yet in this run, or MG_NONE. */
static uint32_t next_in_cluster(mg_generator *g)
{
    if (g->cluster_left == 0)
        return MG_NONE;
    g->cluster_left--;
    const mg_class *c = &g->u->classes[g->cluster_class];
    uint32_t start = mg_rng_below(&g->rng, c->method_count);
    for (uint32_t k = 0; k < c->method_count; k++) {
        uint32_t m = c->first_method + (start + k) % c->method_count;
        if (root_available(g, m))
            return m;
    }
    return MG_NONE;
}

/* Methods compile in bursts: a class's methods tend to be first called together. */
static uint32_t next_root(mg_generator *g, bool giant)
{
    uint32_t m = MG_NONE;
    if (giant) {
        for (uint32_t tries = 0; tries < g->u->method_count && m == MG_NONE; tries++) {
            uint32_t c = mg_rng_below(&g->rng, g->u->method_count);
            if (g->u->methods[c].il_target >= GIANT_IL)
                m = c;
        }
    }
    if (m == MG_NONE)
        m = next_in_cluster(g);
    if (m == MG_NONE) {
        for (uint32_t tries = 0; tries < 4 * g->u->method_count; tries++) {
            m = g->order[g->order_pos++ % g->u->method_count];
            if (root_available(g, m) && (in_run_modules(g, m) || tries > g->u->method_count))
                break;
        }
        g->cluster_class = g->u->methods[m].cls;
        g->cluster_left = mg_rng_chance(&g->rng, g->preset->cluster_share)
                              ? 1 + mg_rng_below(&g->rng, 2 * g->preset->cluster_mean)
                              : 0;
    }
    g->compiled[m] = g->run_serial;
    return m;
}

/* A recompilation of a recent root: Tier1 of a Tier0 method (same handles), or the same code
 * for another instantiation (new handles for the class). Returns false for a fresh root. */
static bool choose_variant(mg_generator *g)
{
    if (g->recent_count == 0 || !mg_rng_chance(&g->rng, g->preset->variant_share))
        return false;
    uint32_t n = g->recent_count < RECENT_ROOTS ? g->recent_count : RECENT_ROOTS;
    recent_root *e = &g->recent[mg_rng_below(&g->rng, n)];
    ctx_plan *p = &g->plan;
    p->root = e->method;
    if (!e->optimized && !e->promoted) {
        e->promoted = true;
        p->salt = e->salt;
        p->optimized = true;
    } else {
        p->salt = mg_rng_next(&g->rng) | 1;
        p->optimized = e->optimized;
    }
    return true;
}

static void remember_root(mg_generator *g)
{
    recent_root *e = &g->recent[g->recent_count++ % RECENT_ROOTS];
    e->method = g->plan.root;
    e->salt = g->plan.salt;
    e->optimized = g->plan.optimized;
    e->promoted = g->plan.optimized;
}

static uint64_t choose_jit_flags(mg_generator *g)
{
    ctx_plan *p = &g->plan;
    uint64_t debug = g->run.debug_info ? JIT_DEBUG_INFO : 0;
    if (!p->optimized)
        return debug | (g->run.tiered ? JIT_TIER0 | (mg_rng_chance(&g->rng, 0.2) ? JIT_BBINSTR : 0)
                                      : JIT_MIN_OPT);
    uint64_t f = debug | (g->run.tiered ? JIT_TIER1 : 0);
    if (p->pgo)
        f |= JIT_BBOPT;
    if (mg_rng_chance(&g->rng, 0.1))
        f |= JIT_PROCSPLIT;
    return f;
}

static void plan_context(mg_generator *g)
{
    const mg_preset *pr = g->preset;
    ctx_plan *p = &g->plan;
    mg_rng *r = &g->rng;
    g->serial++;
    p->method_count = p->class_count = p->site_count = p->queue_len = 0;
    p->sig_inst_count = 0;
    /* huge contexts at fixed positions, so a corpus's share of them does not depend on luck */
    bool giant = pr->giant_interval && g->produced % pr->giant_interval == pr->giant_interval / 2;
    if (giant || !choose_variant(g)) {
        p->root = next_root(g, giant);
        p->salt = 0;
        p->optimized = giant || !mg_rng_chance(r, pr->minopts_share);
    }
    if (!giant) /* a huge method compiles once */
        remember_root(g);
    p->named = !mg_rng_chance(r, pr->no_names_share);
    p->pgo = p->optimized && mg_rng_chance(r, pr->pgo_share);
    p->cr = mg_rng_chance(r, pr->cr_share);
    p->jit_flags = choose_jit_flags(g);
    mg_method_ensure_il(g->u, p->root);
    plan_method(g, p->root, p->root, ROLE_ROOT);
    const mg_method *root = &g->u->methods[p->root];
    for (uint8_t i = 0; i < root->nlocals; i++)
        plan_class(g, root->locals[i].cls);
    uint32_t budget = pr->inline_budget;
    queue_push(p, p->root, 0);
    for (uint32_t q = 0; q < p->queue_len; q++)
        plan_sites_of(g, p->queue[q], p->queue_depth[q], &budget);
}

/* ---- Emission helpers ---- */

typedef void (*emit_fn)(mg_generator *g);

static void begin(mg_generator *g, uint8_t id, uint32_t key_size, uint32_t value_size)
{
    mcz_mc_builder_begin(g->b, id, key_size == 0, key_size, value_size);
}

static void add(mg_generator *g, const void *key, const void *value)
{
    mcz_mc_builder_add(g->b, key, value);
}

static void end(mg_generator *g) { mcz_mc_builder_end(g->b); }

static uint32_t buffer(mg_generator *g, const void *data, size_t len)
{
    return mcz_mc_builder_buffer(g->b, data, (uint32_t)len);
}

static void u64_u32(mg_generator *g, uint64_t key, uint32_t value)
{
    uint8_t k[8], v[4];
    mcz_put_le64(k, key);
    mcz_put_le32(v, value);
    add(g, k, v);
}

static void u64_u64(mg_generator *g, uint64_t key, uint64_t value)
{
    uint8_t k[8], v[8];
    mcz_put_le64(k, key);
    mcz_put_le64(v, value);
    add(g, k, v);
}

/* The generated version's number for a CorInfoType (MCZ_TYPE_*); the model has no type the
 * version lacks (strings are classes). */
static uint32_t raw_type(const mg_generator *g, uint32_t type)
{
    int raw = mcz_jit_ee_type_raw(g->jit_ee, (int)type);
    return raw >= 0 ? (uint32_t)raw : type;
}

static const mg_method *method_of(const mg_generator *g, uint32_t method)
{
    return &g->u->methods[method];
}

/* The class handle a type refers to, or 0 for primitives. */
static uint64_t type_class_handle(const mg_generator *g, mg_type t)
{
    return t.cls == MG_NONE ? 0 : class_handle(g, t.cls);
}

/* Position of a handle run in the context's SigInstHandleMap, appending it when absent
 * (SuperPMI's ContainsHandleMap / AddHandleMap: the first occurrence anywhere wins). */
static uint32_t sig_inst_index(ctx_plan *p, const uint64_t *handles, uint32_t n)
{
    if (n == 0)
        return MCZ_NULL_INDEX;
    for (uint32_t at = 0; at + n <= p->sig_inst_count; at++)
        if (memcmp(p->sig_inst + at, handles, n * sizeof *handles) == 0)
            return at;
    if (p->sig_inst_count + n > COUNT_OF(p->sig_inst))
        return MCZ_NULL_INDEX;
    memcpy(p->sig_inst + p->sig_inst_count, handles, n * sizeof *handles);
    p->sig_inst_count += n;
    return p->sig_inst_count - n;
}

/* Class instantiation of a method's class, as handles; returns the count. */
static uint32_t class_inst(const mg_generator *g, uint32_t method, uint64_t *out)
{
    const mg_class *c = &g->u->classes[method_of(g, method)->cls];
    for (uint32_t i = 0; i < c->generic_arity; i++)
        out[i] = class_handle(g, c->inst[i]);
    return c->generic_arity;
}

/* Writes an Agnostic_CORINFO_SIG_INFO for the method's args (or locals) with the blob in the
 * open map's pool. arg_offsets (optional) receives each argument's offset in the blob. */
static void put_sig_info(mg_generator *g, uint8_t *out, uint32_t method, bool locals,
                         bool with_inst)
{
    const mg_method *m = method_of(g, method);
    uint8_t blob[256];
    uint32_t offsets[MG_MAX_ARGS];
    uint32_t len = mg_sig_blob(g->u, m, locals, blob, offsets);
    uint64_t sig = sig_pointer(g, method, locals);
    uint64_t inst[2];
    uint32_t ninst = with_inst ? class_inst(g, method, inst) : 0;
    memset(out, 0, MCZ_SIG_SIZE);
    if (!locals) {
        mcz_put_le32(out + MCZ_SIG_CALL_CONV, m->hasthis ? MCZ_CALLCONV_HASTHIS : 0);
        mcz_put_le64(out + MCZ_SIG_RET_TYPE_CLASS, type_class_handle(g, m->ret));
        mcz_put_le64(out + MCZ_SIG_RET_TYPE_SIG_CLASS, type_class_handle(g, m->ret));
        mcz_put_le32(out + MCZ_SIG_RET_TYPE, raw_type(g, m->ret.cor_type));
    }
    uint8_t count = locals ? m->nlocals : m->nargs;
    mcz_put_le32(out + MCZ_SIG_NUM_ARGS, count);
    mcz_put_le32(out + MCZ_SIG_CLASS_INST_COUNT, ninst);
    mcz_put_le32(out + MCZ_SIG_CLASS_INST_INDEX, sig_inst_index(&g->plan, inst, ninst));
    mcz_put_le32(out + MCZ_SIG_METH_INST_INDEX, MCZ_NULL_INDEX);
    mcz_put_le64(out + MCZ_SIG_ARGS, sig + (count ? offsets[0] : len));
    mcz_put_le32(out + MCZ_SIG_PSIG_INDEX, buffer(g, blob, len));
    mcz_put_le32(out + MCZ_SIG_CB_SIG, len);
    mcz_put_le64(out + MCZ_SIG_METHOD_SIGNATURE, sig);
    mcz_put_le64(out + MCZ_SIG_SCOPE, module_handle(g, method));
    mcz_put_le32(out + MCZ_SIG_TOKEN,
                 locals ? 0x11000000u | (m->token & 0xFFFF) : m->token);
}

/* Writes an Agnostic_CORINFO_METHOD_INFO (IL, args, locals) into out. */
static void put_method_info(mg_generator *g, uint8_t *out, uint32_t method, bool with_inst)
{
    mg_method_ensure_il(g->u, method);
    const mg_method *m = method_of(g, method);
    memset(out, 0, MCZ_MI_SIZE);
    mcz_put_le64(out + MCZ_MI_FTN, method_handle(g, method));
    mcz_put_le64(out + MCZ_MI_SCOPE, module_handle(g, method));
    mcz_put_le32(out + MCZ_MI_IL_OFFSET, buffer(g, m->il, m->il_len));
    mcz_put_le32(out + MCZ_MI_IL_SIZE, m->il_len);
    mcz_put_le32(out + MCZ_MI_MAX_STACK, m->max_stack);
    mcz_put_le32(out + MCZ_MI_EH_COUNT, m->eh_count);
    mcz_put_le32(out + MCZ_MI_OPTIONS, m->nlocals ? 0x10 : 0);
    put_sig_info(g, out + MCZ_MI_ARGS, method, false, with_inst);
    put_sig_info(g, out + MCZ_MI_LOCALS, method, true, false);
}

/* ---- Emitters, one per packet ---- */

static void emit_compile_method(mg_generator *g)
{
    uint8_t key[4] = {0}, value[MCZ_CM_SIZE];
    begin(g, MCZ_PACKET_COMPILE_METHOD, 4, MCZ_CM_SIZE);
    put_method_info(g, value, g->plan.root, true);
    mcz_put_le32(value + MCZ_CM_FLAGS, 0xFFFFFFFFu);
    mcz_put_le32(value + MCZ_CM_OS, g->os);
    add(g, key, value);
    end(g);
}

static void emit_jit_flags(mg_generator *g)
{
    uint8_t key[4] = {0}, value[MCZ_DD_SIZE], flags[24];
    mcz_put_le64(flags, g->plan.jit_flags);
    mcz_put_le64(flags + 8, g->run.isa[0]);
    mcz_put_le64(flags + 16, g->run.isa[1]);
    begin(g, MCZ_PACKET_GET_JIT_FLAGS, 4, MCZ_DD_SIZE);
    mcz_put_le32(value, buffer(g, flags, sizeof flags));
    mcz_put_le32(value + 4, sizeof flags);
    add(g, key, value);
    end(g);
}

static void emit_method_class(mg_generator *g)
{
    begin(g, MCZ_PACKET_GET_METHOD_CLASS, 8, 8);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        uint32_t m = g->plan.methods[i].method;
        u64_u64(g, method_handle(g, m), class_handle(g, method_of(g, m)->cls));
    }
    end(g);
}

static void emit_method_attribs(mg_generator *g)
{
    begin(g, MCZ_PACKET_GET_METHOD_ATTRIBS, 8, 4);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        uint32_t m = g->plan.methods[i].method;
        u64_u32(g, method_handle(g, m), method_of(g, m)->attribs);
    }
    end(g);
}

/* PrintResult with the full string: required size len+1, stored without NUL. */
static void print_result(mg_generator *g, uint64_t handle, const char *text, uint32_t len)
{
    uint8_t key[8], value[MCZ_PR_SIZE];
    mcz_put_le64(key, handle);
    mcz_put_le32(value + MCZ_PR_REQUIRED_SIZE, len + 1);
    mcz_put_le32(value + MCZ_PR_BUFFER, buffer(g, text, len));
    mcz_put_le32(value + MCZ_PR_BUFFER_SIZE, len);
    add(g, key, value);
}

static void print_class(mg_generator *g, uint32_t cls)
{
    const mg_class *c = &g->u->classes[cls];
    print_result(g, class_handle(g, cls), g->u->text + c->name, c->name_len);
}

static void emit_print_class_name(mg_generator *g)
{
    if (!g->plan.named)
        return;
    begin(g, MCZ_PACKET_PRINT_CLASS_NAME, 8, MCZ_PR_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (!cm->named)
            continue;
        print_class(g, method_of(g, cm->method)->cls);
    }
    /* dumpMap prints the classes of the arguments and of the class instantiation */
    const mg_method *root = method_of(g, g->plan.root);
    for (uint8_t a = 0; a < root->nargs; a++)
        if (root->args[a].cls != MG_NONE)
            print_class(g, root->args[a].cls);
    const mg_class *owner = &g->u->classes[root->cls];
    for (uint32_t k = 0; k < owner->generic_arity; k++)
        print_class(g, owner->inst[k]);
    end(g);
}

static void emit_print_method_name(mg_generator *g)
{
    if (!g->plan.named)
        return;
    begin(g, MCZ_PACKET_PRINT_METHOD_NAME, 8, MCZ_PR_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (cm->named) {
            const mg_method *m = method_of(g, cm->method);
            print_result(g, method_handle(g, cm->method), g->u->text + m->name, m->name_len);
        }
    }
    end(g);
}

/* A class-keyed map over the classes the context touched (only value classes when asked):
 * many such maps share one key set, as the JIT asks several questions of each class. */
typedef uint64_t (*class_value_fn)(const mg_generator *g, uint32_t cls);

static void emit_class_map(mg_generator *g, uint8_t id, bool value_classes_only,
                           uint32_t value_size, class_value_fn value)
{
    begin(g, id, 8, value_size);
    for (uint32_t i = 0; i < g->plan.class_count; i++) {
        uint32_t cls = g->plan.classes[i];
        if (value_classes_only && !g->u->classes[cls].is_value)
            continue;
        uint8_t key[8], v[MCZ_DLD_SIZE] = {0};
        mcz_put_le64(key, class_handle(g, cls));
        uint64_t x = value(g, cls);
        if (value_size == 4)
            mcz_put_le32(v, (uint32_t)x);
        else
            mcz_put_le64(v, x);
        add(g, key, v);
    }
    end(g);
}

static const mg_class *class_of(const mg_generator *g, uint32_t cls) { return &g->u->classes[cls]; }

static uint64_t class_attribs(const mg_generator *g, uint32_t cls)
{
    return class_of(g, cls)->attribs;
}
static uint64_t class_is_value(const mg_generator *g, uint32_t cls)
{
    return class_of(g, cls)->is_value;
}
static uint64_t class_cor_type(const mg_generator *g, uint32_t cls)
{
    return raw_type(g, class_of(g, cls)->is_value ? MCZ_TYPE_VALUECLASS : MCZ_TYPE_CLASS);
}
static uint64_t class_is_intrinsic(const mg_generator *g, uint32_t cls)
{
    return cls < 64 && mg_hash2(g->u->seed, cls) % 4 == 0;
}
static uint64_t class_is_generic(const mg_generator *g, uint32_t cls)
{
    return class_of(g, cls)->generic_arity != 0;
}
static uint64_t class_is_exact(const mg_generator *g, uint32_t cls)
{
    return class_of(g, cls)->is_value || (class_of(g, cls)->attribs & 0x10) != 0;
}
static uint64_t class_parent(const mg_generator *g, uint32_t cls)
{
    uint32_t parent = class_of(g, cls)->parent;
    return parent == MG_NONE ? 0 : class_handle(g, parent);
}

static void emit_class_attribs(mg_generator *g) { emit_class_map(g, 41, false, 4, class_attribs); }
static void emit_is_value_class(mg_generator *g) {
    emit_class_map(g, 105, false, 4, class_is_value);
}
static void emit_as_cor_info_type(mg_generator *g) {
    emit_class_map(g, 2, false, 4, class_cor_type);
}
static void emit_is_intrinsic_type(mg_generator *g)
{
    emit_class_map(g, 148, false, 4, class_is_intrinsic);
}
static void emit_is_generic_type(mg_generator *g)
{
    emit_class_map(g, 220, false, 4, class_is_generic);
}
static void emit_is_exact_type(mg_generator *g) {
    emit_class_map(g, 215, false, 4, class_is_exact);
}
static void emit_parent_type(mg_generator *g) { emit_class_map(g, 81, false, 8, class_parent); }

/* Classes of the root's signature: dumpMap asks whether each is an array. */
static void emit_array_rank(mg_generator *g)
{
    const mg_method *root = method_of(g, g->plan.root);
    begin(g, 32, 8, 4);
    for (uint8_t a = 0; a < root->nargs; a++)
        if (root->args[a].cls != MG_NONE)
            u64_u32(g, class_handle(g, root->args[a].cls), 0);
    if (root->ret.cls != MG_NONE)
        u64_u32(g, class_handle(g, root->ret.cls), 0);
    end(g);
}

static void emit_class_size(mg_generator *g)
{
    begin(g, 47, 8, 4);
    for (uint32_t i = 0; i < g->plan.class_count; i++) {
        const mg_class *c = &g->u->classes[g->plan.classes[i]];
        if (c->is_value)
            u64_u32(g, class_handle(g, g->plan.classes[i]), c->instance_size);
    }
    end(g);
}

static void emit_method_sig(mg_generator *g)
{
    uint8_t key[MCZ_DLDL_SIZE], value[MCZ_SIG_SIZE];
    begin(g, MCZ_PACKET_GET_METHOD_SIG, MCZ_DLDL_SIZE, MCZ_SIG_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        uint32_t m = g->plan.methods[i].method;
        bool root = g->plan.methods[i].role == ROLE_ROOT;
        mcz_put_le64(key, method_handle(g, m));
        mcz_put_le64(key + 8, root ? 0 : class_handle(g, method_of(g, m)->cls));
        put_sig_info(g, value, m, false, root);
        add(g, key, value);
    }
    end(g);
}

/* Walks the args of every method the context touched (the importer walks each call's
 * signature) and the locals of the root and the inlinees; fn gets each argument's handle and
 * the next one. */
typedef void (*arg_fn)(mg_generator *g, uint32_t method, bool locals, uint32_t i,
                       uint64_t handle, uint64_t next);

static void walk_args(mg_generator *g, arg_fn fn)
{
    for (uint32_t k = 0; k < g->plan.method_count; k++) {
        const ctx_method *cm = &g->plan.methods[k];
        const mg_method *m = method_of(g, cm->method);
        for (int locals = 0; locals < 2; locals++) {
            if (locals && cm->role == ROLE_CALLEE)
                break;
            uint8_t blob[256];
            uint32_t offsets[MG_MAX_ARGS];
            uint32_t len = mg_sig_blob(g->u, m, locals, blob, offsets);
            uint64_t sig = sig_pointer(g, cm->method, locals);
            uint8_t count = locals ? m->nlocals : m->nargs;
            for (uint8_t i = 0; i < count; i++)
                fn(g, cm->method, locals, i, sig + offsets[i],
                   sig + (i + 1u < count ? offsets[i + 1] : len));
        }
    }
}

static mg_type arg_type(const mg_generator *g, uint32_t method, bool locals, uint32_t i)
{
    const mg_method *m = method_of(g, method);
    return locals ? m->locals[i] : m->args[i];
}

/* The key fields GetArgType and GetArgClass share (their inst indices as ContainsHandleMap
 * finds them). */
static void arg_key_common(mg_generator *g, uint32_t method, bool locals, uint8_t *counts,
                           uint64_t *sig, uint64_t *scope)
{
    uint64_t inst[2];
    uint32_t n = (!locals && method == g->plan.root) ? class_inst(g, method, inst) : 0;
    mcz_put_le32(counts, n);
    mcz_put_le32(counts + 4, sig_inst_index(&g->plan, inst, n));
    mcz_put_le32(counts + 8, 0);
    mcz_put_le32(counts + 12, MCZ_NULL_INDEX);
    *sig = sig_pointer(g, method, locals);
    *scope = module_handle(g, method);
}

static void arg_type_item(mg_generator *g, uint32_t method, bool locals, uint32_t i,
                          uint64_t handle, uint64_t next)
{
    uint8_t key[MCZ_AT_KEY_SIZE] = {0}, value[MCZ_AT_VALUE_SIZE] = {0};
    uint64_t sig, scope;
    const mg_method *m = method_of(g, method);
    mcz_put_le32(key + MCZ_AT_KEY_FLAGS, 0);
    mcz_put_le32(key + MCZ_AT_KEY_NUM_ARGS, locals ? m->nlocals : m->nargs);
    arg_key_common(g, method, locals, key + MCZ_AT_KEY_CLASS_INST_COUNT, &sig, &scope);
    mcz_put_le64(key + MCZ_AT_KEY_METHOD_SIGNATURE, sig);
    mcz_put_le64(key + MCZ_AT_KEY_SCOPE, scope);
    mcz_put_le64(key + MCZ_AT_KEY_ARGS, handle);
    mg_type t = arg_type(g, method, locals, i);
    mcz_put_le64(value + MCZ_AT_VALUE_VC_TYPE_RET,
                 t.cor_type == MCZ_TYPE_VALUECLASS ? class_handle(g, t.cls) : 0);
    mcz_put_le32(value + MCZ_AT_VALUE_RESULT, raw_type(g, t.cor_type));
    add(g, key, value);
    (void)next;
}

static void arg_class_item(mg_generator *g, uint32_t method, bool locals, uint32_t i,
                           uint64_t handle, uint64_t next)
{
    mg_type t = arg_type(g, method, locals, i);
    if (t.cls == MG_NONE)
        return;
    uint8_t key[MCZ_AC_KEY_SIZE] = {0}, value[MCZ_AC_VALUE_SIZE] = {0};
    uint64_t sig, scope;
    arg_key_common(g, method, locals, key + MCZ_AC_KEY_CLASS_INST_COUNT, &sig, &scope);
    mcz_put_le64(key + MCZ_AC_KEY_METHOD_SIGNATURE, sig);
    mcz_put_le64(key + MCZ_AC_KEY_SCOPE, scope);
    mcz_put_le64(key + MCZ_AC_KEY_ARGS, handle);
    mcz_put_le64(value + MCZ_AC_VALUE_CLASS, class_handle(g, t.cls));
    add(g, key, value);
    (void)next;
}

static void arg_next_item(mg_generator *g, uint32_t method, bool locals, uint32_t i,
                          uint64_t handle, uint64_t next)
{
    u64_u64(g, handle, next);
    (void)method, (void)locals, (void)i;
}

static void emit_arg_type(mg_generator *g)
{
    begin(g, MCZ_PACKET_GET_ARG_TYPE, MCZ_AT_KEY_SIZE, MCZ_AT_VALUE_SIZE);
    walk_args(g, arg_type_item);
    end(g);
}

static void emit_arg_class(mg_generator *g)
{
    begin(g, MCZ_PACKET_GET_ARG_CLASS, MCZ_AC_KEY_SIZE, MCZ_AC_VALUE_SIZE);
    walk_args(g, arg_class_item);
    end(g);
}

static void emit_arg_next(mg_generator *g)
{
    begin(g, MCZ_PACKET_GET_ARG_NEXT, 8, 8);
    walk_args(g, arg_next_item);
    end(g);
}

static void emit_builtin_class(mg_generator *g)
{
    static const uint32_t ids[] = {0, 1, 2, 3, 4, 5, 7};
    begin(g, 36, 4, 8);
    for (size_t i = 0; i < COUNT_OF(ids); i++) {
        uint8_t k[4], v[8];
        mcz_put_le32(k, ids[i]);
        mcz_put_le64(v, class_handle(g, g->u->builtin[ids[i]]));
        add(g, k, v);
    }
    end(g);
}

static void emit_ee_info(mg_generator *g)
{
    static const uint32_t ee[MCZ_EE_SIZE / 4] = {
        0x58, 0x60, 0x10, 0x28, 0x30, 0x38, 0x40, 0x48, 0x50, /* inlined call frame */
        0x10, 0x0C, 0x08, 0x18, 0x40, 0x18, 0x1000, 0x400000, 0, 0};
    uint8_t key[4] = {0}, value[MCZ_EE_SIZE];
    for (size_t i = 0; i < COUNT_OF(ee); i++)
        mcz_put_le32(value + 4 * i, ee[i]);
    mcz_put_le32(value + MCZ_EE_OS_TYPE, g->os);
    begin(g, 50, 4, MCZ_EE_SIZE);
    add(g, key, value);
    end(g);
}

static void emit_int_config(mg_generator *g)
{
    begin(g, 151, MCZ_CFG_SIZE, 4);
    for (uint32_t i = 0; i < g->run.config_count; i++) {
        const char *name = config_knobs[g->run.config[i]].name;
        uint8_t key[MCZ_CFG_SIZE], value[4];
        mcz_put_le32(key + MCZ_CFG_NAME, buffer(g, name, strlen(name) + 1));
        mcz_put_le32(key + MCZ_CFG_DEFAULT, config_knobs[g->run.config[i]].def);
        mcz_put_le32(value, g->run.config_value[i]);
        add(g, key, value);
    }
    end(g);
}

static void emit_string_config(mg_generator *g)
{
    static const char name[] = "JitStdOutFile";
    uint8_t key[4], value[4];
    if (!g->run.string_config)
        return;
    begin(g, 152, 4, 4);
    mcz_put_le32(key, buffer(g, name, sizeof name));
    mcz_put_le32(value, MCZ_NULL_INDEX);
    add(g, key, value);
    end(g);
}

/* The resolved token of a site: TOKENin and TOKENout (64 bytes). */
static void put_resolved_token(mg_generator *g, uint8_t *out, const ctx_site *s)
{
    const mg_ref *ref = s->ref;
    memset(out, 0, MCZ_RT_SIZE);
    static const uint32_t token_kind[] = {[MG_REF_CALL] = 0x0E, [MG_REF_FIELD] = 0x10,
                                          [MG_REF_TYPE] = 0x01, [MG_REF_STRING] = 0x20};
    mcz_put_le64(out + MCZ_RTI_CONTEXT, method_handle(g, s->context_method));
    mcz_put_le64(out + MCZ_RTI_SCOPE, module_handle(g, s->context_method));
    mcz_put_le32(out + MCZ_RTI_TOKEN, ref->token);
    mcz_put_le32(out + MCZ_RTI_TYPE, ref->opcode == 0x73 ? 0x4E : token_kind[ref->kind]);
    uint8_t *o = out + MCZ_RTI_SIZE;
    mcz_put_le32(o + MCZ_RTO_TYPE_SPEC_INDEX, MCZ_NULL_INDEX);
    mcz_put_le32(o + MCZ_RTO_METHOD_SPEC_INDEX, MCZ_NULL_INDEX);
    switch (ref->kind) {
    case MG_REF_CALL:
        mcz_put_le64(o + MCZ_RTO_CLASS, class_handle(g, method_of(g, ref->target)->cls));
        mcz_put_le64(o + MCZ_RTO_METHOD, method_handle(g, ref->target));
        break;
    case MG_REF_FIELD:
        mcz_put_le64(o + MCZ_RTO_CLASS, class_handle(g, ref->cls));
        mcz_put_le64(o + MCZ_RTO_FIELD, field_handle(g, ref->cls, ref->target));
        break;
    case MG_REF_TYPE:
        mcz_put_le64(o + MCZ_RTO_CLASS, class_handle(g, ref->target));
        break;
    default:
        break;
    }
}

/* The typespec/methodspec blobs the token resolved through, added to the open map's pool. */
static void put_spec_buffers(mg_generator *g, uint8_t *out, const ctx_site *s)
{
    if (s->ref->kind != MG_REF_TYPE || (s->ref->token >> 24) != 0x1B)
        return;
    const mg_class *c = &g->u->classes[s->ref->target];
    uint8_t spec[8] = {0x15, 0x12, (uint8_t)(c->token << 2), (uint8_t)c->generic_arity, 0x1C,
                       0x08};
    mcz_put_le32(out + MCZ_RTI_SIZE + MCZ_RTO_TYPE_SPEC_INDEX,
                 buffer(g, spec, 4u + c->generic_arity));
    mcz_put_le32(out + MCZ_RTI_SIZE + MCZ_RTO_TYPE_SPEC_SIZE, 4u + c->generic_arity);
}

/* One map with an item per token site (or none, as fn decides): fn adds the site's items. */
typedef void (*site_fn)(mg_generator *g, const ctx_site *s);

static void emit_per_site(mg_generator *g, uint8_t id, uint32_t key_size, uint32_t value_size,
                          site_fn fn)
{
    begin(g, id, key_size, value_size);
    for (uint32_t i = 0; i < g->plan.site_count; i++)
        fn(g, &g->plan.sites[i]);
    end(g);
}

/* The key most per-token queries share: the resolved token, then the caller's handle at
 * caller_offset. */
static void put_token_key(mg_generator *g, uint8_t *key, uint32_t caller_offset,
                          const ctx_site *s)
{
    put_resolved_token(g, key, s);
    mcz_put_le64(key + caller_offset, method_handle(g, s->context_method));
}

static void resolve_token_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->kind == MG_REF_STRING)
        return;
    uint8_t rt[MCZ_RT_SIZE + 4];
    put_resolved_token(g, rt, s);
    put_spec_buffers(g, rt, s);
    mcz_put_le32(rt + MCZ_RT_SIZE, 0); /* exceptionCode */
    add(g, rt, rt + MCZ_RTI_SIZE);
}

static void emit_resolve_token(mg_generator *g)
{
    emit_per_site(g, 109, MCZ_RTI_SIZE, MCZ_RTV_SIZE, resolve_token_item);
}

static void put_call_info(mg_generator *g, uint8_t *v, const ctx_site *s)
{
    uint32_t callee = s->ref->target;
    const mg_method *m = method_of(g, callee);
    memset(v, 0, MCZ_CI_SIZE);
    mcz_put_le64(v + MCZ_CI_METHOD, method_handle(g, callee));
    mcz_put_le32(v + MCZ_CI_METHOD_FLAGS, m->attribs);
    mcz_put_le32(v + MCZ_CI_CLASS_FLAGS, g->u->classes[m->cls].attribs);
    put_sig_info(g, v + MCZ_CI_SIG, callee, false, false);
    mcz_put_le32(v + MCZ_CI_ACCESS_ALLOWED, 1);
    mcz_put_le32(v + MCZ_CI_THIS_TRANSFORM, 0);
    bool virt = s->ref->opcode == 0x6F && (m->attribs & 0x40);
    mcz_put_le32(v + MCZ_CI_KIND, virt ? 2 : 0); /* CORINFO_VIRTUALCALL_STUB : CALL */
    mcz_put_le32(v + MCZ_CI_NULL_CHECK, s->ref->opcode == 0x6F);
    mcz_put_le64(v + MCZ_CI_CONTEXT, method_handle(g, callee) | 0);
    if (virt) {
        mcz_put_le32(v + MCZ_CI_STUB_LOOKUP + MCZ_LOOKUP_CONST + MCZ_CONST_LOOKUP_ACCESS, 1);
        mcz_put_le64(v + MCZ_CI_STUB_LOOKUP + MCZ_LOOKUP_CONST + MCZ_CONST_LOOKUP_HANDLE,
                     g->run.stub_base + ((mg_hash2(g->run.seed, callee) & 0xFFFF) << 4));
    }
}

static void call_info_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->kind != MG_REF_CALL)
        return;
    uint8_t key[MCZ_GCI_KEY_SIZE] = {0}, value[MCZ_CI_SIZE];
    put_token_key(g, key + MCZ_GCI_KEY_TOKEN, MCZ_GCI_KEY_CALLER, s);
    uint32_t flags = s->ref->opcode == 0x6F ? 0x3 : 0x1;
    mcz_put_le32(key + MCZ_GCI_KEY_FLAGS, flags);
    put_call_info(g, value, s);
    add(g, key, value);
    /* the importer asks again with other flags (security checks, ldftn) */
    if (mg_hash2(s->ref->token, s->context_method) % 1000 < g->preset->requery_share * 1000) {
        mcz_put_le32(key + MCZ_GCI_KEY_FLAGS, flags | 0x10);
        add(g, key, value);
    }
}

static void emit_call_info(mg_generator *g)
{
    emit_per_site(g, 37, MCZ_GCI_KEY_SIZE, MCZ_CI_SIZE, call_info_item);
}

static void field_info_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->kind != MG_REF_FIELD)
        return;
    uint8_t key[MCZ_GFI_KEY_SIZE] = {0}, value[MCZ_FI_SIZE] = {0};
    put_token_key(g, key + MCZ_GFI_KEY_TOKEN, MCZ_GFI_KEY_CALLER, s);
    bool is_static = s->ref->opcode == 0x7E || s->ref->opcode == 0x80;
    mcz_put_le32(key + MCZ_GFI_KEY_FLAGS, s->ref->opcode == 0x7D || s->ref->opcode == 0x80
                                              ? 0x2 : 0x1);
    uint64_t h = mg_hash2(s->ref->cls, s->ref->target);
    mcz_put_le32(value + MCZ_FI_ACCESSOR, is_static ? 1 : 0);
    mcz_put_le32(value + MCZ_FI_FLAGS, is_static ? 0x1 : 0);
    mcz_put_le32(value + MCZ_FI_OFFSET, 8 + 8 * s->ref->target);
    static const uint8_t field_types[] = {MCZ_TYPE_CLASS, MCZ_TYPE_CLASS, MCZ_TYPE_INT,
                                          MCZ_TYPE_INT, MCZ_TYPE_BOOL, MCZ_TYPE_LONG,
                                          MCZ_TYPE_VALUECLASS, MCZ_TYPE_CLASS};
    uint8_t ft = field_types[h % COUNT_OF(field_types)];
    mcz_put_le32(value + MCZ_FI_TYPE, raw_type(g, ft));
    if (ft == MCZ_TYPE_VALUECLASS)
        mcz_put_le64(value + MCZ_FI_STRUCT_TYPE, class_handle(g, (uint32_t)(h >> 40) % 400));
    mcz_put_le32(value + MCZ_FI_ACCESS_ALLOWED, 1);
    if (is_static) {
        mcz_put_le32(value + MCZ_FI_LOOKUP + MCZ_CONST_LOOKUP_ACCESS, 0);
        mcz_put_le64(value + MCZ_FI_LOOKUP + MCZ_CONST_LOOKUP_HANDLE,
                     g->run.field_base + 0x08000000ull + ((h & 0xFFFFF) << 3));
    }
    add(g, key, value);
}

static void emit_field_info(mg_generator *g)
{
    emit_per_site(g, 55, MCZ_GFI_KEY_SIZE, MCZ_FI_SIZE, field_info_item);
}

static void construct_string_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->kind != MG_REF_STRING)
        return;
    uint8_t key[MCZ_DLD_SIZE], value[MCZ_DLD_SIZE];
    mcz_put_le64(key, module_handle(g, s->context_method));
    mcz_put_le32(key + 8, s->ref->token);
    mcz_put_le64(value, string_handle(g, s->ref->target));
    mcz_put_le32(value + 8, 1); /* IAT_PVALUE */
    add(g, key, value);
}

static void emit_construct_string(mg_generator *g)
{
    emit_per_site(g, 15, MCZ_DLD_SIZE, MCZ_DLD_SIZE, construct_string_item);
}

static void emit_can_inline(mg_generator *g)
{
    if (!g->plan.optimized)
        return;
    begin(g, 9, MCZ_DLDL_SIZE, MCZ_CAN_INLINE_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (cm->role == ROLE_ROOT)
            continue;
        uint8_t key[MCZ_DLDL_SIZE], value[MCZ_CAN_INLINE_SIZE] = {0};
        mcz_put_le64(key, method_handle(g, cm->caller));
        mcz_put_le64(key + 8, method_handle(g, cm->method));
        uint32_t result = cm->role == ROLE_INLINEE ? 0 /* INLINE_PASS */
                          : method_of(g, cm->method)->il_target > g->preset->inline_max_il
                              ? 0xFFFFFFFEu
                              : 0xFFFFFFFFu;
        mcz_put_le32(value + MCZ_CAN_INLINE_RESULT, result);
        add(g, key, value);
    }
    end(g);
}

static void emit_method_info(mg_generator *g)
{
    if (!g->plan.optimized)
        return;
    begin(g, 74, MCZ_DLDL_SIZE, MCZ_GMI_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (!cm->examined)
            continue;
        uint8_t key[MCZ_DLDL_SIZE], value[MCZ_GMI_SIZE] = {0};
        mcz_put_le64(key, method_handle(g, cm->method));
        mcz_put_le64(key + 8, method_handle(g, cm->method) | 1);
        put_method_info(g, value, cm->method, false);
        value[MCZ_GMI_RESULT] = 1;
        add(g, key, value);
    }
    end(g);
}

typedef bool (*method_filter)(const mg_generator *g, const ctx_method *cm);

static bool is_inlinee(const mg_generator *g, const ctx_method *cm)
{
    (void)g;
    return cm->role == ROLE_INLINEE;
}

static bool is_any(const mg_generator *g, const ctx_method *cm)
{
    (void)g, (void)cm;
    return true;
}

/* What emit_methods_u32 stores: 0 stands for the method's hash (stable across runs, as
 * getMethodHash hashes the name), 2 for "is it an intrinsic", anything else for itself. */
static uint32_t method_value(const mg_generator *g, uint32_t method, uint32_t value)
{
    if (value == 0)
        return (uint32_t)mg_hash2(g->u->seed, method);
    if (value == 2)
        return method_of(g, method)->intrinsic;
    return value;
}

/* u64 method handle -> u32 for the methods the filter selects (see method_value). */
static void emit_methods_u32(mg_generator *g, uint8_t id, method_filter filter, uint32_t value)
{
    begin(g, id, 8, 4);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (filter(g, cm))
            u64_u32(g, method_handle(g, cm->method), method_value(g, cm->method, value));
    }
    end(g);
}

static void emit_notify_usage(mg_generator *g) { emit_methods_u32(g, 214, is_inlinee, 1); }
static void emit_method_hash(mg_generator *g) { emit_methods_u32(g, 73, is_inlinee, 0); }
static void emit_is_intrinsic(mg_generator *g) { emit_methods_u32(g, 192, is_any, 2); }

static void emit_name_from_metadata(mg_generator *g)
{
    begin(g, 161, MCZ_MNI_SIZE, MCZ_MNO_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        const mg_method *m = method_of(g, cm->method);
        if (!m->intrinsic)
            continue;
        const mg_class *c = &g->u->classes[m->cls];
        uint8_t key[MCZ_MNI_SIZE] = {0}, value[MCZ_MNO_SIZE];
        char text[512];
        mcz_put_le64(key + MCZ_MNI_FTN, method_handle(g, cm->method));
        mcz_put_le32(key + MCZ_MNI_CLASS_NAME, 1);
        mcz_put_le32(key + MCZ_MNI_NAMESPACE, 1);
        memcpy(text, g->u->text + m->name, m->name_len);
        text[m->name_len] = 0;
        mcz_put_le32(value + MCZ_MNO_METHOD_NAME, buffer(g, text, m->name_len + 1u));
        uint32_t simple_len = c->simple_len < 200 ? c->simple_len : 200;
        memcpy(text, g->u->text + c->simple, simple_len);
        text[simple_len] = 0;
        mcz_put_le32(value + MCZ_MNO_CLASS_NAME, buffer(g, text, simple_len + 1u));
        memcpy(text, g->u->text + c->ns, c->ns_len);
        text[c->ns_len] = 0;
        mcz_put_le32(value + MCZ_MNO_NAMESPACE, buffer(g, text, c->ns_len + 1u));
        mcz_put_le32(value + MCZ_MNO_ENCLOSING, MCZ_NULL_INDEX);
        add(g, key, value);
    }
    end(g);
}

static void init_class_item(mg_generator *g, const ctx_site *s)
{
    bool static_field = s->ref->opcode == 0x7E || s->ref->opcode == 0x80;
    bool static_call = s->ref->kind == MG_REF_CALL &&
                       !method_of(g, s->ref->target)->hasthis;
    if (!static_field && !static_call)
        return;
    uint8_t key[MCZ_IC_SIZE] = {0}, value[4];
    if (static_field)
        mcz_put_le64(key + MCZ_IC_FIELD, field_handle(g, s->ref->cls, s->ref->target));
    else
        mcz_put_le64(key + MCZ_IC_METHOD, method_handle(g, s->ref->target));
    mcz_put_le64(key + MCZ_IC_CONTEXT, method_handle(g, s->context_method));
    mcz_put_le32(value, mg_hash2(s->ref->token, 7) & 1);
    add(g, key, value);
}

static void emit_init_class(mg_generator *g)
{
    emit_per_site(g, 97, MCZ_IC_SIZE, 4, init_class_item);
}

static void emit_sig_inst_map(mg_generator *g)
{
    if (g->plan.sig_inst_count == 0)
        return;
    begin(g, MCZ_PACKET_SIG_INST_HANDLE_MAP, 0, 8);
    for (uint32_t i = 0; i < g->plan.sig_inst_count; i++) {
        uint8_t v[8];
        mcz_put_le64(v, g->plan.sig_inst[i]);
        add(g, NULL, v);
    }
    end(g);
}

static void emit_pgo(mg_generator *g)
{
    if (!g->plan.pgo)
        return;
    const mg_method *root = method_of(g, g->plan.root);
    uint32_t blocks = 1 + root->il_len / 12;
    if (blocks > 4096)
        blocks = 4096;
    uint8_t *schema = calloc(blocks, MCZ_PGOS_SIZE);
    uint8_t *data = calloc(blocks, 4);
    if (!schema || !data) {
        free(schema);
        free(data);
        return;
    }
    uint32_t il_offset = 0, count = 1 + (uint32_t)mg_rng_lognormal(&g->rng, 300, 2.0);
    for (uint32_t i = 0; i < blocks; i++) {
        uint8_t *e = schema + (size_t)i * MCZ_PGOS_SIZE;
        mcz_put_le64(e + MCZ_PGOS_OFFSET, 4ull * i);
        mcz_put_le32(e + MCZ_PGOS_KIND, MCZ_PGO_KIND_BB_INT_COUNT);
        mcz_put_le32(e + MCZ_PGOS_IL_OFFSET, il_offset);
        mcz_put_le32(e + MCZ_PGOS_COUNT, 1);
        il_offset += 1 + mg_rng_below(&g->rng, 20);
        if (mg_rng_chance(&g->rng, 0.3))
            count = mg_rng_chance(&g->rng, 0.5) ? count / 2 : count * 2 + 1;
        mcz_put_le32(data + 4 * i, mg_rng_chance(&g->rng, 0.15) ? 0 : count);
    }
    uint8_t key[8], value[MCZ_PGO_SIZE] = {0};
    begin(g, MCZ_PACKET_GET_PGO_RESULTS, 8, MCZ_PGO_SIZE);
    mcz_put_le64(key, method_handle(g, g->plan.root));
    mcz_put_le32(value + MCZ_PGO_COUNT_SCHEMA_ITEMS, blocks);
    mcz_put_le32(value + MCZ_PGO_SCHEMA_INDEX, buffer(g, schema, (size_t)blocks * MCZ_PGOS_SIZE));
    mcz_put_le32(value + MCZ_PGO_DATA_INDEX, buffer(g, data, 4u * blocks));
    mcz_put_le32(value + MCZ_PGO_DATA_BYTE_COUNT, 4u * blocks);
    mcz_put_le32(value + MCZ_PGO_SOURCE, 2);
    mcz_put_le32(value + MCZ_PGO_DYNAMIC, 1);
    add(g, key, value);
    end(g);
    free(schema);
    free(data);
}

/* Devirtualization attempts on the virtual calls of optimized code. */
static void resolve_virtual_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->opcode != 0x6F || !(method_of(g, s->ref->target)->attribs & 0x40))
        return;
    uint8_t key[MCZ_RVM_KEY_SIZE] = {0}, value[MCZ_RVM_SIZE] = {0};
    uint32_t callee = s->ref->target;
    uint64_t cls = class_handle(g, method_of(g, callee)->cls);
    mcz_put_le64(key + MCZ_RVM_KEY_METHOD, method_handle(g, callee));
    mcz_put_le64(key + MCZ_RVM_KEY_OBJ_CLASS, cls);
    mcz_put_le64(key + MCZ_RVM_KEY_CONTEXT, method_handle(g, s->context_method));
    mcz_put_le32(key + MCZ_RVM_KEY_HAS_TOKEN, 1);
    put_resolved_token(g, key + MCZ_RVM_KEY_TOKEN, s);
    bool devirtualized = mg_hash2(g->run.seed, callee) % 3 == 0;
    value[MCZ_RVM_RETURN] = devirtualized;
    mcz_put_le32(value + MCZ_RVM_DETAIL, devirtualized ? 1 : 4);
    if (devirtualized) {
        mcz_put_le64(value + MCZ_RVM_DEVIRTUALIZED, method_handle(g, callee));
        mcz_put_le64(value + MCZ_RVM_EXACT_CONTEXT, cls | 1);
        put_resolved_token(g, value + MCZ_RVM_TOKEN, s);
    }
    mcz_put_le32(value + MCZ_RVM_TOKEN + MCZ_RTI_SIZE + MCZ_RTO_TYPE_SPEC_INDEX,
                 MCZ_NULL_INDEX);
    mcz_put_le32(value + MCZ_RVM_UNBOXED_TOKEN + MCZ_RTI_SIZE + MCZ_RTO_TYPE_SPEC_INDEX,
                 MCZ_NULL_INDEX);
    add(g, key, value);
}

static void emit_resolve_virtual(mg_generator *g)
{
    if (!g->plan.optimized)
        return;
    emit_per_site(g, 160, MCZ_RVM_KEY_SIZE, MCZ_RVM_SIZE, resolve_virtual_item);
}

/* Access checks of the resolved tokens (all allowed, no callout helper). */
static void can_access_class_item(mg_generator *g, const ctx_site *s)
{
    if (s->ref->kind == MG_REF_STRING)
        return;
    uint8_t key[MCZ_CAC_KEY_SIZE], value[MCZ_CAC_SIZE] = {0};
    put_token_key(g, key + MCZ_CAC_KEY_TOKEN, MCZ_CAC_KEY_CALLER, s);
    mcz_put_le32(value + MCZ_CAC_RESULT, 1); /* CORINFO_ACCESS_ALLOWED */
    add(g, key, value);
}

static void emit_can_access_class(mg_generator *g)
{
    emit_per_site(g, 3, MCZ_CAC_KEY_SIZE, MCZ_CAC_SIZE, can_access_class_item);
}

/* The metadata token of every method touched (the JIT's getMethodDefFromMethod). */
static void emit_method_def(mg_generator *g)
{
    begin(g, 72, 8, 4);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        uint32_t m = g->plan.methods[i].method;
        u64_u32(g, method_handle(g, m), method_of(g, m)->token);
    }
    end(g);
}

/* ---- Per-run addresses: the same in every context of a run, different in every run ---- */

/* A helper's entry point: the runtime's base (per run) plus the helper's offset (per build). */
static void helper_item(mg_generator *g, uint32_t helper)
{
    uint8_t key[4], value[MCZ_HELPER_FTN_SIZE] = {0};
    mcz_put_le32(key, helper);
    mcz_put_le32(value + MCZ_HELPER_FTN_LOOKUP + MCZ_CONST_LOOKUP_ACCESS, 0); /* IAT_VALUE */
    mcz_put_le64(value + MCZ_HELPER_FTN_LOOKUP + MCZ_CONST_LOOKUP_HANDLE,
                 g->run.runtime_base + 0x1000 + (mg_hash2(g->u->seed, helper) & 0x3FFFF0));
    add(g, key, value);
}

/* Helpers every compilation of the run uses, and those its sites need (allocation, casts,
 * boxing, string literals, static bases). */
static void emit_helper_ftn(mg_generator *g)
{
    begin(g, 233, 4, MCZ_HELPER_FTN_SIZE);
    uint32_t core = g->plan.optimized ? g->run.core_helper_count
                                      : g->run.core_helper_count * 2 / 3;
    for (uint32_t i = 0; i < core; i++)
        helper_item(g, g->run.core_helpers[i]);
    for (uint32_t i = 0; i < g->plan.site_count; i++) {
        uint8_t op = g->plan.sites[i].ref->opcode;
        if (op == 0x73 || op == 0x74 || op == 0x75 || op == 0x8C || op == 0x8D || op == 0x7E)
            helper_item(g, 100u + op % 64);
    }
    end(g);
}

static uint64_t entry_point(const mg_generator *g, uint32_t method) {
    return g->run.stub_base + 0x00100000ull +
           ((mg_hash2(g->run.seed, 0x40000000ull + method) & 0xFFFFF) << 3);
}

static void emit_function_entry_point(mg_generator *g)
{
    begin(g, 60, MCZ_DLD_SIZE, MCZ_DLD_SIZE);
    for (uint32_t i = 0; i < g->plan.method_count; i++) {
        const ctx_method *cm = &g->plan.methods[i];
        if (cm->role != ROLE_CALLEE)
            continue;
        uint8_t key[MCZ_DLD_SIZE], value[MCZ_DLD_SIZE];
        mcz_put_le64(key, method_handle(g, cm->method));
        mcz_put_le32(key + 8, 0); /* CORINFO_ACCESS_ANY */
        mcz_put_le64(value, entry_point(g, cm->method));
        mcz_put_le32(value + 8, 1); /* IAT_PVALUE */
        add(g, key, value);
    }
    end(g);
}

/* ---- Compile-result packets (thin collections have none) ---- */

/* Plausible x64 code: prologue, moves and calls with displacements, epilogue. */
static uint32_t native_code(mg_generator *g, uint8_t *out, uint32_t cap)
{
    static const uint8_t prologue[] = {0x55, 0x48, 0x8B, 0xEC, 0x48, 0x83, 0xEC, 0x20};
    static const uint8_t epilogue[] = {0x48, 0x83, 0xC4, 0x20, 0x5D, 0xC3};
    uint32_t n = 0;
    memcpy(out, prologue, sizeof prologue);
    n += sizeof prologue;
    while (n + 16 < cap) {
        uint32_t kind = mg_rng_below(&g->rng, 4);
        if (kind == 0) {
            out[n++] = 0xE8; /* call rel32 */
            mcz_put_le32(out + n, (uint32_t)mg_rng_next(&g->rng));
            n += 4;
        } else if (kind == 1) {
            static const uint8_t mov[] = {0x48, 0x8B, 0x45, 0xF8};
            memcpy(out + n, mov, sizeof mov);
            out[n + 3] = (uint8_t)(0xF0 - 8 * mg_rng_below(&g->rng, 6));
            n += sizeof mov;
        } else if (kind == 2) {
            static const uint8_t movabs[] = {0x48, 0xB9};
            memcpy(out + n, movabs, sizeof movabs);
            mcz_put_le64(out + n + 2, g->run.class_base + (mg_rng_next(&g->rng) & 0xFFFF0));
            n += 10;
        } else {
            static const uint8_t test[] = {0x85, 0xC0, 0x74, 0x08};
            memcpy(out + n, test, sizeof test);
            n += sizeof test;
        }
    }
    memcpy(out + n, epilogue, sizeof epilogue);
    return n + sizeof epilogue;
}

static void emit_cr_alloc_mem(mg_generator *g)
{
    if (!g->plan.cr)
        return;
    const mg_method *root = method_of(g, g->plan.root);
    uint32_t cap = 32 + root->il_len * 3;
    if (cap > 1u << 20)
        cap = 1u << 20;
    uint8_t *code = malloc(cap);
    if (!code)
        return;
    uint32_t len = native_code(g, code, cap);
    uint8_t key[4] = {0}, value[MCZ_AM_SIZE] = {0};
    uint64_t hot = g->run.stub_base + 0x10000000ull + ((mg_rng_next(&g->rng) & 0xFFFFF) << 4);
    /* Versions after B dropped the u32 flag: the fields after it move 4 bytes down. */
    uint32_t size = mcz_jit_ee_packet(g->jit_ee, 115)->value_size;
    uint32_t shift = MCZ_AM_SIZE - size;
    begin(g, 115, 4, size);
    mcz_put_le32(value + MCZ_AM_HOT_SIZE, len);
    mcz_put_le32(value + MCZ_AM_HOT_INDEX - shift, buffer(g, code, len));
    mcz_put_le32(value + MCZ_AM_COLD_INDEX - shift, MCZ_NULL_INDEX);
    mcz_put_le32(value + MCZ_AM_RODATA_INDEX - shift, MCZ_NULL_INDEX);
    mcz_put_le64(value + MCZ_AM_HOT_BLOCK - shift, hot);
    add(g, key, value);
    end(g);
    free(code);
}

static void emit_cr_gc_info(mg_generator *g)
{
    if (!g->plan.cr)
        return;
    uint8_t info[64], key[4] = {0}, value[MCZ_GC_SIZE];
    uint32_t len = 8 + mg_rng_below(&g->rng, 48);
    assert(len >= 8 && len <= sizeof info); /* mg_rng_below(r, n) is below n */
    for (uint32_t i = 0; i < len; i++)
        info[i] = (uint8_t)mg_rng_below(&g->rng, 64);
    begin(g, 114, 4, MCZ_GC_SIZE);
    mcz_put_le64(value + MCZ_GC_SIZE_FIELD, len);
    mcz_put_le32(value + MCZ_GC_INDEX, buffer(g, info, len));
    add(g, key, value);
    end(g);
}

static void emit_cr_compile_method(mg_generator *g)
{
    if (!g->plan.cr)
        return;
    uint8_t key[4] = {0}, value[MCZ_CMR_SIZE] = {0};
    begin(g, 118, 4, MCZ_CMR_SIZE);
    mcz_put_le64(value + MCZ_CMR_NATIVE_ENTRY, g->run.stub_base + 0x10000000ull);
    mcz_put_le32(value + MCZ_CMR_NATIVE_SIZE, 64 + method_of(g, g->plan.root)->il_len * 3);
    add(g, key, value);
    end(g);
}

static void emit_cr_process_name(mg_generator *g)
{
    if (!g->plan.cr)
        return;
    uint8_t value[4];
    begin(g, MCZ_PACKET_CR_PROCESS_NAME, 0, 4);
    mcz_put_le32(value, buffer(g, g->run.process_name, strlen(g->run.process_name) + 1));
    add(g, NULL, value);
    end(g);
}

/* Emitters by packet id; the write order comes from the library's packet table. */
static const emit_fn emitters[256] = {
    [2] = emit_as_cor_info_type,        [3] = emit_can_access_class,
    [6] = emit_print_method_name,       [9] = emit_can_inline,
    [15] = emit_construct_string,       [29] = emit_arg_next,
    [32] = emit_array_rank,             [36] = emit_builtin_class,
    [37] = emit_call_info,              [41] = emit_class_attribs,
    [47] = emit_class_size,             [50] = emit_ee_info,
    [55] = emit_field_info,             [60] = emit_function_entry_point,
    [70] = emit_method_attribs,         [71] = emit_method_class,
    [72] = emit_method_def,             [73] = emit_method_hash,
    [74] = emit_method_info,            [76] = emit_method_sig,
    [81] = emit_parent_type,            [97] = emit_init_class,
    [105] = emit_is_value_class,        [109] = emit_resolve_token,
    [114] = emit_cr_gc_info,            [115] = emit_cr_alloc_mem,
    [118] = emit_cr_compile_method,     [121] = emit_cr_process_name,
    [139] = emit_arg_class,             [140] = emit_arg_type,
    [143] = emit_compile_method,        [148] = emit_is_intrinsic_type,
    [149] = emit_print_class_name,      [151] = emit_int_config,
    [152] = emit_string_config,         [154] = emit_jit_flags,
    [160] = emit_resolve_virtual,       [161] = emit_name_from_metadata,
    [184] = emit_sig_inst_map,          [187] = emit_pgo,
    [192] = emit_is_intrinsic,          [214] = emit_notify_usage,
    [215] = emit_is_exact_type,         [220] = emit_is_generic_type,
    [233] = emit_helper_ftn,
};

/* The SigInstHandleMap must be complete before any key that indexes it is built, and 184 is
 * written last: signatures that append to it are all emitted earlier in the order. */
static int emit_context(mg_generator *g, const uint8_t **bytes, size_t *size)
{
    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(g->jit_ee, &count);
    mcz_mc_builder_reset(g->b);
    for (size_t i = 0; i < count; i++)
        if (emitters[order[i]])
            emitters[order[i]](g);
    return mcz_mc_builder_finish(g->b, bytes, size);
}

/* ---- Generator ---- */

mg_generator *mg_generator_create(const mg_preset *preset, const mcz_jit_ee *jit_ee,
                                  uint64_t seed, uint32_t contexts)
{
    mg_generator *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->preset = preset;
    g->jit_ee = jit_ee;
    g->total = contexts;
    mg_rng_seed(&g->rng, mg_hash2(seed, 0x52554E53ull));
    g->u = mg_universe_create(UNIVERSE_SEED);
    g->b = mcz_mc_builder_create();
    g->order = calloc(g->u->method_count, sizeof *g->order);
    g->method_stamp = calloc(g->u->method_count, sizeof *g->method_stamp);
    g->compiled = calloc(g->u->method_count, sizeof *g->compiled);
    g->class_stamp = calloc(g->u->class_count, sizeof *g->class_stamp);
    if (!g->u || !g->b || !g->order || !g->method_stamp || !g->compiled || !g->class_stamp) {
        mg_generator_free(g);
        return NULL;
    }
    for (uint32_t i = 0; i < g->u->method_count; i++)
        g->order[i] = i;
    g->os = 1; /* CORINFO_UNIX */
    return g;
}

void mg_generator_free(mg_generator *g)
{
    if (!g)
        return;
    mg_universe_free(g->u);
    mcz_mc_builder_free(g->b);
    free(g->order);
    free(g->method_stamp);
    free(g->compiled);
    free(g->class_stamp);
    free(g->plan.methods);
    free(g->plan.classes);
    free(g->plan.sites);
    free(g->plan.queue);
    free(g->plan.queue_depth);
    free(g);
}

void mg_generator_hold_out(mg_generator *g, uint32_t contexts)
{
    g->total = g->produced + contexts;
    g->run_left = 0;
}

int mg_generator_next(mg_generator *g, const uint8_t **bytes, size_t *size)
{
    if (g->produced >= g->total)
        return 0;
    if (g->run_left == 0)
        start_run(g);
    g->run_left--;
    plan_context(g);
    int rc = emit_context(g, bytes, size);
    if (rc != MCZ_OK)
        return rc;
    g->produced++;
    return 1;
}
