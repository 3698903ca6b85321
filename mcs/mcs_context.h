/*
 * mcs_context.h - what the printing verbs read out of one context, the way SuperPMI's replay
 * lookups read it (mcs_context.c): maps by packet id, the CompileMethod record, the JIT flags
 * with mcs's PGO pseudo-flags, names, signatures walked through GetArgType/GetArgNext; and a
 * context re-serialized without its compile results (-thin).
 *
 * Nothing here fails on missing data: a lookup that finds nothing says so (0 or NULL), and the
 * verbs print a placeholder where SuperPMI's mcs would stop. Value layouts come from
 * mcz_agnostic.h, the one place they are written down.
 */
#ifndef MCS_CONTEXT_H
#define MCS_CONTEXT_H

#include "mcs_util.h"

/* The fields of a DD value (mcz_agnostic.h: u32 A, u32 B), e.g. GetJitFlags' pool index and
 * length. */
enum { MCS_DD_A = 0, MCS_DD_B = 4 };

/* Printed where a name, a type or a value cannot be looked up. */
#define MCS_UNKNOWN "<unknown>"

/*
 * The map of the last packet with this id (a repeated packet replaces the earlier one when
 * SuperPMI loads a context). Returns 1 with *out parsed, 0 when absent, or a negative code with
 * d filled (a damaged packet).
 */
int mcs_map_of(const mcz_mc *mc, uint8_t id, mcz_map *out, mcz_diag *d);

/* A sparse map's value for a u32 / u64 key, or NULL (absent, or the map has other keys). */
const uint8_t *mcs_find_u32(const mcz_map *m, uint32_t key);
const uint8_t *mcs_find_u64(const mcz_map *m, uint64_t key);

/* The one CompileMethod record (packet 143, key 0) and its map (for pool lookups). */
typedef struct mcs_method {
    mcz_map map;
    const uint8_t *info; /* Agnostic_CORINFO_METHOD_INFO, at least MCZ_MI_SIZE bytes */
    bool has_os;         /* the value holds the os field (216 bytes, not 212) */
} mcs_method;

/* Returns 1 with *m filled, 0 when the context lacks the record, or a negative code. */
int mcs_method_load(const mcz_mc *mc, mcs_method *m, mcz_diag *d);

/* The IL bytes of the method: true with *il and *size set, false when they are not there. */
bool mcs_method_il(const mcs_method *m, const uint8_t **il, uint32_t *size);

/*
 * The JIT flags as mcs's verbs print them: GetFlagsRaw() of GetJitFlags (154) with the PGO
 * pseudo-flags ORed in (HAS_PGO, HAS_EDGE_PROFILE, HAS_CLASS_PROFILE ... from the PGO data, as
 * SuperPMI's verbjitflags.cpp adds them; see mcs_jit_flags in mcs_context.c). Returns 1, 0 when
 * the context has no GetJitFlags entry, or a negative code.
 */
int mcs_jit_flags(const mcz_mc *mc, uint64_t *flags, mcz_diag *d);

/* SpmiDumpHelper::DumpJitFlags: " NAME" per set flag in SuperPMI's fixed order, then
 * " Unknown jit flags-%016llX" for bits without a name. */
void mcs_jit_flags_text(uint64_t flags, char *buf, size_t cap);

/* The name of CORJIT_FLAGS bit n ("TIER0"), or NULL: no such flag, or one of mcs's PGO
 * pseudo-flags (those are never stored in a file). */
const char *mcs_jit_flag_name(unsigned n);

/* A name as getFromPrinter prints it into a 256-byte buffer: packet id is PrintMethodName (6)
 * or PrintClassName (149). Returns true, or false with MCS_UNKNOWN in buf. */
#define MCS_NAME_SIZE 256
bool mcs_print_name(const mcz_mc *mc, uint8_t id, uint64_t handle, char buf[MCS_NAME_SIZE]);

/* The class of a method (GetMethodClass) and its name. */
bool mcs_method_class_name(const mcz_mc *mc, uint64_t ftn, char buf[MCS_NAME_SIZE]);

/* DumpAttributeToConsoleBare for GetMethodAttribs(ftn): "static ", "$dontInline  " or
 * "$constructor " (the first that applies), nothing, or "<unknown> " without the entry. */
void mcs_print_attributes(FILE *f, const mcz_mc *mc, uint64_t ftn);

/* DumpPrimToConsoleBare's text for a raw CorInfoType (as version v numbers it) and class
 * handle into f. */
void mcs_print_prim(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, uint32_t type, uint64_t cls);

/* The instantiation handles of a stored signature (count, index into SigInstHandleMap), printed
 * as "[A, B]" with class names; nothing when count is 0. */
void mcs_print_inst(FILE *f, const mcz_mc *mc, uint32_t count, uint32_t index);

/* A signature's arguments "T1, T2" walked through GetArgType, GetArgClass and GetArgNext as
 * DumpSigToConsoleBare does, types numbered as in version v; MCS_UNKNOWN for an argument that
 * cannot be looked up. */
void mcs_print_sig_args(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, const uint8_t *sig);

/* A string of the dense CR ProcessName map (entry 0), or NULL when absent. */
const char *mcs_process_name(const mcz_mc *mc, char *buf, size_t cap);

/*
 * The context without version v's compile-result packets, re-serialized with b (map by map, in
 * v's write order; ids v does not know after those, by id). *out
 * views b's buffer until its next use. Returns 0 or a negative code with d filled.
 */
int mcs_thin(const mcz_jit_ee *v, mcz_mc_builder *b, const mcz_mc *mc, mcz_mc *out,
             mcz_diag *d);

/*
 * Writes mc to o after the deep check SuperPMI's parse amounts to: as it is, or thinned with
 * thin (NULL: as it is). Returns 0, or -1 after printing the error (a damaged context of in
 * names its number and offset).
 */
int mcs_output_put_checked(mcs_output *o, mcz_mc_builder *thin, const mcs_input *in,
                           const mcz_mc *mc);

/*
 * Arguments of the verbs that take an optional leading RANGE ("-dump [RANGE] FILE"): `files`
 * positionals into pos, and the list (empty, meaning every context, when RANGE is absent).
 * Returns MCS_EXIT_OK, or the exit code after printing the error.
 */
int mcs_parse_ranged(mcs_run *run, int argc, char **argv, const mcs_usage *u, void *args, int files,
                     const char **pos, mcz_list *list);

/* Checks that in holds every number of list, as zstd and xz check every file named: 0, or -1
 * after naming the first missing number, how many are missing and what the file holds. An MCH
 * file is counted through mcz_source_get (its offsets, once found, are kept). */
int mcs_list_check_held(mcs_input *in, const mcz_list *list);

/* mcs_input_next restricted to the numbers of list (all of them when list is empty); ends
 * after the last listed number without reading further. 1, 0 at the end, -1 (printed). */
int mcs_input_next_listed(mcs_input *in, const mcz_list *list, mcz_mc *mc);


/* The options of -copy and -strip: -thin and the compression options (their usages' table). */
typedef struct mcs_list_verb_args {
    bool thin;
    mcs_compress_args compress;
} mcs_list_verb_args;
extern const mcs_option mcs_list_verb_options[];

/* Arguments of "-VERB RANGE IN OUT [-thin] [compression options]" (-copy, -strip): RANGE, IN
 * and OUT in pos, the list, a builder for re-serializing when -thin is given (NULL otherwise;
 * free it with mcz_mc_builder_free), and the compression options into opt
 * (mcs_compress_parse). Returns MCS_EXIT_OK, or the exit code after printing the error. */
int mcs_parse_list_verb(mcs_run *run, int argc, char **argv, const mcs_usage *u, const char *pos[3],
                        mcz_list *list, mcz_mc_builder **thin, mcz_writer_options *opt);

/*
 * Opens path and calls fn for each listed context (every one when list is empty), deep-checked,
 * in number order, showing progress as `what`, until fn fails or stdout does. *count (may be
 * NULL) receives how many contexts fn took. Returns 0, or -1 after printing the error. fn gets
 * the input too, for its JIT-EE version (mcs_input_jit_ee).
 */
typedef int (*mcs_context_fn)(void *arg, mcs_input *in, const mcz_mc *mc);
int mcs_for_each_context(mcs_run *run, const char *path, const mcz_list *list, const char *what,
                         mcs_context_fn fn, void *arg, uint64_t *count);
/* The same, each context strict-checked as -integ checks it (tool_check_context; unknown
 * packet ids pass): for verbs that read values out of the maps, so that damage the framing
 * does not show (a flipped id, a pool index off its chunk, unsorted keys) is an error naming
 * the context rather than a placeholder in the output. */
int mcs_for_each_sound_context(mcs_run *run, const char *path, const mcz_list *list,
                               const char *what, mcs_context_fn fn, void *arg, uint64_t *count);

/* The deep check SuperPMI's parse amounts to, on a context of in: 0, or -1 after reporting
 * the damage (naming the context, and its offset when it is one in the file). */
int mcs_input_check_context(const mcs_input *in, const mcz_mc *mc);

/* mcs_input_next_listed, then the deep check SuperPMI's parse amounts to (a damaged context
 * is reported, naming its number and offset, and ends the walk with -1). */
int mcs_input_next_checked(mcs_input *in, const mcz_list *list, mcz_mc *mc);

/* A text output that appears atomically: a stdio stream over an mcz_outfile. */
typedef struct mcs_text_out {
    mcs_run *run; /* for its messages */
    const char *path;
    mcz_outfile *file;
    FILE *stream;
} mcs_text_out;

/* Returns 0, or -1 after printing the error. */
int mcs_text_open(mcs_run *run, mcs_text_out *t, const char *path);
/* Puts the file in place (0), or reports the first write error (-1), leaving nothing. */
int mcs_text_commit(mcs_text_out *t);
void mcs_text_abort(mcs_text_out *t);

#endif /* MCS_CONTEXT_H */
