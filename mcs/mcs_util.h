/*
 * mcs_util.h - what every mcs verb needs: messages in one shape (mcs_message.c), option parsing
 * (mcs_options.c), numbers, ranges, compression options and the stdout check (mcs_util.c);
 * opening inputs (.mch or .mcz through mcz_source) and creating outputs that appear atomically
 * (mcs_io.c); the run's state (mcs_run.h). Uses the public headers only.
 */
#ifndef MCS_UTIL_H
#define MCS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcs_run.h"
#include "tool.h"

#if defined(__GNUC__)
#define MCS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MCS_PRINTF(f, a)
#endif

/* Exit codes. SuperPMI's mcs returns -1 (255) for every failure; mcz tells usage errors apart. */
enum { MCS_EXIT_OK = 0, MCS_EXIT_FAIL = 1, MCS_EXIT_USAGE = 2 };

typedef struct mcs_option mcs_option;

/* A verb's help: "-copy RANGE IN OUT", a one-line summary, optional detail lines, and its
 * options (their table: the parser reads it, and the help lists those with help, after the
 * details, and adds them to the synopsis). An option is written in its entry only: the
 * synopsis holds the operands, the details tell about the verb. */
typedef struct mcs_usage {
    const char *synopsis;       /* the verb and its operands */
    const char *summary;
    const char *details;        /* NULL or text ending in a newline */
    const mcs_option *options; /* ends with a NULL name; NULL: none */
} mcs_usage;

/* ---- Messages (mcs_message.c: at the bottom, calls nothing of mcs above it) ---- */

/* Applies a SuperPMI verbosity string (e w n v d a q ...); false when it holds an unknown
 * letter. Without it everything but debug is shown. */
bool mcs_set_verbosity(const char *chars);

/* "FILE: context N at offset X: message" from a diag (parts that do not apply left out, and
 * the offset unless it lies inside FILE: a regular file, or an input whose length
 * mcs_note_input gave, a stream's or a URL's) into buf; returns buf. */
#define MCS_DIAG_TEXT_SIZE 4608 /* a path, the where, and a diag message */
const char *mcs_diag_text(const mcs_run *run, const char *file, const mcz_diag *d, char *buf,
                          size_t cap);
/* "mcs: " and that text, on stderr. */
void mcs_error_diag(const mcs_run *run, const char *file, const mcz_diag *d);
/* The length of the input messages name `name` (read whole: a stream's is what was read), for
 * mcs_diag_text to tell offsets in it from offsets taken from damaged bytes (a regular file's
 * is taken from the file). The last MCS_NOTED_INPUTS names are kept (copied). */
void mcs_note_input(mcs_run *run, const char *name, uint64_t size);

/* ---- Arguments ---- */

/* How an option's value is read, and what its field in the verb's arguments is. */
typedef enum mcs_option_type {
    MCS_OPT_FLAG,  /* no value: a bool, set when the option is given */
    MCS_OPT_VALUE, /* a const char *: the value as typed */
    MCS_OPT_COUNT, /* a uint64_t: a decimal count in [min, max] (0 when not given) */
    MCS_OPT_SIZE   /* a uint64_t: as COUNT, with an optional K, M or G (powers of 1024) */
} mcs_option_type;

/*
 * An option a verb takes (mcs_options.c), an entry of its table: name is "--long" or "-x",
 * written in help and messages so, or the canonical name of a SuperPMI switch ("thin"). Any of
 * them is accepted with one or two dashes, whole and in any case; a SuperPMI switch also by a
 * single-dash prefix in SuperPMI's order, when the argument is no option's whole name. Options
 * other than flags take a value, after '=' or as the next argument. Its parsing, its help and
 * the names did-you-mean offers all come from this entry.
 */
struct mcs_option {
    const char *name;
    mcs_option_type type;
    size_t offset;    /* of its field in the verb's arguments (MCS_FIELD) */
    const char *arg;  /* its value as the help names it ("SIZE"); NULL for a flag */
    uint64_t min, max; /* COUNT, SIZE */
    const char *help; /* its lines ('\n' between them); NULL: hidden (another name of a listed
                       * option; tests/unit/test_mcs_options.c names each one hidden) */
};

#define MCS_FIELD(args_type, field) .offset = offsetof(args_type, field)
#define MCS_OPTIONS_END {.name = NULL}

/*
 * Parses a verb's arguments (argv[0] is the verb itself), in any order: options from
 * u->options, stored into the fields of args their entries name (args may be NULL when there
 * are none), and those every verb takes (-verbosity, --jit-ee, --force), applied as they are
 * met; everything else positional into pos. Returns the
 * number of positionals, or -1 after printing a usage error (an unknown option is answered with
 * the nearest known one) when an option is unknown or the count is not within
 * [min_pos, max_pos]. A single-dash abbreviation is resolved against the switch table the run
 * holds (mcs_run.h).
 */
int mcs_parse_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, void *args,
                   const char **pos, int min_pos, int max_pos);

/* Applies an option every verb takes, by its table name ("verbosity"), as mcs.c does for those
 * given before the verb. Returns 0, or -1 after a usage error (u may be NULL there). */
int mcs_apply_global(mcs_run *run, const mcs_usage *u, const char *canonical, const char *value);

/* The nearest of the names offered to a mistyped one (the name of "--chunkz=3" is "chunkz"),
 * when it is near enough to be meant: a few letters apart, or the beginning of a longer name. */
typedef struct mcs_nearest {
    const char *typed;
    size_t len;
    size_t distance;
    const char *best; /* NULL: none near */
} mcs_nearest;
void mcs_nearest_init(mcs_nearest *n, const char *arg);
void mcs_nearest_offer(mcs_nearest *n, const char *candidate);
/* A table name as written in messages: "--level" and "-j" as they are, "thin" as "-thin". */
void mcs_option_display(const char *name, char *buf, size_t cap);

/* Prints "mcs: -VERB: MESSAGE", the verb's usage line and where its help is, on stderr (u NULL:
 * before any verb, mcs --help); returns MCS_EXIT_USAGE. */
int mcs_usage_error(const mcs_usage *u, const char *fmt, ...) MCS_PRINTF(2, 3);

/* The help of the options every verb takes, from their table (mcs_options.c), on f. */
void mcs_print_common_help(FILE *f);
/* The i-th option every verb takes: its table name, and in *help its help (NULL: not listed);
 * NULL past the last. */
const char *mcs_global_option_at(size_t i, const char **help);

/* Prints a verb's full help on f: its usage, its options, then the options every verb takes. */
void mcs_print_usage(FILE *f, const mcs_usage *u);
/* Whether u's help lists options of its table (and its synopsis names them; mcs_message.c). */
bool mcs_usage_lists_options(const mcs_usage *u);

/*
 * Parses a decimal count for option `name`, with an optional K, M or G suffix (powers of 1024)
 * when allow_suffix, within [min, max]. Returns 0, or -1 after printing a usage error.
 */
int mcs_parse_number(const mcs_usage *u, const char *name, const char *text, bool allow_suffix,
                     uint64_t min, uint64_t max, uint64_t *out);

/* A range list or .mcl path (mcz_list_from_arg). Returns MCS_EXIT_OK, or after printing the
 * error MCS_EXIT_USAGE (bad range syntax) or MCS_EXIT_FAIL (an unreadable or bad .mcl file). */
int mcs_parse_list(mcs_run *run, const char *arg, mcz_list *out);

/* The compression options of the verbs that write archives (-convert, and -copy, -strip and
 * -merge into an archive), as typed: MCS_COMPRESS_OPTIONS(&a) in a verb's option table,
 * MCS_COMPRESS_HELP in its help, mcs_compress_parse to turn them into writer options. */
typedef struct mcs_compress_args {
    const char *level, *chunk_size, *codec, *preset, *layout;
    bool no_dict, no_hashes;
    const char *jit_ee_guid, *target_os, *target_arch; /* what the archive records */
} mcs_compress_args;

#define MCS_LEVEL_MAX 22
#define MCS_XZ_LEVEL_MAX 9
#define MCS_CHUNK_SIZE_MAX (1u << 30) /* the writer's limit */

/* The compression options, one entry each: X(T, M, TYPE, NAME, FIELD, ARG, HELP), TYPE VALUE
 * (a string into the field) or FLAG (a bool), ARG the value's name in the help, HELP its lines;
 * T and M are passed through (a verb's arguments and its mcs_compress_args member in them); S()
 * between entries. In the help's order. */
#define MCS_COMPRESS_LIST(X, S, T, M)                                                              \
    X(T, M, VALUE, "--preset", preset, "NAME",                                                      \
      "fast, default or cold (README.md \"Presets\"): the codec, level,\n"                      \
      "chunk size and hashes chosen from the bench figures; options\n"                         \
      "given beside it win")                                                                    \
    S() X(T, M, VALUE, "--codec", codec, "zstd|xz",                                                 \
      "chunk codec: zstd (default; fast to read) or xz (cold storage:\n"                        \
      "smaller, slower; no dictionary)")                                                        \
    S() X(T, M, VALUE, "--level", level, "N", "zstd level (1-22), or xz level (1-9, default 9)")     \
    S() X(T, M, VALUE, "--chunk-size", chunk_size, "SIZE",                                          \
      "uncompressed bytes per chunk, e.g. 1M (K, M or G: powers of 1024)")                      \
    S() X(T, M, FLAG, "--no-dict", no_dict, NULL, "compress without a dictionary")                  \
    S() X(T, M, VALUE, "--layout", layout, "L",                                                     \
      "packets (default: each packet id's keys, values and pools\n"                             \
      "grouped before compression, ~9% smaller) or plain (the contexts'\n"                      \
      "bytes as they are: chunks the zstd tool alone turns into an MCH)")                       \
    S() X(T, M, FLAG, "--no-hashes", no_hashes, NULL,                                               \
      "store no identity hashes or dedup keys in the index: the smallest\n"                     \
      "archive (32 bytes less per context); -toc, -removeDup and -merge\n"                      \
      "-dedup then decode the chunks to compute them")                                          \
    S() X(T, M, VALUE, "--jit-ee-guid", jit_ee_guid, "GUID",                                        \
      "record the JIT-EE version GUID the collection is for (its\n"                             \
      "runtime's JITEEVersionIdentifier; -printJITEEVersion prints\n"                           \
      "it); default: the one the archive inputs record")                                        \
    S() X(T, M, VALUE, "--target-os", target_os, "OS",                                              \
      "record the target's system (e.g. linux) likewise")                                       \
    S() X(T, M, VALUE, "--target-arch", target_arch, "ARCH",                                        \
      "record the target's architecture (e.g. x64) likewise")

/* The list as entries of a verb's option table: type is the verb's arguments, member its
 * mcs_compress_args in them. */
#define MCS_COMPRESS_ENTRY(args_type, member, kind, opt_name, field, value_name, text)           \
    {.name = opt_name, .type = MCS_OPT_##kind, .offset = offsetof(args_type, member.field),      \
     .arg = value_name, .help = text}
#define MCS_COMPRESS_COMMA() ,
#define MCS_COMPRESS_OPTIONS(args_type, member)                                                  \
    MCS_COMPRESS_LIST(MCS_COMPRESS_ENTRY, MCS_COMPRESS_COMMA, args_type, member)

/* What an archive OUT of a copying verb is, for its help. */
#define MCS_COMPRESS_INHERIT_HELP                                                          \
    "An archive OUT takes the settings of the first archive read (its codec, layout, level,\n" \
    "chunk size, dictionary or none, hashes or none) where these options leave them open; when an MCH\n"   \
    "file comes first, the library's defaults. A chunk is copied without recompressing it\n"  \
    "when OUT has its codec, layout, dictionary, level and chunk size. The JIT-EE GUID and\n" \
    "target the archives read record are recorded in OUT; archives that record different\n" \
    "ones (or one and none) are a conflict, an error unless the options give the value.\n"

/* Sets opt's codec, layout, level, chunk_size, no_dict, no_hashes and the record (--jit-ee-guid,
 * --target-os, --target-arch: checked, left as typed) from a (those not given stay as they
 * are). When any is given and out is not NULL, out must name an archive (.mcz). Returns 0, or
 * -1 after printing a usage error. */
int mcs_compress_parse(const mcs_usage *u, const mcs_compress_args *a, const char *out,
                       mcz_writer_options *opt);

/* True when path ends in ext (".mcz"), compared case-insensitively. */
bool mcs_has_extension(const char *path, const char *ext);

/* ---- Inputs ---- */

/* An opened collection: an MCH file or an archive, read through mcz_source. */
typedef struct mcs_input {
    mcs_run *run; /* the run it was opened in (--jit-ee, messages' lengths of streams) */
    const char *path;
    mcz_source *source;
    const mcz_reader *archive; /* NULL for an MCH file */
    uint64_t contexts;         /* contexts held; 0 when unknown until read (MCH) */
    uint64_t raw_bytes;        /* size of the equivalent MCH file */
    uint64_t read_bytes;       /* sum of the sizes of the contexts returned so far */
    const mcz_jit_ee *jit_ee;  /* the version its packets are read as (never NULL once open) */
    const char *jit_ee_how;    /* how it was chosen: "given", "recorded", "detected", "newest" */
    mcz_input *held;           /* the bytes, when mcs_input_open opened them (mcs_input_rewind) */
} mcs_input;

/* The version in's packets are read as: --jit-ee's, else the one its archive records, else
 * the one its first contexts (at most MCZ_JIT_EE_DETECT_CONTEXTS of them, or
 * MCZ_JIT_EE_DETECT_BYTES) fit, else (warned when the input is opened) the newest. */
const mcz_jit_ee *mcs_input_jit_ee(const mcs_input *in);
/* The version a collection at path is read as (and an archive output hashes with): --jit-ee's,
 * else found (what it records or its packets voted for, NULL: undecided), else the newest,
 * warned about when voted contexts could not decide; *how as mcs_input.jit_ee_how. */
const mcz_jit_ee *mcs_jit_ee_decide(mcs_run *run, const char *path, const mcz_jit_ee *found,
                                    uint32_t voted, const char **how);
/* True when in is an archive whose stored identity hashes and dedup keys were computed with
 * the version in is read as (otherwise they are computed from the contexts). */
bool mcs_input_hashes_usable(const mcs_input *in);

/* What an archive records about its collection (FORMAT.md §2a), canonical; "" when not. */
typedef struct mcs_record {
    char guid[MCZ_GUID_TEXT_SIZE];
    char os[MCZ_TARGET_TEXT_SIZE];
    char arch[MCZ_TARGET_TEXT_SIZE];
} mcs_record;
/* in's record: an archive's, empty for an MCH file. */
void mcs_input_record(const mcs_input *in, mcs_record *out);

/* Refuses an input with nothing to read (an empty regular file, /dev/null) as every verb
 * does: 0, or -1 after printing "PATH: empty file: no method contexts". mcs_input_open applies
 * it; a verb reading its input otherwise (-dumpToc's .mct, -recover) calls it first. */
int mcs_input_refuse_empty(const char *path);
/* Opens path (an empty input is refused). "-" (standard input) and other streams are spooled
 * to a temporary file first, which is gone once open; messages then name "standard input".
 * Returns 0, or -1 after printing the error. */
int mcs_input_open(mcs_run *run, mcs_input *in, const char *path);
/* mcs_input_open of path's input, opened already (a stream read once; NULL: open path). */
int mcs_input_open_input(mcs_run *run, mcs_input *in, const char *path, mcz_input *input);
void mcs_input_close(mcs_input *in);
/* Makes mcs_input_next start again at the first context (a stream is read from its spool, not
 * again), keeping the version chosen at open; an archive, read by position, is left as it is.
 * Returns 0, or -1 after printing the error. */
int mcs_input_rewind(mcs_input *in);
/* Reports a problem found inside context mc of in (a deep check, an identity): names the
 * context, and the offset only when it is one in the file (an archive's contexts have
 * offsets in the equivalent MCH file, not in the archive). */
void mcs_input_context_error(const mcs_input *in, const mcz_mc *mc, mcz_diag *d);
/* Reports that context `number` of in's archive could not be read (decoded): d's detail, whose
 * offset, if any, is in the archive file, else rc. Returns -1. */
int mcs_input_read_failed(const mcs_input *in, uint32_t number, int rc, mcz_diag *d);
/* For verbs whose only argument is their input: parses argv and opens it. Returns
 * MCS_EXIT_OK with in open, or the exit code after printing the error. */
int mcs_input_from_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, mcs_input *in);
/* Context `number` (mcz_source_get, d filled on error, nothing printed). When an MCH file's
 * .mct turns out not to match it, warns once, naming the .mct and why (the file is then read
 * by scanning). */
int mcs_input_get(const mcs_input *in, uint32_t number, mcz_mc *mc, mcz_diag *d);
/* Next context in number order: 1 with *mc filled, 0 at the end, -1 after printing the error. */
int mcs_input_next(mcs_input *in, mcz_mc *mc);
/* The identity with names of mc as the archive writer stores it and -toc writes it: the zero
 * hash when it cannot be built (MCZ_OK, d saying why). Only running out of memory is an error. */
int mcs_identity_as_stored(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *h, mcz_diag *d);
/* The .mct entry of the context at `position` (0 .. contexts-1) of an archive, from its index
 * alone: its offset in the equivalent MCH file, its number, its stored identity hash (empty
 * when it has none). An archive that stores no hashes has the context decoded (through in's
 * source) and its identity computed as the writer would store it. Returns 0, or -1 after
 * printing the error. */
int mcs_input_toc_entry(const mcs_input *in, uint64_t position, mcz_toc_entry *e);

/* ---- Outputs ---- */

typedef enum mcs_output_kind {
    MCS_OUTPUT_BY_EXTENSION, /* .mcz: an archive; anything else: MCH */
    MCS_OUTPUT_MCH,
    MCS_OUTPUT_MCZ
} mcs_output_kind;

/* A collection being written: nothing appears at its path before mcs_output_commit succeeds. */
typedef struct mcs_output mcs_output;

/* The check alone, for outputs opened late or written otherwise: not a directory, nor an
 * input, in a writable directory (tool_output_check); "-" is standard output, and mcs's own
 * messages then go to stderr. Returns 0, or -1 after printing the reason. */
int mcs_output_check(const char *path);
/* mcs_output_check, and standard output on a terminal refused unless --force was given: for
 * the outputs that are collections (binary). */
int mcs_output_check_binary(mcs_run *run, const char *path);
/* Reports d about output file_name (as given; display: its name in messages), quietly when it
 * is standard output and its reader is gone: then it sets run->reader_gone instead, and mcs
 * exits 0, as for text output. */
void mcs_output_error(mcs_run *run, const char *file_name, const char *display, mcz_diag *d);
/* Checks path as mcs_output_check_binary does, before any work. opt (NULL: none) gives an archive's
 * settings; those it leaves at zero are the library's defaults, or with inherit those of the
 * first archive input offered with mcs_output_offer_settings() before any context is put (its
 * level and chunk size, its dictionary or none, whether it stores hashes), else the library's
 * defaults with a dictionary trained on the contexts. Returns NULL after printing the error. */
mcs_output *mcs_output_open(mcs_run *run, const char *path, mcs_output_kind kind,
                            const mcz_writer_options *opt, bool inherit);
/* Offers in's settings to an archive output that inherits and has not started yet, and
 * checks what in records (JIT-EE GUID, target) against what the output records: the first
 * archive offered gives the values the options leave open; a later one recording others is a
 * conflict. Nothing happens for an MCH input or output. Returns 0, or -1 after printing the
 * error. */
int mcs_output_offer_settings(mcs_output *o, const mcs_input *in);
/* True when chunks of archive in go to o as they are: o is an archive using in's dictionary
 * (or both have none), its level and its chunk size. */
bool mcs_output_copies_chunks_of(const mcs_output *o, const mcs_input *in);
/* Appends one serialized context. Returns 0, or -1 after printing the error. */
int mcs_output_put(mcs_output *o, const mcz_mc *mc);
/* Appends chunk `index` of in's archive whole, its compressed bytes copied as they are
 * (mcs_output_copies_chunks_of should hold; verbatim is required). Returns 0 with *verbatim true when copied; 0 with
 * *verbatim false when nothing was appended (the chunk names another dictionary: the caller
 * appends its contexts instead); -1 after printing the error (naming in when its chunk is at
 * fault). */
int mcs_output_put_chunk(mcs_output *o, const mcs_input *in, uint64_t index, bool *verbatim);
/* Puts the file in place and frees o. Returns 0, or -1 after printing the error. An archive's
 * index is made here (the writer's largest buffers: bench/FIGURES.md §13): a verb closes its
 * inputs first, so that their readers' streams are not held beside it. */
int mcs_output_commit(mcs_output *o);
/* Discards everything written and frees o (accepts NULL). */
void mcs_output_abort(mcs_output *o);


/* Size of the file at path, or 0 when it cannot be read. */
uint64_t mcs_file_size(const char *path);

/* ---- stdout ---- */

/* True once writing to stdout failed (a closed pipe, a full disk): a verb may stop early. */
bool mcs_stdout_failed(void);

/* Flushes and closes stdout. Returns 0, also for a closed pipe (a reader that stopped
 * early is not an error), or -1 after reporting a write error. */
int mcs_close_stdout(void);

#endif /* MCS_UTIL_H */
