/*
 * replay_main.c - bin/mcz-replay: the command line, and what to do with a run's results.
 *
 *   mcz-replay [options] COLLECTION               replay (.mcz or .mch) across worker processes
 *   mcz-replay --merge-results [outputs] FILES... merge --shard runs' --results files
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_exec.h"
#include "tool_spmi.h"
#include "tool.h"

/* --exec: bytes of contexts handed to one command start (bench/replay.sh, parallel-replay/README.md). */
#define EXEC_BATCH_DEFAULT (16u << 20)
#define EXEC_BATCH_TEXT "16M"
#define EXEC_UNITS_PER_WORKER 4
#define EXEC_PIECES 16 /* units per --exec-batch: the grain commands are sized in */
#define REPORT_LIMIT 20 /* failing contexts listed on stderr; the rest are in --details */

static const char usage_text[] =
    "Usage: mcz-replay [options] COLLECTION\n"
    "   or: mcz-replay --merge-results [-f FILE] [--details FILE] [--results FILE] RESULTS...\n"
    "\n"
    "Replays every method context of COLLECTION (.mcz archive or .mch file) in worker\n"
    "processes. Work is handed out by unit (an archive chunk, or about 1 MiB of consecutive\n"
    "contexts of an .mch), so each worker decompresses only its own units. Context numbers are\n"
    "global (1-based, file-wide) everywhere. Contexts whose identity hash is listed in\n"
    "COLLECTION.exc (or NAME.exc) are excluded, as superpmi does.\n"
    "\n"
    "options:\n"
    "  -j N               worker processes (default: one per online core)\n"
    "  -c LIST            only these contexts: ranges such as 1-5,9 or a .mcl file\n"
    "  -f FILE            write the numbers of the contexts that did not pass to FILE (.mcl)\n"
    "  --details FILE     superpmi's -details CSV, one row per context (not excluded ones)\n"
    "  --plugin LIB.so    replay through a plugin (ABI: parallel-replay/mcz_replay.h)\n"
    "  --plugin-arg S     string given to the plugin's init()\n"
    "  --exec \"CMD ...\"   run a command per work unit (contract below; words split on blanks)\n"
    "  --exec-original    .mch input: give the command the original file and -c RANGES\n"
    "  --exec-word WORD   the command one word at a time (repeat; no splitting on blanks)\n"
    "  --match-hash HASH  only contexts whose stored identity hash is HASH (superpmi's -m;\n"
    "                     read from the archive's index or the .mch's .mct: only the units\n"
    "                     holding them are read)\n"
    "  --order-as-parallel N  write --details rows and the commands' stdout in the order\n"
    "                     superpmi -p N writes them (its worker i has contexts i+1, i+1+N,\n"
    "                     ...), not by context number\n"
    "  --exec-toc         the command is superpmi: each unit comes with an .mct of its\n"
    "                     contexts' global numbers and -c them, so superpmi itself (and\n"
    "                     the JIT) numbers them as over the whole collection\n"
    "  --repro PREFIX     --exec: write each context that failed as PREFIX-N.mc (superpmi -r)\n"
    "  --failure-limit N  hand out no more units once N contexts failed (superpmi's\n"
    "                     -failureLimit, counted over the whole run)\n"
    "  --verbosity LETTERS  superpmi's -v: without n, print only errors and the commands'\n"
    "                     output (no summary line, no warnings of mcz-replay's own)\n"
    "  --timeout SECONDS  kill a worker stuck on a context (an --exec command: on a unit) and\n"
    "                     report the context as timed out; the rest of its unit goes on\n"
    "  --shard K/N        replay only shard K of N: contiguous contexts of near-equal size\n"
    "  --results FILE     write this run's results for --merge-results\n"
    "  --merge-results    merge the RESULTS files of all N shards: the same summary, -f list,\n"
    "                     details and exit code as one run over the whole collection\n"
    "  --unit-size SIZE   .mch input: bytes of contexts per work unit, e.g. 4M (default 1M;\n"
    "                     with --exec, a 16th of --exec-batch when larger)\n"
    "  --exec-batch SIZE  --exec: the bound: no command gets more than SIZE bytes of\n"
    "                     contexts, so the run's unit files in TMPDIR (the next one written\n"
    "                     while a command runs) hold at most 2 x -j x SIZE (default\n"
    "                     " EXEC_BATCH_TEXT "; 0: a chunk each). Within it the\n"
    "                     batch is sized from what the first commands took: a start that\n"
    "                     costs much against its contexts gets more of them per command\n"
    "                     (see parallel-replay/README.md)\n"
    "  --jit-ee VERSION   read the collection as this JIT-EE version (name or GUID) instead\n"
    "                     of the one it records or its packets show\n"
    "  --strict           verify: a packet id the packet table does not know fails the\n"
    "                     context (without: the context passes, and a warning counts them)\n"
    "  -q, --quiet        no progress line (shown only when stderr is a terminal)\n"
    "  -h, --help         this text\n"
    "\n"
    "replayers: verify (default) checks every context as mcs -integ does (the same check),\n"
    "recomputes its identity hash\n"
    "and compares it with the stored one (archive index or .mct); chunk checksums are checked\n"
    "on decompression. --plugin and --exec replace it.\n"
    "\n"
    "--exec contract: per work unit, mcz-replay runs\n"
    "    CMD ... -f LIST -details CSV UNIT.mch  (--exec-original: CMD ... -c RANGES -f LIST\n"
    "                                            -details CSV FILE)\n"
    "UNIT.mch holds the unit's selected contexts, numbered 1..k in global order. A context's\n"
    "row in CSV (superpmi's columns, by name) gives its result; -a or -applyDiff in CMD makes\n"
    "an asm-diffs run (summary with Diffs N, exit 2 on diffs). A command that ends 0-3 must\n"
    "write a row for each context it was given; for one that crashed (another status, a\n"
    "signal) its contexts without a row crashed. Numbers are mapped to global ones. Options\n"
    "of CMD that write\n"
    "files (-f, -details, -r, -w, -e), -c, -stride, and those that shape the whole run (-p:\n"
    "use -j; -failureLimit: use --failure-limit; -streaming) are refused.\n"
    "A command that exits 254 (the JIT failed to initialize) on a worker's first unit stops\n"
    "the run: exit 254. A failure of mcz-replay's own (a temporary file that cannot be\n"
    "written, a command that cannot start, ends 0-3 without the details rows of its unit, or\n"
    "is killed by SIGKILL, a worker killed by SIGKILL) stops it with exit 255, the errno and\n"
    "the path; the contexts not judged are not replayed, and not in -f.\n"
    "\n"
    "output: superpmi's summary line on stdout,\n"
    "    Loaded N  Jitted N  FailedCompile N Excluded N Missing N[ Diffs N]\n"
    "(FailedCompile counts failures, missing data, crashes, timeouts and unreadable contexts).\n"
    "With --exec, stdout is what one superpmi over the whole collection prints with CMD's\n"
    "options: the first unit's banner naming COLLECTION, -c and -f (no temporary path), the\n"
    "units' ISSUE/MISSING lines with global numbers, progress lines over the whole run, one\n"
    "summary counting each compile of -repeatCount N, the run's total time. On stderr\n"
    "mcz-replay lists only contexts no command judged (crashes, timeouts).\n"
    "exit codes (superpmi's): 0 all passed; 1 failures, crashes or timeouts; 2 asm diffs\n"
    "(no failures); 3 missing data only; 254 the replayer failed to initialize; 255 bad\n"
    "arguments, an output that cannot be created (checked before any work), an empty,\n"
    "unreadable or damaged collection, a failure of mcz-replay's own; 128+S\n"
    "interrupted by signal S (what finished is still reported).\n";

typedef struct options {
    unsigned workers;
    const char *select;
    const char *fail_list;
    const char *details;
    const char *plugin;
    const char *plugin_arg;
    const char *exec;
    char **exec_words;    /* --exec-word, in order; NULL-terminated */
    size_t exec_word_count;
    const char *repro;
    uint64_t failure_limit;
    const char *verbosity; /* superpmi's -v letters: the summary line needs 'n' */
    bool exec_original;
    const char *match_hash; /* --match-hash: superpmi's -m, read from the index */
    uint32_t interleave;  /* --order-as-parallel N; 0: by context number */
    bool exec_toc;        /* the command is superpmi: units read through an .mct (--exec-toc) */
    char **operands;      /* the words that are not options, in order */
    size_t operand_count;
    double timeout;
    uint32_t shard_k, shard_n;
    const char *results;
    bool merge;
    uint64_t unit_size;
    bool unit_size_given;
    uint64_t exec_batch;
    bool quiet, stride, stats, strict;
    const mcz_jit_ee *jit_ee; /* --jit-ee; NULL: the collection's */
} options;

/* "mcz-replay: MESSAGE" on stderr (and, for a usage error, where to find the usage); both
 * return superpmi's code for a general failure. */
static int fail(const char *fmt, ...) REPLAY_PRINTF(1, 2);
static int fail_usage(const char *fmt, ...) REPLAY_PRINTF(1, 2);

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tool_verror(fmt, ap);
    va_end(ap);
    return REPLAY_EXIT_GENERAL;
}

static int fail_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tool_verror(fmt, ap);
    va_end(ap);
    fputs("(mcz-replay --help for usage)\n", stderr);
    return REPLAY_EXIT_GENERAL;
}

enum {
    OPT_DETAILS = 256, OPT_PLUGIN, OPT_PLUGIN_ARG, OPT_EXEC, OPT_EXEC_ORIGINAL, OPT_TIMEOUT,
    OPT_SHARD, OPT_RESULTS, OPT_MERGE, OPT_UNIT_SIZE, OPT_STRIDE, OPT_STATS, OPT_JIT_EE,
    OPT_STRICT, OPT_EXEC_BATCH, OPT_EXEC_TOC, OPT_MATCH_HASH, OPT_ORDER_AS_PARALLEL, OPT_EXEC_WORD, OPT_REPRO, OPT_FAILURE_LIMIT, OPT_VERBOSITY
};

/* mcz-replay's options, read by whole words: -NAME or --NAME, the value as the next word or
 * after '=' (--details=d.csv). No clustering: -foo is an unknown option, never -f oo. */
typedef struct option_def {
    const char *name;
    int id;
    bool value;
} option_def;

static const option_def option_defs[] = {
    {"j", 'j', true},
    {"c", 'c', true},
    {"f", 'f', true},
    {"q", 'q', false},
    {"quiet", 'q', false},
    {"h", 'h', false},
    {"help", 'h', false},
    {"details", OPT_DETAILS, true},
    {"plugin", OPT_PLUGIN, true},
    {"plugin-arg", OPT_PLUGIN_ARG, true},
    {"exec", OPT_EXEC, true},
    {"exec-original", OPT_EXEC_ORIGINAL, false},
    {"timeout", OPT_TIMEOUT, true},
    {"shard", OPT_SHARD, true},
    {"results", OPT_RESULTS, true},
    {"merge-results", OPT_MERGE, false},
    {"unit-size", OPT_UNIT_SIZE, true},
    {"jit-ee", OPT_JIT_EE, true},
    {"strict", OPT_STRICT, false},
    {"exec-batch", OPT_EXEC_BATCH, true},
    {"exec-word", OPT_EXEC_WORD, true},
    {"exec-toc", OPT_EXEC_TOC, false},
    {"match-hash", OPT_MATCH_HASH, true},
    {"order-as-parallel", OPT_ORDER_AS_PARALLEL, true},
    {"repro", OPT_REPRO, true},
    {"failure-limit", OPT_FAILURE_LIMIT, true},
    {"verbosity", OPT_VERBOSITY, true},
    /* Not in --help: SuperPMI-style stride/offset sharding and per-worker I/O figures, for
     * bench/replay.sh's comparison. */
    {"stride", OPT_STRIDE, false},
    {"stats", OPT_STATS, false},
};

#define OPTION_COUNT (sizeof option_defs / sizeof *option_defs)

/* The known option nearest to name, when one is near enough to be meant. */
static const option_def *nearest_option(const char *name)
{
    const option_def *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        size_t d = tool_edit_distance(name, strlen(name), option_defs[i].name);
        if (d < best_d && d < strlen(option_defs[i].name) + (strlen(name) > 2)) {
            best = &option_defs[i];
            best_d = d;
        }
    }
    return best;
}

static const char *dashes(const option_def *d) { return strlen(d->name) == 1 ? "-" : "--"; }

/* Words superpmi (and make, xargs) use for what an option of mcz-replay does, compared without
 * case: too far from the option's own name for the edit distance to find it. */
static const struct {
    const char *word, *option;
} other_words[] = {
    {"failureList", "-f FILE"},         {"failingMCList", "-f FILE"},
    {"jobs", "-j N"},                   {"workers", "-j N"},
    {"failureLimit", "--failure-limit N"}, {"reproName", "--repro PREFIX"},
    {"r", "--repro PREFIX"},            {"v", "--verbosity FLAGS"},
};

static int unknown_option(const char *word, const char *name)
{
    if (strcmp(name, "p") == 0 || strcmp(name, "parallel") == 0)
        return fail_usage("unknown option '%s': the number of workers is -j N", word);
    for (size_t i = 0; i < sizeof other_words / sizeof other_words[0]; i++)
        if (tool_strcasecmp(name, other_words[i].word) == 0)
            return fail_usage("unknown option '%s'; did you mean %s?", word,
                              other_words[i].option);
    const option_def *near = nearest_option(name);
    if (near)
        return fail_usage("unknown option '%s'; did you mean %s%s?", word, dashes(near),
                          near->name);
    return fail_usage("unknown option '%s'", word);
}

static int parse_shard(const char *s, options *o)
{
    char *slash = strchr(s, '/');
    uint64_t k, n;
    char head[32];
    if (!slash || (size_t)(slash - s) >= sizeof head)
        return MCZ_EINVAL;
    memcpy(head, s, (size_t)(slash - s));
    head[slash - s] = '\0';
    if (!replay_parse_count(head, 1, 65535, &k) || !replay_parse_count(slash + 1, 1, 65535, &n) ||
        k > n)
        return MCZ_EINVAL;
    o->shard_k = (uint32_t)k;
    o->shard_n = (uint32_t)n;
    return MCZ_OK;
}

/* --exec-word WORD: the command given word by word (no splitting on blanks). */
static int add_exec_word(options *o, char *word)
{
    char **grown = realloc(o->exec_words, (o->exec_word_count + 2) * sizeof *grown);
    if (!grown)
        return fail("out of memory");
    grown[o->exec_word_count++] = word;
    grown[o->exec_word_count] = NULL;
    o->exec_words = grown;
    return -1;
}

/* Returns -1 to go on, or the exit code. */
static int parse_option(int c, char *arg, options *o)
{
    uint64_t v;
    char *end;
    switch (c) {
    case 'j':
        if (!replay_parse_count(arg, 1, 4096, &v))
            return fail_usage("-j %s: want a number of workers from 1 to 4096", arg);
        o->workers = (unsigned)v;
        return -1;
    case 'c': o->select = arg; return -1;
    case 'f': o->fail_list = arg; return -1;
    case 'q': o->quiet = true; return -1;
    case 'h': fputs(usage_text, stdout); return 0;
    case OPT_DETAILS: o->details = arg; return -1;
    case OPT_PLUGIN: o->plugin = arg; return -1;
    case OPT_PLUGIN_ARG: o->plugin_arg = arg; return -1;
    case OPT_EXEC: o->exec = arg; return -1;
    case OPT_EXEC_ORIGINAL: o->exec_original = true; return -1;
    case OPT_EXEC_TOC: o->exec_toc = true; return -1;
    case OPT_ORDER_AS_PARALLEL:
        if (!replay_parse_count(arg, 1, 64, &v))
            return fail_usage("--order-as-parallel %s: want superpmi's -p count, 1 to 64", arg);
        o->interleave = (uint32_t)v;
        return -1;
    case OPT_MATCH_HASH:
        if (strlen(arg) != 32 || strspn(arg, "0123456789abcdefABCDEF") != 32)
            return fail_usage("--match-hash %s: want 32 hex digits (an identity hash)", arg);
        o->match_hash = arg;
        return -1;
    case OPT_EXEC_WORD: return add_exec_word(o, arg);
    case OPT_REPRO:
        if (!*arg)
            return fail_usage("--repro: empty prefix");
        o->repro = arg;
        return -1;
    case OPT_FAILURE_LIMIT:
        if (!replay_parse_count(arg, 1, UINT32_MAX, &o->failure_limit))
            return fail_usage("--failure-limit %s: want a number of failures from 1", arg);
        return -1;
    case OPT_VERBOSITY: o->verbosity = arg; return -1;
    case OPT_RESULTS: o->results = arg; return -1;
    case OPT_MERGE: o->merge = true; return -1;
    case OPT_STRIDE: o->stride = true; return -1;
    case OPT_STATS: o->stats = true; return -1;
    case OPT_STRICT: o->strict = true; return -1;
    case OPT_TIMEOUT:
        errno = 0;
        o->timeout = strtod(arg, &end);
        if (*end || errno || !(o->timeout > 0 && o->timeout < 1e7))
            return fail_usage("--timeout %s: want a positive number of seconds", arg);
        return -1;
    case OPT_SHARD:
        if (parse_shard(arg, o) != MCZ_OK)
            return fail_usage("--shard %s: want K/N with 1 <= K <= N", arg);
        return -1;
    case OPT_JIT_EE:
        if (!(o->jit_ee = mcz_jit_ee_find(arg)))
            return fail_usage("--jit-ee %s: not a JIT-EE version or GUID mcz knows (mcs "
                              "-printJITEEVersion --list lists them)", arg);
        return -1;
    case OPT_UNIT_SIZE:
        if (tool_parse_count(arg, true, 1, UINT32_MAX, &o->unit_size) != MCZ_OK)
            return fail_usage("--unit-size %s: want a size in bytes such as 1048576 or 4M", arg);
        o->unit_size_given = true;
        return -1;
    case OPT_EXEC_BATCH:
        if (tool_parse_count(arg, true, 0, UINT32_MAX, &o->exec_batch) != MCZ_OK)
            return fail_usage("--exec-batch %s: want a size in bytes such as 0 or 4M", arg);
        return -1;
    default:
        return fail_usage("unknown option");
    }
}

/* One option word at argv[*i] (and its value); returns -1 to go on, or the exit code. */
static int parse_word(int argc, char **argv, int *i, options *o)
{
    char *word = argv[*i];
    char name[64];
    const char *body = word + 1 + (word[1] == '-');
    const char *eq = strchr(body, '=');
    size_t len = eq ? (size_t)(eq - body) : strlen(body);
    if (len >= sizeof name)
        return unknown_option(word, "");
    memcpy(name, body, len);
    name[len] = '\0';
    const option_def *d = NULL;
    for (size_t k = 0; k < OPTION_COUNT && !d; k++)
        if (strcmp(option_defs[k].name, name) == 0)
            d = &option_defs[k];
    if (!d)
        return unknown_option(word, name);
    char *value = ""; /* parse_option's arg is never NULL; options without a value ignore it */
    if (d->value && eq)
        value = (char *)word + (eq + 1 - word);
    else if (d->value && *i + 1 < argc)
        value = argv[++*i];
    else if (d->value)
        return fail_usage("%s wants a value", word);
    else if (eq)
        return fail_usage("%s%s takes no value", dashes(d), d->name);
    return parse_option(d->id, value, o);
}

/* Options and operands in any order; "--" ends the options. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->unit_size = 1u << 20;
    o->exec_batch = EXEC_BATCH_DEFAULT;
    o->operands = calloc((size_t)argc + 1, sizeof *o->operands);
    if (!o->operands)
        return fail("out of memory");
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        char *w = argv[i];
        if (!options_end && strcmp(w, "--") == 0) {
            options_end = true;
            continue;
        }
        if (options_end || w[0] != '-' || !w[1]) {
            o->operands[o->operand_count++] = w;
            continue;
        }
        int rc = parse_word(argc, argv, &i, o);
        if (rc >= 0)
            return rc;
    }
    if (o->exec && o->exec_words)
        return fail_usage("--exec and --exec-word exclude each other (give the command once)");
    if (o->exec_words)
        o->exec = o->exec_words[0]; /* from here on, o->exec says an --exec run */
    if (o->plugin && (o->exec || o->exec_words))
        return fail_usage("--plugin and --exec exclude each other");
    if (o->repro && !o->exec && !o->exec_words)
        return fail_usage("--repro needs --exec");
    if (o->verbosity && !strchr(o->verbosity, 'n') && !strchr(o->verbosity, 'N'))
        tool_set_levels(true, false, false); /* superpmi's -v without n: nothing of mcz's own */
    if (!o->merge && o->operand_count != 1)
        return o->operand_count ? fail_usage("want one COLLECTION, not %zu (%s, %s...)",
                                             o->operand_count, o->operands[0],
                                             o->operands[1])
                                : fail_usage("want one COLLECTION");
    if (o->merge && o->operand_count < 1)
        return fail_usage("--merge-results wants the results files");
    return -1;
}

/* ---- Outputs, checked before any work -------------------------------------------------------- */

/* An output is written beside its path and renamed over it at the end of the run (or written
 * in place when it is a stream): checked before any work (tool_output_check). Returns -1 to go
 * on, or the exit code. */
static int output_check(const char *option, const char *path)
{
    char err[TOOL_ERROR_SIZE];
    if (!*path)
        return fail_usage("%s: empty file name", option);
    if (tool_output_check(path, NULL, err) != 0)
        return fail("%s %s", option, err);
    return -1;
}

static int outputs_check(const options *o, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tool_note_input(inputs[i]);
    const struct { const char *option, *path; } outputs[] = {
        {"-f", o->fail_list}, {"--details", o->details}, {"--results", o->results}};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        int code = outputs[i].path ? output_check(outputs[i].option, outputs[i].path) : -1;
        if (code >= 0)
            return code;
    }
    return -1;
}

/* ---- Results ------------------------------------------------------------------------------- */

/* A collection that cannot be read: -f and --details exist, empty, as superpmi creates them
 * before it reads the input (superpmi.py reads the details after every run). */
static void outputs_empty(const options *o)
{
    mcz_diag d;
    const char *paths[] = {o->fail_list, o->details};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (paths[i])
            (void)replay_write_empty(paths[i], &d);
}

/* d's line (mcz_diag_format). */
static int fail_diag(const mcz_diag *d)
{
    char text[REPLAY_MESSAGE_MAX];
    return fail("%s", mcz_diag_format(d, text, sizeof text));
}

/* The error of writing output path. */
static int fail_output(const char *path, const mcz_diag *d)
{
    char text[REPLAY_MESSAGE_MAX];
    tool_where at = {path, -1, -1, -1};
    return fail("%s", tool_where_text(&at, d, text, sizeof text));
}

/* --exec: what the commands' -repeatCount adds to the table's one count per context
 * (replay_exec_output). */
static replay_counts exec_extra;

/* Writes what the table holds: stderr report, -f, --details, --results (when id), summary. */
static int conclude(const options *o, replay_table *t, const replay_shard_id *id)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    /* --exec: superpmi's own lines say what its contexts did (ISSUE, ERROR, MISSING); only
     * what no command judged is told here */
    if (replay_table_finish(t, &d) != MCZ_OK ||
        replay_table_report(t, stderr, REPORT_LIMIT, !tool_info_shown() || o->exec != NULL,
                            o->details != NULL, &d) != MCZ_OK)
        return fail_diag(&d);
    replay_counts c;
    replay_table_count(t, &c);
    c.jitted += exec_extra.jitted;
    c.failed += exec_extra.failed;
    c.missing += exec_extra.missing;
    c.diffs += exec_extra.diffs;
    /* An output that cannot be written fails the run, but the summary of the work done is
     * still printed (a full disk must not hide what the replay found). */
    int failed = -1;
    if (o->fail_list && replay_table_write_mcl(t, o->fail_list, o->details != NULL, &d) != MCZ_OK)
        failed = fail_output(o->fail_list, &d);
    if (o->details && replay_table_write_details(t, o->details, &d) != MCZ_OK)
        failed = fail_output(o->details, &d);
    if (id && o->results && replay_table_write_results(t, id, o->results, &d) != MCZ_OK)
        failed = fail_output(o->results, &d);
    if (tool_info_shown())
        replay_counts_print(&c, stdout);
    return failed >= 0 ? failed : replay_counts_exit_code(&c);
}

static int merge_check(const replay_shard_id *ids, size_t n, const char *const *paths,
                       uint64_t entries)
{
    uint32_t shards = ids[0].n;
    if (n != shards)
        return fail("--merge-results: %zu files for %u shards", n, shards);
    for (size_t i = 0; i < n; i++) {
        if (ids[i].n != shards || strcmp(ids[i].fingerprint, ids[0].fingerprint) ||
            ids[i].plan_selected != ids[0].plan_selected)
            return fail("--merge-results: %s comes from another plan than %s", paths[i],
                        paths[0]);
        for (size_t j = 0; j < i; j++)
            if (ids[j].k == ids[i].k)
                return fail("--merge-results: %s and %s are both shard %u", paths[j], paths[i],
                            ids[i].k);
    }
    if (entries != ids[0].plan_selected)
        return fail("--merge-results: the shards hold %llu contexts, the plan selects %llu",
                    (unsigned long long)entries, (unsigned long long)ids[0].plan_selected);
    return MCZ_OK;
}

static int merge_main(const options *o, char **paths, size_t n)
{
    replay_table t = {.style = REPLAY_STYLE_MCZ, .interleave = o->interleave};
    replay_shard_id *ids = calloc(n, sizeof *ids);
    if (!ids)
        return fail("out of memory");
    int code = REPLAY_EXIT_GENERAL;
    mcz_diag d;
    size_t i = 0;
    for (; i < n; i++) {
        if (replay_table_read_results(&t, paths[i], &ids[i], &d) != MCZ_OK) {
            fail_diag(&d);
            break;
        }
    }
    /* the shards' entries are checked (and counted) by one walk before anything is written */
    if (i == n && replay_table_finish(&t, &d) != MCZ_OK)
        fail_diag(&d);
    else if (i == n && merge_check(ids, n, (const char *const *)paths, t.count) == MCZ_OK) {
        replay_shard_id whole = ids[0];
        whole.k = whole.n = 1;
        code = conclude(o, &t, &whole);
    }
    replay_table_free(&t);
    free(ids);
    return code;
}

/* ---- Replaying ------------------------------------------------------------------------------ */

/* The --exec command as words, and a private temporary directory for the units. */
typedef struct exec_setup {
    char *words;
    char **argv;
    bool words_given; /* argv is the options' --exec-word list */
    char temp_dir[4096];
    bool borrowed; /* temp_dir is the parent's (a worker started again) */
} exec_setup;

static int exec_prepare(const options *o, exec_setup *es)
{
    if (o->exec_words) {
        es->argv = o->exec_words; /* owned by the options */
        es->words_given = true;
        return -1;
    }
    const char *command = o->exec;
    es->words = strdup(command);
    es->argv = calloc(strlen(command) / 2 + 2, sizeof *es->argv);
    if (!es->words || !es->argv)
        return fail("out of memory");
    size_t n = 0;
    char *save = NULL;
    for (char *w = strtok_r(es->words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        es->argv[n++] = w;
    if (n == 0)
        return fail_usage("--exec: empty command");
    return -1;
}

/* The run's private temporary directory: the units' files, the workers' details rows. */
static int temp_prepare(exec_setup *es)
{
    const char *inherited = replay_proc_worker_temp_dir();
    if (inherited) { /* a worker started again works in its parent's, which removes it */
        snprintf(es->temp_dir, sizeof es->temp_dir, "%s", inherited);
        es->borrowed = true;
        return -1;
    }
    const char *tmp = tool_temp_base();
    snprintf(es->temp_dir, sizeof es->temp_dir, "%s/mcz-replay.XXXXXX", tmp);
    if (!tool_mkdtemp(es->temp_dir)) {
        es->temp_dir[0] = '\0';
        return fail("%s: cannot create a temporary directory in it: %s", tmp, strerror(errno));
    }
    return -1;
}

static void exec_cleanup(exec_setup *es)
{
    if (es->temp_dir[0] && !es->borrowed)
        tool_remove_tree(es->temp_dir);
    free(es->words);
    if (!es->words_given)
        free(es->argv);
}

static int configure(const options *o, const replay_plan *plan, replay_config *cfg,
                     exec_setup *es)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->style = REPLAY_STYLE_VERIFY;
    cfg->plan = plan;
    cfg->plugin_arg = o->plugin_arg;
    cfg->strict = o->strict;
    if (o->plugin) {
        char msg[REPLAY_MESSAGE_MAX];
        cfg->mode = REPLAY_MODE_PLUGIN;
        cfg->style = REPLAY_STYLE_MCZ;
        if (replay_plugin_load(o->plugin, &cfg->plugin, msg, sizeof msg) != MCZ_OK)
            return fail("%s", msg);
        if (cfg->plugin->diffs && cfg->plugin->diffs(o->plugin_arg ? o->plugin_arg : ""))
            cfg->style = REPLAY_STYLE_SPMI_DIFFS;
    }
    if (o->plugin || o->exec) {
        int rc = temp_prepare(es);
        if (rc >= 0)
            return rc;
        cfg->temp_dir = es->temp_dir;
    }
    if (o->exec_original && (!o->exec || plan->archive))
        return fail_usage("--exec-original needs --exec and an .mch collection");
    /* --exec gives the command each unit as an .mch file of its own, which mcz-replay writes
     * whatever the input is, so a stream or a URL replays as a file does. --exec-original gives
     * the command the collection's own path, and a stream or URL has none it could open: the
     * library's copy of a stream is unlinked (it leaves nothing behind however the run ends), and
     * a second download by the command would defeat reading the input once. */
    if (o->exec_original && (mcz_input_remote(plan->input) || tool_input_is_stream(plan->path)))
        return fail_usage("--exec-original needs an .mch file (%s has no path to give the "
                          "command; without --exec-original each unit is given as a file)",
                          plan->shown);
    if (o->exec) {
        cfg->mode = REPLAY_MODE_EXEC;
        cfg->exec_original = o->exec_original;
        cfg->repro = o->repro;
        int rc = exec_prepare(o, es);
        if (rc >= 0)
            return rc;
        cfg->exec_argv = es->argv;
        char why[REPLAY_MESSAGE_MAX];
        if (exec_args_check(es->argv, &cfg->style, why, sizeof why) != MCZ_OK)
            return fail_usage("%s", why);
        cfg->exec_toc = o->exec_toc && !o->exec_original &&
                        !tool_spmi_find(es->argv, TOOL_SPMI_MATCH_HASH);
    }
    return -1;
}

static int outcome_code(const options *o, replay_table *t, const replay_plan *plan,
                        const replay_outcome *out)
{
    if (out->init_failed) {
        fail("the replayer failed to initialize: %s", out->message);
        /* superpmi has written its details header by then, and superpmi.py reads the file
         * after every run */
        replay_table none = {.style = t->style};
        mcz_diag d;
        if (o->details && (replay_table_finish(&none, &d) != MCZ_OK ||
                           replay_table_write_details(&none, o->details, &d) != MCZ_OK))
            fail_output(o->details, &d);
        return REPLAY_EXIT_INIT_FAILED;
    }
    if (out->broken) {
        /* what was judged is reported; the rest is not replayed, and listed nowhere */
        options partial = *o;
        partial.results = NULL;
        conclude(&partial, t, NULL);
        fail("%s", out->message);
        fail("%llu of %llu selected contexts were not replayed",
             (unsigned long long)(plan->selected - t->count),
             (unsigned long long)plan->selected);
        return REPLAY_EXIT_GENERAL;
    }
    if (out->stop_signal) {
        options partial = *o;
        partial.results = NULL; /* a partial run must not pass for a shard's results */
        conclude(&partial, t, NULL);
        fail("interrupted: %llu of %llu selected contexts were not replayed",
             (unsigned long long)(plan->selected - t->count),
             (unsigned long long)plan->selected);
        return 128 + out->stop_signal;
    }
    replay_shard_id id = {plan->shard_k, plan->shard_n, "", plan->plan_selected, t->style};
    snprintf(id.fingerprint, sizeof id.fingerprint, "%s", plan->fingerprint);
    return conclude(o, t, &id);
}

/* The --exec command's -repeatCount N (superpmi's progress counts N compiles a context); 0. */
static uint32_t exec_repeat(char **argv)
{
    size_t i = argv ? tool_spmi_find(argv, TOOL_SPMI_REPEAT_COUNT) : 0;
    uint64_t n;
    return i && argv[i + 1] && replay_parse_count(argv[i + 1], 1, INT32_MAX, &n) ? (uint32_t)n : 0;
}

static unsigned workers_wanted(const options *o)
{
    return o->workers ? o->workers : (unsigned)tool_cpu_count();
}

/*
 * Workers started again (Windows: no fork) open a URL each, and without a cache each would fetch
 * the archive's opening again (footer, index, header, dictionary: a few percent of the archive,
 * growing with its contexts) and share nothing. The run gives them a cache of its own then:
 * MCZ_CACHE_DIR set to a new temporary directory before the parent opens the URL, so the
 * parent's fetches fill it and the workers, inheriting the variable, read the opening from it.
 * A cache the user named is used as it is. Returns -1 (go on), or an exit code; dir is "" when
 * no cache was made.
 */
static int worker_cache_prepare(const char *path, char *dir, size_t cap)
{
    dir[0] = '\0';
    if (replay_proc_workers_share_input() || replay_proc_is_worker() || !mcz_path_is_url(path) ||
        getenv("MCZ_CACHE_DIR"))
        return -1;
    const char *tmp = tool_temp_base();
    snprintf(dir, cap, "%s/mcz-replay-cache.XXXXXX", tmp);
    if (!tool_mkdtemp(dir) || tool_setenv("MCZ_CACHE_DIR", dir) != 0) {
        int err = errno;
        if (dir[strlen(dir) - 1] != 'X')
            tool_remove_tree(dir);
        dir[0] = '\0';
        return fail("%s: cannot create a temporary directory in it: %s", tmp, strerror(err));
    }
    return -1;
}

/* The collection at path ("-", a FIFO, a file, a URL) is opened once, here: the workers,
 * forked later, read that input (a stream is read once, by the library; a URL's pieces come
 * through its source), so the program has no stream or URL branch of its own. */
static int replay_main(const options *o, const char *path)
{
    if (!replay_proc_workers_share_input() && tool_input_is_stream(path))
        return fail_usage("%s: a stream cannot be replayed here: each worker process reads the "
                          "collection itself (no fork); save it to a file first",
                          tool_display_name(path, false));
    /* A worker started again repeats the parent's setup: its warnings were the parent's. */
    bool shown = tool_info_shown();
    if (replay_proc_is_worker())
        tool_set_levels(true, false, false);
    replay_plan plan;
    mcz_diag d;
    /* --exec: units of exec_batch / EXEC_PIECES bytes (as long as every worker gets
     * EXEC_UNITS_PER_WORKER of them: balance), which the run gives its commands in spans of up
     * to exec_batch bytes, sized from what its first commands took (replay_span.c) */
    uint32_t min_units = (uint32_t)(EXEC_UNITS_PER_WORKER * workers_wanted(o));
    uint64_t group = o->exec ? o->exec_batch / EXEC_PIECES : 0;
    int rc = replay_plan_open(&plan, path, &d);
    uint64_t mch_group = group, size = mcz_input_size(plan.input);
    if (mch_group > size / min_units)
        mch_group = size / min_units;
    uint64_t unit_size = o->exec && !o->unit_size_given && mch_group > o->unit_size
                             ? mch_group : o->unit_size;
    if (rc != MCZ_OK || replay_plan_build(&plan, o->select, o->match_hash, unit_size, group,
                                          min_units, o->jit_ee, &d) != MCZ_OK) {
        replay_plan_free(&plan);
        int code = fail_diag(&d);
        outputs_empty(o);
        return code;
    }
    if (o->shard_n && replay_plan_shard(&plan, o->shard_k, o->shard_n, &d) != MCZ_OK) {
        replay_plan_free(&plan);
        return fail_diag(&d);
    }
    if (mcz_input_remote(plan.input) && !o->exec) /* --exec units: grouped by --exec-batch */
        replay_plan_group_remote(&plan, workers_wanted(o));
    replay_config cfg;
    exec_setup es = {NULL, NULL, false, "", false};
    int code = configure(o, &plan, &cfg, &es);
    if (replay_proc_is_worker())
        tool_set_levels(true, shown, shown);
    if (code < 0) {
        replay_run_options ro = {.workers = workers_wanted(o),
                                 .timeout = o->timeout, .stride = o->stride,
                                 .progress = !o->quiet && tool_isatty(TOOL_STDERR_FD),
                                 .stats = o->stats,
                                 .failure_limit = o->failure_limit,
                                 .exec_bound = o->exec ? o->exec_batch : 0};
        replay_table t = {.style = cfg.style, .interleave = o->interleave};
        replay_outcome out;
        replay_exec_view view = {&plan, cfg.style, o->fail_list, o->select != NULL,
                                 exec_repeat(cfg.exec_argv), o->interleave, tool_now()};
        rc = replay_proc_run(&cfg, &ro, &t, &out);
        if (o->stats)
            replay_table_print_stats(&t, stderr);
        if (cfg.mode == REPLAY_MODE_EXEC)
            replay_exec_output(cfg.temp_dir, &view, stdout, &exec_extra);
        if (rc != MCZ_OK && !out.init_failed && !out.broken)
            code = fail("%s", out.message[0] ? out.message : mcz_error_name(rc));
        else
            code = outcome_code(o, &t, &plan, &out);
        if (cfg.mode == REPLAY_MODE_EXEC && !out.init_failed && tool_info_shown())
            replay_exec_trailer(&view, stdout);
        replay_table_free(&t);
    }
    exec_cleanup(&es);
    replay_plan_free(&plan);
    return code;
}

int main(int argc, char **argv)
{
    tool_set_program("mcz-replay");
    /* The same bytes as on Linux, and --exec commands' output passed on unchanged (a worker
     * started again gets it too). Workers' lines are passed on as they come: msvcrt buffers a
     * stderr that is not a console, which C's stderr never is elsewhere. */
    tool_stdio_binary();
    setvbuf(stderr, NULL, _IONBF, 0);
    tool_signals_install(); /* the run itself installs its own (replay_proc.c) */
    if (tool_check_library() != 0)
        return 255;
    if (tool_wants_version(argc, argv)) {
        tool_print_version();
        return 0;
    }
    options o;
    int code = parse_args(argc, argv, &o);
    if (code < 0)
        code = outputs_check(&o, o.operands, o.operand_count);
    char cache[4096] = "";
    if (code < 0 && !o.merge)
        code = worker_cache_prepare(o.operands[0], cache, sizeof cache);
    if (code < 0)
        code = o.merge ? merge_main(&o, o.operands, o.operand_count)
                       : replay_main(&o, o.operands[0]);
    if (cache[0])
        tool_remove_tree(cache);
    free(o.operands);
    free(o.exec_words);
    /* A closed pipe on stdout (mcz-replay ... | head) is not an error; a full disk is. */
    if (tool_close_stdout() != 0 && code == 0)
        code = 255;
    return code;
}
