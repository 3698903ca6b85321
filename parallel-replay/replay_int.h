/*
 * replay_int.h - internal interfaces of mcz-replay (parallel-replay/). Uses the public mcz.h only.
 *
 * The pieces: replay_plan.c turns a collection into work units (archive chunks, or runs of about
 * 1 MiB of contexts of an MCH file); replay_proc_run is the one process module (workers, pipes,
 * rings, timeouts, crashes, signals: replay_ring.c, replay_record.c, replay_sched.c,
 * replay_pool.c and replay_proc.c on the platform's workers, see replay_proc.h);
 * replay_worker.c is what a worker does with a unit; the replayers are
 * replay_verify.c, replay_plugin.c and replay_exec.c; replay_table.c accounts results (spilled
 * as sorted runs, never held whole) and replay_results.c writes every output from a merge of
 * them; replay_options.c reads the command line (its option table), replay_main.c runs it.
 */
#ifndef MCZ_REPLAY_INT_H
#define MCZ_REPLAY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcz_replay.h"
#include "program.h"
#include "tool.h"
#include "worker.h"

/* SuperPMI's exit codes (superpmi.h SpmiResult; -1 and -2 as a Unix shell sees them). */
enum {
    REPLAY_EXIT_SUCCESS = 0,
    REPLAY_EXIT_ERROR = 1,          /* some contexts failed */
    REPLAY_EXIT_DIFFS = 2,          /* asm diffs: no failures, some contexts' code differs */
    REPLAY_EXIT_MISSING = 3,        /* no failures, some contexts lacked data */
    REPLAY_EXIT_GENERAL = 255,      /* bad arguments, unreadable or damaged collection */
    REPLAY_EXIT_INIT_FAILED = 254   /* the replayer failed to initialize */
};

/* What happened to one selected context: X(enum, name in outputs). */
#define REPLAY_KIND_LIST(X)             \
    X(REPLAY_NONE, "none")              \
    X(REPLAY_SUCCESS, "success")        \
    X(REPLAY_FAILURE, "failure")        \
    X(REPLAY_MISSING, "missing")        \
    X(REPLAY_CRASH, "crash")            \
    X(REPLAY_TIMEOUT, "timeout")        \
    X(REPLAY_ERROR, "error")            \
    X(REPLAY_EXCLUDED, "excluded")      \
    X(REPLAY_DIFF, "diff")

typedef enum replay_kind {
#define REPLAY_X_ENUM(name, text) name,
    REPLAY_KIND_LIST(REPLAY_X_ENUM)
#undef REPLAY_X_ENUM
    REPLAY_KIND_COUNT
} replay_kind;

/* printf-style checks as the library's (on Windows, mingw's C99 printf, not msvcrt's) */
#define REPLAY_PRINTF(f, a) TOOL_PRINTF(f, a)


/* A decimal count in [min, max] (no sign, no suffix), as command lines and results files
 * write them. */
bool replay_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Makes room for element `count` of the malloc'ed array *array (of *cap elements, each
 * elem_size bytes), doubling it when full; MCZ_ENOMEM leaves the array as it was. */
int replay_grow(void *array, size_t *cap, size_t count, size_t elem_size);

/* Seconds on the monotonic clock. */

const char *replay_kind_name(int kind);
/* The kind named `name` (outputs' spelling), or -1. */
int replay_kind_parse(const char *name);

#define REPLAY_MESSAGE_MAX 512 /* bytes of one context's message, NUL included */

/* ---- Plan: the collection cut into work units ---------------------------------------------- */

/* A run of consecutive contexts decoded together: one archive chunk, or a run of an MCH file. */
typedef struct replay_unit {
    uint32_t first;        /* number of its first context */
    uint32_t count;        /* contexts in the unit */
    uint32_t selected;     /* of those, how many the selection (-c) keeps */
    uint64_t chunk;        /* archive: index of its first chunk (--exec groups several) */
    uint64_t chunks;       /* archive: chunks from that one on that the unit spans */
    uint64_t offset;       /* MCH: file offset of the first context */
    uint64_t raw_bytes;    /* uncompressed bytes of the whole unit */
    uint64_t stored_bytes; /* bytes read from the file to get them */
} replay_unit;

typedef struct replay_plan {
    const char *path;      /* the collection read (for an .mct named as input: its .mch) */
    const char *shown;     /* its name in messages (path) */
    mcz_input *input;      /* path opened once (a stream read once): the parent plans from it
                            * and the forked workers read it, the source being theirs too */
    char *toc_input;       /* an .mct named as input, with its .mch found beside it; else NULL */
    char *mch_owned;       /* that .mch's name (path points to it) */
    bool archive;          /* .mcz; else MCH */
    uint32_t first_number; /* numbers held: first_number .. first_number + contexts - 1 */
    uint64_t contexts;
    uint64_t raw_bytes;
    bool selective;        /* -c given (or --match-hash narrowed the contexts) */
    const char *match_hash; /* --match-hash: 32 hex digits, or NULL */
    mcz_list selection;
    replay_unit *units;    /* the units this run replays (after --shard) */
    size_t unit_count;
    uint64_t selected;     /* selected contexts in those units */
    char fingerprint[160]; /* the whole plan (before --shard), for --merge-results */
    uint64_t plan_selected; /* selected contexts in the whole plan (before --shard) */
    uint32_t shard_k, shard_n; /* 1/1 unless --shard */
    mcz_toc_entry *toc;    /* MCH with a usable .mct: its entries (number i at index i-1) */
    uint32_t toc_count;
    char (*excluded)[33];  /* sorted identity hashes from the .exc file */
    size_t excluded_count;
    const mcz_jit_ee *jit_ee;        /* the version contexts are read as (never NULL) */
    const mcz_jit_ee *stored_jit_ee; /* the version the stored identities were computed with:
                                      * an archive's (mcz_reader_hash_jit_ee), else jit_ee */
    /* Each context's size (number first_number + i at index i), which only --shard weighs: kept
     * when keep_sizes is set between replay_plan_open and replay_plan_build, else none (4 bytes a
     * context, 10 MB at 2.5 M, that a run without --shard does not hold). */
    bool keep_sizes;
    uint32_t *sizes;
    size_t sizes_count, sizes_cap;
} replay_plan;

/* Opens the collection at path once, as an input (for an .mct named as input: the .mch beside
 * it) whose size the caller may look at before replay_plan_build: MCZ_OK, or diag names it. The
 * plan must be freed either way. */
int replay_plan_open(replay_plan *p, const char *path, mcz_diag *diag);
/* Plans the collection replay_plan_open opened: reads -c (select_arg, or
 * NULL for everything), the .mct of an MCH file and the .exc file, and cuts units. MCH runs end
 * once they hold unit_bytes; an archive's units are its chunks, consecutive ones grouped until
 * they hold group_bytes (0: one each), but never so large that fewer than min_units units
 * would hold the archive. Warnings go to stderr; on failure diag's message is
 * whole: it names the file (or -c) and, for an MCH file, the context and offset. An empty file
 * fails. match_hash (superpmi's -m): only contexts whose stored identity it is, when the
 * collection stores identities (archive index, .mct). The JIT-EE version is forced (--jit-ee), else the archive's, else detected from the
 * first contexts, else (with a warning) the newest. */
int replay_plan_build(replay_plan *p, const char *select_arg, const char *match_hash,
                      uint64_t unit_bytes, uint64_t group_bytes, uint32_t min_units,
                      const mcz_jit_ee *forced, mcz_diag *diag);
void replay_plan_free(replay_plan *p);
/* Keeps only shard k (1-based) of n: a contiguous run of context numbers, near-equal in
 * selected bytes, computed from the contexts' numbers and sizes alone, so an .mch and its .mcz
 * are cut alike; the selection becomes the shard's part of it, and only units holding some of
 * it stay (a unit across a boundary is read by both shards, each replaying its own contexts). */
int replay_plan_shard(replay_plan *p, uint32_t k, uint32_t n, mcz_diag *diag);
/* An archive read over HTTP: joins adjacent units into units of about the stored bytes over
 * `workers` (each worker one at least), never more than MCZ_HTTP_REQUEST_MAX, so that a worker
 * fetches each unit in one request (replay_worker prefetches it whole): a round trip per chunk
 * costs more than the balance finer units give, and a large collection still has many units
 * of at most 4 MiB. */
void replay_plan_group_remote(replay_plan *p, uint32_t workers);

/* Every worker filters the same way: the selection, and in stride mode every n-th context. */
typedef struct replay_filter {
    uint32_t stride; /* 0: no striding */
    uint32_t slot;   /* keep numbers with (number - first_number) % stride == slot */
} replay_filter;

bool replay_plan_wants(const replay_plan *p, replay_filter f, uint32_t number);
/* True when the identity (32 hex digits) is listed in the .exc file. */
bool replay_plan_excluded(const replay_plan *p, const char *hex);

/* ---- Replayers --------------------------------------------------------------------------------- */

typedef enum replay_mode { REPLAY_MODE_VERIFY, REPLAY_MODE_PLUGIN, REPLAY_MODE_EXEC } replay_mode;

/* Which columns --details has: mcz-replay's own replayers (superpmi's replay columns, then the
 * kind and the message), or superpmi's own, replay or asm diffs, as the --exec units wrote
 * them. */
typedef enum replay_style {
    REPLAY_STYLE_MCZ,
    REPLAY_STYLE_SPMI_REPLAY,
    REPLAY_STYLE_SPMI_DIFFS,
    REPLAY_STYLE_VERIFY /* the verify replayer: mcz's columns, a summary that says "Verified" */
} replay_style;

typedef struct replay_config {
    replay_mode mode;
    replay_style style;   /* exec: superpmi's replay or asm diffs (-a in the command) */
    const replay_plan *plan;
    const mcz_replay_plugin_desc *plugin; /* loaded by the parent before forking */
    const char *plugin_arg;
    char **exec_argv;     /* the --exec command split into words, NULL-terminated */
    bool exec_original;   /* MCH: pass the original file with -c instead of a unit file */
    bool exec_toc;        /* give each unit an .mct of global numbers and -c them */
    bool exec_overlap;    /* a worker may start its next command while one runs (-j > 1: with
                           * one worker, one command at a time, as superpmi without -p) */
    const char *temp_dir; /* a directory the parent owns and removes (exec, plugin) */
    const char *repro;    /* exec: write PREFIX-N.mc for each context that failed (-r) */
    bool strict;          /* verify: an unknown packet id fails the context */
} replay_config;

/* What the collection says a context's identity is. */
typedef struct replay_identity {
    bool known;   /* a stored hash exists (archive index or .mct) */
    char hex[33]; /* 32 hex digits; "" for "no identity" */
} replay_identity;

/* verify: mcs -integ's check (tool_check_context; strict as --strict), identity recomputed and
 * compared with the stored one. Returns a kind. A context that passes with packet ids the
 * table does not know gets the message REPLAY_UNKNOWN_NOTE "unknown(N), ...", which the
 * parent counts (replay_table_report). */
#define REPLAY_UNKNOWN_NOTE "packets not in the packet table: "
int replay_verify_context(const replay_plan *p, const mcz_mc *mc, const replay_identity *stored,
                          bool strict, char *msg, size_t cap);

/* Loads a plugin (dlopen) and checks its ABI. */
int replay_plugin_load(const char *path, const mcz_replay_plugin_desc **out, char *msg,
                       size_t cap);
/* One context through a version 2 plugin's replay_diff(): its asm-diffs details row
 * (replay_row_*) in row, a message in msg; returns its kind. */
int replay_plugin_diff(const mcz_replay_plugin_desc *p, void *state, const mcz_mc *mc,
                       char *row, size_t row_cap, bool *miss, char *msg, size_t cap);
/* One context through the plugin; returns a kind. */
int replay_plugin_context(const mcz_replay_plugin_desc *p, void *state, const mcz_mc *mc,
                          char *msg, size_t cap);

/* ---- Worker side -------------------------------------------------------------------------------- */

/* The worker's end of its channel to the parent: a shared record ring and a wake-up pipe
 * (replay_proc.c). */
typedef struct replay_chan replay_chan;

/* Announces the context about to be replayed (the parent blames it if the worker dies or runs
 * past the timeout); whole_unit: the announcement covers every context of the unit not yet
 * reported (an --exec command). */
int replay_chan_start(replay_chan *ch, uint32_t number, uint32_t size, bool whole_unit);
int replay_chan_result(replay_chan *ch, uint32_t number, int kind, uint32_t size, const char *msg);
/* The same, the context's details rows (replay_row.c) in place of a message, written under
 * the header (one CSV record, without a line end) given. */
int replay_chan_rows(replay_chan *ch, uint32_t number, int kind, bool miss, uint32_t size,
                     const char *header, const char *rows);
/* The replayer cannot work (a plugin's init() failed, an --exec command cannot start): tells the
 * parent, which stops the run with superpmi's "JIT failed to initialize" code, and ends this
 * worker. */
_Noreturn void replay_chan_fatal(replay_chan *ch, const char *msg);
/* A failure of mcz-replay's own while replaying a unit (a temporary file that cannot be
 * written, a replayer that cannot start, is killed from outside or accounts for fewer
 * contexts than it was given): msg names the errno and the path. The parent stops the run
 * with superpmi's general error (255); the unit's contexts are counted as not replayed, never
 * as failures. Ends this worker. */
#define REPLAY_FATAL_BROKEN 1 /* the FATAL record's kind for it (0: init failed) */
_Noreturn void replay_chan_broken(replay_chan *ch, const char *msg);

typedef struct replay_stats {
    uint64_t units;         /* units worked on */
    uint64_t contexts;      /* contexts replayed (results sent) */
    uint64_t bytes_read;    /* bytes of the collection file read (compressed for an archive) */
    uint64_t bytes_decoded; /* bytes decompressed */
    /* --exec: the commands that ran alone (none of the worker's others in flight), the only
     * ones whose wall time tells a start from a context's cost (replay_span.c) */
    uint64_t alone_contexts;
    double alone_seconds;
} replay_stats;

typedef struct replay_worker replay_worker;

/* In a freshly forked worker: opens the collection and initializes the replayer. */
int replay_worker_open(const replay_config *cfg, replay_worker **out, char *msg, size_t cap);
/* --exec: tells the next request when it has come already (1: *u, *resume, *f filled, and the
 * request is the caller's next; 0: not yet). The worker then reads and writes that unit
 * while the command of the current one runs. */
typedef int (*replay_worker_peek)(void *arg, replay_unit *u, uint32_t *resume, replay_filter *f);
void replay_worker_set_peek(replay_worker *w, replay_worker_peek peek, void *arg);
/* Replays the wanted contexts of unit u numbered >= resume, reporting each through ch. */
int replay_worker_unit(replay_worker *w, const replay_unit *u, uint32_t resume, replay_filter f,
                       replay_chan *ch);
void replay_worker_close(replay_worker *w, replay_stats *stats);
/* Its figures so far. */
void replay_worker_stats(const replay_worker *w, replay_stats *stats);

/* --exec: the unit's file, written while the worker walks the unit (replay_exec_file_add each
 * context, straight from the decoded chunk), then handed to replay_exec_unit. A write that
 * fails is remembered and stops the run there, naming the file and the errno. */
typedef struct replay_exec_file {
    FILE *f;          /* NULL: none (--exec-original), or it could not be opened (err) */
    int err;          /* errno of the first failure; 0 */
    bool lead;        /* it starts with the lead of a file read through its table */
    uint64_t size;    /* bytes written */
    char path[4200];
} replay_exec_file;

int replay_exec_file_begin(const replay_config *cfg, const char *work_dir, replay_exec_file *uf);
void replay_exec_file_add(replay_exec_file *uf, const mcz_mc *mc);
/* Its bytes written out of the buffer (a failure kept in err). */
void replay_exec_file_flush(replay_exec_file *uf);
/* Closes the file of a unit that runs no command (nothing to replay, or unreadable). */
void replay_exec_file_end_unused(replay_exec_file *uf);

/* --exec: runs the command over one unit, whose contexts (their numbers, sizes and offsets;
 * bytes not needed) uf holds; reports each through ch. first: the worker's first command,
 * whose exit status 254 (superpmi: the JIT failed to initialize) stops the run. */
int replay_exec_unit(const replay_config *cfg, const char *work_dir, bool first,
                     replay_exec_file *uf, const mcz_mc *contexts, size_t n, replay_chan *ch);
/* The same in steps, so that the worker reads and writes its next unit, and starts its
 * command, while the current one runs. Spawn: the unit file finished and the command started
 * over it, nothing sent (NULL: out of memory); announce, on the unit's turn: the unit said to
 * be in flight, or (a file that could not be written, a command that could not start) the
 * run stopped naming the path and the errno; finish: the command waited for and its unit
 * accounted. Launch is spawn and announce at once (NULL: out of memory, or the channel
 * failed). contexts must live until finish. */
typedef struct replay_exec_job replay_exec_job;
replay_exec_job *replay_exec_spawn(const replay_config *cfg, const char *work_dir,
                                   replay_exec_file *uf, const mcz_mc *contexts, size_t n);
int replay_exec_announce(replay_exec_job *job, replay_chan *ch);
replay_exec_job *replay_exec_launch(const replay_config *cfg, const char *work_dir,
                                    replay_exec_file *uf, const mcz_mc *contexts, size_t n,
                                    replay_chan *ch);
int replay_exec_finish(replay_exec_job *job, bool first, replay_chan *ch);
/* A job left without its turn, on the worker's way out (its channel failed): freed, its command
 * not waited for. The worker stops, and the parent then ends its process group, the command
 * included. NULL: nothing. */
void replay_exec_drop(replay_exec_job *job);
struct replay_counts; /* below, with the results */

/* What the run's stdout must say as one superpmi over the collection would (replay_exec_output.c). */
typedef struct replay_exec_view {
    const replay_plan *plan;
    replay_style style;
    const char *fail_list; /* the run's -f, as superpmi's banner names it; NULL: none */
    bool selected;         /* -c given: superpmi's progress goes over the list */
    uint32_t repeat;       /* the command's -repeatCount (0: none) */
    uint32_t interleave;   /* --order-as-parallel N; 0 or 1: none */
    double started;        /* tool_now() when the run started */
    bool verbose;          /* --verbosity says superpmi's verbose level (tool_spmi_verbose) */
} replay_exec_view;

/* After the run: the commands' stdout, in the order of their units' numbers (so the lines read
 * as one superpmi run's, whatever -j), copied to `to`, each unit's banner, progress lines,
 * summary and total time replaced by the run's (the first unit's banner naming the collection,
 * progress lines over the whole run; replay_exec_output.c says how); interleave N > 1: in the
 * order superpmi -p N prints them (worker i's contexts i+1, i+1+N, ... one worker after the
 * other), each context's lines those from the line naming it to the next naming another.
 * *extra: what the commands' -repeatCount adds to the summary's counts of one per context. */
int replay_exec_output(const char *temp_dir, const replay_exec_view *v, FILE *to,
                       struct replay_counts *extra);
/* After the summary: superpmi's "Total time: Tms" when the commands printed their banner, or,
 * under --order-as-parallel, at the verbose level (superpmi -p's parent prints it). */
void replay_exec_trailer(const replay_exec_view *v, FILE *to);

/* ---- The system: platform/worker.h (workers, commands, stop signals) and platform/program.h
 * (shared libraries), called directly; replay_proc.c adds only what says more ---------------- */

/* A plugin's shared library loaded, NULL with "cannot load plugin: " and the system's reason
 * in msg. */
void *replay_os_library_open(const char *path, char *msg, size_t cap);

/* A details file's columns: its header record as written (no line end) and where superpmi's
 * result columns are (field positions, Context being 0; -1: none). */
#define REPLAY_MAX_COLUMNS 4096
#define REPLAY_MAX_COLUMNS_TEXT "4096"
typedef struct replay_columns {
    char *header; /* NULL: none yet */
    size_t count;
    int result, base_result, diff_result, has_diff;
} replay_columns;

/* One accounted context. In the table's memory the strings are its own; handed to a walk's
 * visitor (replay_table_walk) they live until the visitor returns. */
typedef struct replay_entry {
    uint32_t number;
    uint32_t size; /* serialized context bytes; 0 when unknown */
    uint8_t kind;
    bool miss;     /* its data was missing (alone, or with a failure of the other JIT) */
    char *message; /* NULL when none */
    char *row;     /* its details rows (replay_row.c), as the unit wrote them, without the
                    * Context field, each ending in LF; NULL: none */
} replay_entry;

typedef struct replay_counts {
    uint64_t by_kind[REPLAY_KIND_COUNT];
    uint64_t loaded, jitted, failed, excluded, missing, diffs;
    replay_style style;
} replay_counts;

/* A sorted run of entries in a temporary file, or a results file (replay_results.c). */
typedef struct replay_run replay_run;

/*
 * A results table: every accounted context, added in any order (units finish out of order),
 * read back in context order by replay_table_walk. The parent's memory must not grow with the
 * collection, so the table holds at most REPLAY_HOLD_BYTES of entries (strings included; the
 * hidden MCZ_REPLAY_HOLD_BYTES in the environment sets another bound, which the tests make
 * tiny); past it they are sorted and spilled as a run to a temporary file under TMPDIR that no
 * name reaches (mcz_os_temp_file: gone however the process ends). A walk merges the runs and
 * what is held (a k-way merge); REPLAY_RUN_FAN runs of one level are merged into one of the
 * next as they appear, so a walk reads at most REPLAY_RUN_FAN - 1 runs a level (and, for
 * --merge-results, one per results file, which are runs already). Per context, nothing stays
 * in memory: the counts are counters.
 */
#define REPLAY_HOLD_BYTES (4u << 20)
#define REPLAY_RUN_FAN 8

typedef struct replay_table {
    replay_entry *entries;  /* held, not yet spilled (sorted once finished) */
    size_t held, cap;
    size_t held_bytes;      /* what they take, strings and allocator overhead included */
    size_t bound;           /* 0 until the first add: then REPLAY_HOLD_BYTES or the env's */
    replay_run *runs;
    size_t run_count, run_cap;
    uint64_t count;         /* contexts accounted (once finished, results files' included) */
    bool finished;          /* replay_table_finish walked it: counts set, nothing more added */
    replay_counts counts;   /* set by replay_table_finish */
    replay_style style;
    replay_columns columns; /* of the rows held (replay_row.c) */
    uint32_t interleave;    /* > 1: details rows in superpmi -p N's worker order */
    char error[REPLAY_MESSAGE_MAX]; /* why the last add failed, when not memory */
    size_t held_peak;       /* the most entries held at once (--stats) */
    uint64_t spills;        /* runs spilled from memory (--stats) */
} replay_table;

typedef struct replay_run_options {
    unsigned workers;
    double timeout;     /* seconds per context (per unit for --exec); 0: none */
    bool stride;        /* SuperPMI-style: every worker walks every unit */
    bool progress;      /* a progress line on stderr */
    bool stats;         /* per-worker I/O figures on stderr */
    uint64_t failure_limit; /* no unit is handed out once this many contexts failed; 0: none */
    uint64_t exec_bound;    /* --exec: bytes of contexts one command may get, its units
                             * sized from what the first commands took (replay_span.c);
                             * 0: a unit each */
} replay_run_options;

/* How a run ended, beyond the table. */
typedef struct replay_outcome {
    int stop_signal;      /* SIGINT/SIGTERM/SIGHUP that interrupted the run; 0 */
    bool limit_reached;   /* the failure limit stopped handing out units */
    bool init_failed;     /* a worker could not start its replayer */
    bool broken;          /* a failure of mcz-replay's own stopped the run (replay_chan_broken;
                           * a worker killed from outside or ending on its own error) */
    char message[REPLAY_MESSAGE_MAX];
} replay_outcome;

/* Replays every unit of cfg->plan with o->workers processes; fills t. */
int replay_proc_run(const replay_config *cfg, const replay_run_options *o, replay_table *t,
                    replay_outcome *out);

/* ---- Results (replay_results.c) ----------------------------------------------------------------- */

/* Adds one context (message copied as one line of printable text). MCZ_ENOMEM, or MCZ_EIO
 * when a run cannot be spilled (t->error says why, naming TMPDIR and the OS's reason). */
int replay_table_add(replay_table *t, uint32_t number, int kind, uint32_t size, const char *msg);
/* The same with details rows (replay_row.c; NULL: none) instead of a message; miss: a JIT
 * missed data (the rows say so). */
int replay_table_add_row(replay_table *t, uint32_t number, int kind, bool miss, uint32_t size,
                         const char *row);
/* Ends the adding: one walk that counts every context and checks the results files read;
 * MCZ_ECORRUPT (diag) when a context is accounted twice. Again: nothing more to do. */
int replay_table_finish(replay_table *t, mcz_diag *diag);
void replay_table_free(replay_table *t);
/* Hands every entry of a finished table to visit(arg, entry) in context order; stops at the
 * first visit that returns nonzero and returns that. MCZ_EIO or MCZ_ECORRUPT (diag) when a run
 * cannot be read back, a results file changed or a context comes twice. */
typedef int (*replay_visit)(void *arg, const replay_entry *e);
int replay_table_walk(const replay_table *t, replay_visit visit, void *arg, mcz_diag *diag);
/* The same for a visitor that reads the rows of some entries only: wants(arg, number, kind)
 * says which (NULL: none). The others come with row NULL where a spilled run holds them, so
 * a walk pays for unescaping only the rows it reads (results files' are checked whole on
 * every walk all the same). */
typedef bool (*replay_wants_row)(void *arg, uint32_t number, int kind);
int replay_table_walk_rows(const replay_table *t, replay_visit visit, replay_wants_row wants,
                           void *arg, mcz_diag *diag);

/* Takes f, open for reading at the first entry of a results file named path (lines: the lines
 * before it), as a run of t; closed by replay_table_free. */
int replay_table_add_run(replay_table *t, FILE *f, const char *path, uint64_t lines);

/* The text of runs and results files (replay_table.c): an entry as one line; text that may hold
 * TABs and line ends as one field (backslash, TAB, LF and CR as \\, \t, \n and \r) and back
 * (false on an escape never written); a line (1, without its LF; 0 at the end; MCZ_EIO;
 * MCZ_ETRUNCATED without a LF; MCZ_ECORRUPT when overlong or holding a NUL); a line split at
 * TABs into at most max fields (how many). */
void replay_entry_write(FILE *f, const replay_entry *e);
void replay_escape_write(FILE *f, const char *text);
bool replay_unescape(char *s);
int replay_line_read(FILE *f, char **buf, size_t *cap);
size_t replay_split_tabs(char *buf, char **fields, size_t max);

/* What the table held and spilled, as one --stats line on f. */
void replay_table_print_stats(const replay_table *t, FILE *f);

/* The counts replay_table_finish made. */
void replay_table_count(const replay_table *t, replay_counts *c);
/* SuperPMI's summary line, e.g. "Loaded 5  Jitted 5  FailedCompile 0 Excluded 0 Missing 0", and
 * " Diffs N" after it in asm diffs. */
void replay_counts_print(const replay_counts *c, FILE *out);
int replay_counts_exit_code(const replay_counts *c);
/* Lists non-success contexts on err (at most `limit` lines); lost_only: only those no replayer
 * judged (crashes, timeouts, unreadable), whose failures the replayer's own lines do not say;
 * details: --details holds the rest (said when some are left out). Then the warning mcs -integ
 * gives about unknown packet ids, counted from the messages of the contexts that passed with
 * some (REPLAY_UNKNOWN_NOTE). One walk. */
int replay_table_report(const replay_table *t, FILE *err, size_t limit, bool lost_only,
                        bool details, mcz_diag *diag);

/* superpmi's -f: every context that did not replay; in asm diffs also those with diffs, unless
 * the details are written (with_details), as superpmi does. */
int replay_table_write_mcl(const replay_table *t, const char *path, bool with_details,
                           mcz_diag *diag);
int replay_table_write_details(const replay_table *t, const char *path, mcz_diag *diag);
/* An empty file at path (written beside and renamed, as every output). */
int replay_write_empty(const char *path, mcz_diag *diag);

/* --results / --merge-results: one shard's results with the plan they came from. */
typedef struct replay_shard_id {
    uint32_t k, n;
    char fingerprint[160];
    uint64_t plan_selected; /* selected contexts in the whole plan */
    replay_style style;     /* the table's */
} replay_shard_id;

int replay_table_write_results(const replay_table *t, const replay_shard_id *id,
                               const char *path, mcz_diag *diag);
/* Takes the results file at path into t (as a run: its header and columns are read and
 * checked now, its entries by replay_table_finish, and read again by each walk; the file stays
 * open until replay_table_free) and fills id. */
int replay_table_read_results(replay_table *t, const char *path, replay_shard_id *id,
                              mcz_diag *diag);
/* The same over a results file's bytes (text, size) already in memory, copied to a temporary
 * file; path names it in messages. */
int replay_table_parse_results(replay_table *t, const char *path, const void *text, size_t size,
                               replay_shard_id *id, mcz_diag *diag);

/* ---- Details rows (replay_row.c) ------------------------------------------------------------ */


/* Whether one row's result columns (fields: the row's fields after Context) hold what superpmi
 * writes there; if not, why names the column, its value and the values superpmi writes. */
bool replay_row_results_valid(const replay_columns *c, replay_style style,
                              const tool_csv_span *fields, char *why, size_t cap);
/* Takes header (len bytes) as the columns of a style's rows: one CSV record starting with
 * Context and holding the style's result columns; otherwise MCZ_ECORRUPT, why says why. */
int replay_columns_set(replay_columns *c, const char *header, size_t len, replay_style style,
                       char *why, size_t cap);
void replay_columns_free(replay_columns *c);
bool replay_columns_same(const replay_columns *c, const char *header, size_t len);
/* The header written when no unit gave one. */
const char *replay_default_header(replay_style style);
/* What a context's rows say (records without their Context field, each ending in LF): the
 * worst kind of them (success, diff, missing, failure) and whether any missed data; -1 when
 * a row has another number of fields or a result superpmi does not write. */
int replay_rows_kind(const replay_columns *c, replay_style style, const char *rows, size_t len,
                     bool *miss);
/* The same, with what superpmi's other outputs count: rows that failed or missed (each puts
 * the context in -f once), and whether the first JIT erred (superpmi's -r writes those). */
typedef struct replay_rows_info {
    int kind;
    bool miss;
    size_t failed;
    bool first_error;
} replay_rows_info;
int replay_rows_scan(const replay_columns *c, replay_style style, const char *rows, size_t len,
                     replay_rows_info *info);
/* Writes the details CSV: the columns' header (the style's default when none), then for each
 * context but excluded ones its rows behind its number, or one row made from its kind. */
int replay_row_write_csv(const replay_table *t, FILE *f, mcz_diag *diag);

/* Progress on a terminal (replay_progress.c). */
void replay_progress_update(uint64_t done, uint64_t total);
void replay_progress_clear(void);

#endif /* MCZ_REPLAY_INT_H */
