/*
 * replay_options.c - mcz-replay's options as one table (replay_options.h), read by
 * tools/tool_options.c; the rules between options.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_options.h"

/* ---- Messages --------------------------------------------------------------------------------- */

int replay_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tool_verror(fmt, ap);
    va_end(ap);
    return REPLAY_EXIT_GENERAL;
}

int replay_fail_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = tool_options_vusage_error(&replay_options_def, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- The setters of the options no type describes ---------------------------------------------- */

/* --shard K/N, 1 <= K <= N <= 65535. */
static bool set_shard(void *options, const char *value)
{
    replay_options *o = options;
    const char *slash = strchr(value, '/');
    uint64_t k, n;
    char head[32];
    if (!slash || (size_t)(slash - value) >= sizeof head)
        return false;
    memcpy(head, value, (size_t)(slash - value));
    head[slash - value] = '\0';
    if (tool_parse_count(head, false, 1, 65535, &k) != MCZ_OK ||
        tool_parse_count(slash + 1, false, 1, 65535, &n) != MCZ_OK || k > n)
        return false;
    o->shard_k = (uint32_t)k;
    o->shard_n = (uint32_t)n;
    return true;
}

/* --match-hash: an identity hash as 32 hex digits. */
static bool set_match_hash(void *options, const char *value)
{
    replay_options *o = options;
    if (strlen(value) != 32 || strspn(value, "0123456789abcdefABCDEF") != 32)
        return false;
    o->match_hash = value;
    return true;
}

/* ---- The table -------------------------------------------------------------------------------- */

#define FIELD(f) TOOL_FIELD(replay_options, f)
#define FLAG(f) TOOL_FLAG(replay_options, f)
#define STRING(f) TOOL_STRING(replay_options, f)
#define OUTPUT(f) TOOL_OUTPUT(replay_options, f)
#define COUNT(f, lo, hi) TOOL_COUNT(replay_options, f, lo, hi)
#define SIZE(f, lo, hi) TOOL_SIZE(replay_options, f, lo, hi)
#define SETTER(fn) TOOL_SETTER(fn)

/* In --help's order. */
static const tool_option options_table[] = {
    {.name = "j", .arg = "N", COUNT(workers, 1, 4096),
     .want = "want a number of workers from 1 to 4096", .others = "jobs workers p parallel",
     .help = "worker processes (default: one per online core)"},
    {.name = "c", .arg = "LIST", STRING(select),
     .help = "only these contexts: ranges such as 1-5,9 or a .mcl file"},
    {.name = "f", .arg = "FILE", OUTPUT(fail_list), .others = "failureList failingMCList",
     .help = "write the numbers of the contexts that did not pass to FILE (.mcl)"},
    {.name = "details", .arg = "FILE", OUTPUT(details),
     .help = "superpmi's -details CSV, one row per context (not excluded ones)"},
    {.name = "plugin", .arg = "LIB.so", STRING(plugin),
     .help = "replay through a plugin (ABI: parallel-replay/mcz_replay.h)"},
    {.name = "plugin-arg", .arg = "S", STRING(plugin_arg),
     .help = "string given to the plugin's init()"},
    {.name = "exec", .arg = "\"CMD ...\"", STRING(exec),
     .help = "run a command per work unit (contract below; words split on blanks)"},
    {.name = "exec-original", FLAG(exec_original),
     .help = ".mch input: give the command the original file and -c RANGES"},
    {.name = "exec-word", .arg = "WORD", .type = TOOL_OPT_WORDS, FIELD(exec_words),
     .help = "the command one word at a time (repeat; no splitting on blanks)"},
    {.name = "match-hash", .arg = "HASH", SETTER(set_match_hash),
     .want = "want 32 hex digits (an identity hash)",
     .help = "only contexts whose stored identity hash is HASH (superpmi's -m;\n"
             "read from the archive's index or the .mch's .mct: only the units\n"
             "holding them are read)"},
    {.name = "order-as-parallel", .arg = "N", COUNT(interleave, 1, 64),
     .want = "want superpmi's -p count, 1 to 64",
     .help = "write --details rows and the commands' stdout in the order\n"
             "superpmi -p N writes them (its worker i has contexts i+1, i+1+N,\n"
             "...), not by context number"},
    {.name = "exec-toc", FLAG(exec_toc),
     .help = "the command is superpmi: each unit comes with an .mct of its\n"
             "contexts' global numbers and -c them, so superpmi itself (and\n"
             "the JIT) numbers them as over the whole collection"},
    {.name = "repro", .arg = "PREFIX", STRING(repro), .min = 1, .others = "r reproName",
     .want = "want the prefix of the .mc files",
     .help = "--exec: write each context that failed as PREFIX-N.mc (superpmi -r)"},
    {.name = "failure-limit", .arg = "N", COUNT(failure_limit, 1, UINT32_MAX),
     .want = "want a number of failures from 1", .others = "failureLimit",
     .help = "hand out no more units once N contexts failed (superpmi's\n"
             "-failureLimit, counted over the whole run)"},
    {.name = "verbosity", .arg = "LETTERS", STRING(verbosity), .others = "v",
     .help = "superpmi's -v: without n, print only errors and the commands'\n"
             "output (no summary line, no warnings of mcz-replay's own)"},
    {.name = "timeout", .arg = "SECONDS", .type = TOOL_OPT_SECONDS, FIELD(timeout),
     .want = "want a positive number of seconds",
     .help = "kill a worker stuck on a context (an --exec command: on a unit) and\n"
             "report the context as timed out; the rest of its unit goes on"},
    {.name = "shard", .arg = "K/N", SETTER(set_shard), .want = "want K/N with 1 <= K <= N",
     .help = "replay only shard K of N: contiguous contexts of near-equal size"},
    {.name = "results", .arg = "FILE", OUTPUT(results),
     .help = "write this run's results for --merge-results"},
    {.name = "merge-results", FLAG(merge),
     .help = "merge the RESULTS files of all N shards: the same summary, -f list,\n"
             "details and exit code as one run over the whole collection"},
    {.name = "unit-size", .arg = "SIZE", SIZE(unit_size, 1, UINT32_MAX),
     .want = "want a size in bytes such as 1048576 or 4M",
     .help = ".mch input: bytes of contexts per work unit, e.g. 4M (default 1M;\n"
             "with --exec, a 16th of --exec-batch when larger)"},
    {.name = "exec-batch", .arg = "SIZE", SIZE(exec_batch, 0, UINT32_MAX),
     .want = "want a size in bytes such as 0 or 4M",
     .help = "--exec: the bound: no command gets more than SIZE bytes of\n"
             "contexts, so the run's unit files in TMPDIR (the next one written\n"
             "while a command runs) hold at most 2 x -j x SIZE (default\n"
             REPLAY_EXEC_BATCH_TEXT "; 0: a chunk each). Within it the\n"
             "batch is sized from what the first commands took: a start that\n"
             "costs much against its contexts gets more of them per command,\n"
             "and with -j over 1 the next command starts while one runs (two\n"
             "in flight a worker; see parallel-replay/README.md)"},
    {.name = "jit-ee", .arg = "VERSION", TOOL_JIT_EE(replay_options, jit_ee),
     .help = "read the collection as this JIT-EE version (name or GUID) instead\n"
             "of the one it records or its packets show"},
    {.name = "strict", FLAG(strict),
     .help = "verify: a packet id the packet table does not know fails the\n"
             "context (without: the context passes, and a warning counts them)"},
    {.name = "q", .alias = "quiet", FLAG(quiet),
     .help = "no progress line (shown only when stderr is a terminal)"},
    {.name = "h", .alias = "help", .type = TOOL_OPT_HELP, .help = "this text"},
    /* Hidden: superpmi-style stride/offset sharding and per-worker I/O figures, for
     * bench/replay.sh's comparison, not for users. */
    {.name = "stride", FLAG(stride), .hidden = true,
     .help = "worker i of N takes units i, i+N, ... (as superpmi -p shares contexts),\n"
             "not the next unit free"},
    {.name = "stats", FLAG(stats), .hidden = true,
     .help = "print on stderr each worker's units, contexts, bytes read and\n"
             "decompressed, and how many results were held at once"},
};

static const char help_head[] =
    "Usage: mcz-replay [options] COLLECTION\n"
    "   or: mcz-replay --merge-results [-f FILE] [--details FILE] [--results FILE] RESULTS...\n"
    "\n"
    "Replays every method context of COLLECTION (.mcz archive or .mch file) in worker\n"
    "processes. Work is handed out by unit (an archive chunk, or about 1 MiB of consecutive\n"
    "contexts of an .mch), so each worker decompresses only its own units. Context numbers are\n"
    "global (1-based, file-wide) everywhere. Contexts whose identity hash is listed in\n"
    "COLLECTION.exc (or NAME.exc) are excluded, as superpmi does.\n"
    "\n"
    "options:\n";

static const char help_tail[] =
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

const tool_options_def replay_options_def = {
    .options = options_table,
    .count = sizeof options_table / sizeof *options_table,
    .help_head = help_head,
    .help_tail = help_tail,
    .usage_exit = REPLAY_EXIT_GENERAL,
    .fail_exit = REPLAY_EXIT_GENERAL,
    .usage_hint = "(mcz-replay --help for usage)",
};

/* ---- The rules between options ---------------------------------------------------------------- */

/* Those rules, and the operands. Returns -1 to go on, or the exit code. */
static int check_combination(replay_options *o)
{
    if (o->exec && o->exec_words.words)
        return replay_fail_usage(
            "--exec and --exec-word exclude each other (give the command once)");
    if (o->exec_words.words)
        o->exec = o->exec_words.words[0]; /* from here on, o->exec says an --exec run */
    if (o->plugin && o->exec)
        return replay_fail_usage("--plugin and --exec exclude each other");
    if (o->repro && !o->exec)
        return replay_fail_usage("--repro needs --exec");
    if (o->verbosity && !strchr(o->verbosity, 'n') && !strchr(o->verbosity, 'N'))
        tool_set_levels(true, false, false); /* superpmi's -v without n: nothing of mcz's own */
    if (!o->merge && o->operand_count != 1)
        return o->operand_count ? replay_fail_usage("want one COLLECTION, not %zu (%s, %s...)",
                                                    o->operand_count, o->operands[0],
                                                    o->operands[1])
                                : replay_fail_usage("want one COLLECTION");
    if (o->merge && o->operand_count < 1)
        return replay_fail_usage("--merge-results wants the results files");
    return -1;
}

int replay_options_parse(int argc, char **argv, replay_options *o)
{
    memset(o, 0, sizeof *o);
    o->exec_batch = REPLAY_EXEC_BATCH_DEFAULT;
    o->operands = calloc((size_t)argc + 1, sizeof *o->operands);
    if (!o->operands)
        return replay_fail("out of memory");
    int rc = tool_options_parse(&replay_options_def, argc, argv, o, o->operands,
                                &o->operand_count);
    return rc >= 0 ? rc : check_combination(o);
}

void replay_options_free(replay_options *o)
{
    free(o->operands);
    free(o->exec_words.words);
    o->operands = NULL;
    o->exec_words.words = NULL;
}
