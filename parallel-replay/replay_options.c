/*
 * replay_options.c - mcz-replay's options as one table, and everything made from it: the
 * parsing of a command line, --help, the nearest option offered for an unknown word, the
 * outputs checked before any work (replay_options.h).
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
    tool_verror(fmt, ap);
    va_end(ap);
    fputs("(mcz-replay --help for usage)\n", stderr);
    return REPLAY_EXIT_GENERAL;
}

/* ---- The setters of the options no type describes ---------------------------------------------- */

/* --shard K/N, 1 <= K <= N <= 65535. */
static bool set_shard(replay_options *o, const char *value)
{
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
static bool set_match_hash(replay_options *o, const char *value)
{
    if (strlen(value) != 32 || strspn(value, "0123456789abcdefABCDEF") != 32)
        return false;
    o->match_hash = value;
    return true;
}

static bool set_jit_ee(replay_options *o, const char *value)
{
    o->jit_ee = mcz_jit_ee_find(value);
    return o->jit_ee != NULL;
}

/* ---- The table -------------------------------------------------------------------------------- */

#define FIELD(f) .offset = offsetof(replay_options, f), .size = sizeof(((replay_options *)0)->f)
#define FLAG(f) .type = REPLAY_OPT_FLAG, FIELD(f)
#define STRING(f) .type = REPLAY_OPT_STRING, FIELD(f)
#define OUTPUT(f) .type = REPLAY_OPT_OUTPUT, FIELD(f)
#define COUNT(f, lo, hi) .type = REPLAY_OPT_COUNT, FIELD(f), .min = (lo), .max = (hi)
#define SIZE(f, lo, hi) .type = REPLAY_OPT_SIZE, FIELD(f), .min = (lo), .max = (hi)
#define SETTER(fn) .type = REPLAY_OPT_SETTER, .set = (fn)

/* In --help's order. */
static const replay_option options_table[] = {
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
    {.name = "exec-word", .arg = "WORD", .type = REPLAY_OPT_WORDS, FIELD(exec_words),
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
    {.name = "timeout", .arg = "SECONDS", .type = REPLAY_OPT_SECONDS, FIELD(timeout),
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
    {.name = "jit-ee", .arg = "VERSION", SETTER(set_jit_ee),
     .want = "not a JIT-EE version or GUID mcz knows (mcs -printJITEEVersion --list lists them)",
     .help = "read the collection as this JIT-EE version (name or GUID) instead\n"
             "of the one it records or its packets show"},
    {.name = "strict", FLAG(strict),
     .help = "verify: a packet id the packet table does not know fails the\n"
             "context (without: the context passes, and a warning counts them)"},
    {.name = "q", .alias = "quiet", FLAG(quiet),
     .help = "no progress line (shown only when stderr is a terminal)"},
    {.name = "h", .alias = "help", .type = REPLAY_OPT_HELP, .help = "this text"},
    /* Hidden: superpmi-style stride/offset sharding and per-worker I/O figures, for
     * bench/replay.sh's comparison, not for users. */
    {.name = "stride", FLAG(stride), .hidden = true,
     .help = "worker i of N takes units i, i+N, ... (as superpmi -p shares contexts),\n"
             "not the next unit free"},
    {.name = "stats", FLAG(stats), .hidden = true,
     .help = "print on stderr each worker's units, contexts, bytes read and\n"
             "decompressed, and how many results were held at once"},
};

#define OPTION_COUNT (sizeof options_table / sizeof *options_table)

const replay_option *replay_option_at(size_t i)
{
    return i < OPTION_COUNT ? &options_table[i] : NULL;
}

size_t replay_option_count(void)
{
    return OPTION_COUNT;
}

const char *replay_option_dashes(const char *name)
{
    return strlen(name) == 1 ? "-" : "--";
}

/* ---- --help ----------------------------------------------------------------------------------- */

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

/* The options' column: names from the third, their text from the twenty-second (or two blanks
 * after a longer left column). */
#define HELP_INDENT 2
#define HELP_TEXT_COLUMN 21

/* A growing text; failed once an allocation failed (the text is then dropped). */
typedef struct help_text {
    char *buf;
    size_t len, cap;
    bool failed;
} help_text;

static void add(help_text *t, const char *fmt, ...) TOOL_PRINTF(2, 3);

static void add(help_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->failed || n < 0) {
        t->failed = true;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *grown = realloc(t->buf, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* "-j N", "-q, --quiet", "--details FILE". */
static void option_left(const replay_option *opt, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s%s", replay_option_dashes(opt->name), opt->name);
    if (opt->alias && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %s%s", replay_option_dashes(opt->alias),
                      opt->alias);
    if (opt->arg && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " %s", opt->arg);
}

static void add_option(help_text *t, const replay_option *opt)
{
    char left[64];
    option_left(opt, left, sizeof left);
    add(t, "%*s%-*s  ", HELP_INDENT, "", HELP_TEXT_COLUMN - HELP_INDENT - 2, left);
    for (const char *line = opt->help; *line;) {
        size_t len = strcspn(line, "\n");
        add(t, "%.*s\n", (int)len, line);
        line += len;
        if (*line == '\n' && *++line)
            add(t, "%*s", HELP_TEXT_COLUMN, "");
    }
}

char *replay_options_help(void)
{
    help_text t = {NULL, 0, 0, false};
    add(&t, "%s", help_head);
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        assert(options_table[i].help); /* every option says what it does, hidden or not */
        if (!options_table[i].hidden)
            add_option(&t, &options_table[i]);
    }
    add(&t, "%s", help_tail);
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}

static int print_help(void)
{
    char *text = replay_options_help();
    if (!text)
        return replay_fail("out of memory");
    fputs(text, stdout);
    free(text);
    return 0;
}

/* ---- The nearest option ----------------------------------------------------------------------- */

/* Whether word is one of the blank-separated words of list, compared without case. */
static bool listed(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *w = list; w && *w; w += strspn(w, " ")) {
        size_t n = strcspn(w, " ");
        if (n == len && tool_strncasecmp(w, word, n) == 0)
            return true;
        w += n;
    }
    return false;
}

/* How far name is from candidate; SIZE_MAX when too far to be meant. */
static size_t distance_to(const char *name, const char *candidate)
{
    size_t d = tool_edit_distance(name, strlen(name), candidate);
    return d < strlen(candidate) + (strlen(name) > 2) ? d : SIZE_MAX;
}

const char *replay_options_nearest(const char *name, char *buf, size_t cap)
{
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const replay_option *opt = &options_table[i];
        if (listed(opt->others, name)) {
            snprintf(buf, cap, "%s%s%s%s", replay_option_dashes(opt->name), opt->name,
                     opt->arg ? " " : "", opt->arg ? opt->arg : "");
            return buf;
        }
    }
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const char *names[] = {options_table[i].name, options_table[i].alias};
        for (size_t k = 0; k < 2; k++) {
            size_t d = names[k] ? distance_to(name, names[k]) : SIZE_MAX;
            if (d < best_d) {
                best = names[k];
                best_d = d;
            }
        }
    }
    if (!best)
        return NULL;
    snprintf(buf, cap, "%s%s", replay_option_dashes(best), best);
    return buf;
}

static int unknown_option(const char *word, const char *name)
{
    char near[64];
    if (replay_options_nearest(name, near, sizeof near))
        return replay_fail_usage("unknown option '%s'; did you mean %s?", word, near);
    return replay_fail_usage("unknown option '%s'", word);
}

/* ---- Parsing ---------------------------------------------------------------------------------- */

static void *field_of(replay_options *o, const replay_option *opt)
{
    return (char *)o + opt->offset;
}

/* A bad value of opt: "NAME VALUE: want" (an empty one said as such). */
static int refuse(const replay_option *opt, const char *value)
{
    const char *dashes = replay_option_dashes(opt->name);
    if (!*value)
        return replay_fail_usage("%s%s: empty value; %s", dashes, opt->name, opt->want);
    return replay_fail_usage("%s%s %s: %s", dashes, opt->name, value, opt->want);
}

static bool set_count(replay_options *o, const replay_option *opt, const char *value)
{
    uint64_t v;
    if (tool_parse_count(value, opt->type == REPLAY_OPT_SIZE, opt->min, opt->max, &v) != MCZ_OK)
        return false;
    assert(opt->size == sizeof(uint64_t) || (opt->size == sizeof(uint32_t) &&
                                             opt->max <= UINT32_MAX));
    if (opt->size == sizeof(uint32_t)) {
        uint32_t narrow = (uint32_t)v;
        memcpy(field_of(o, opt), &narrow, sizeof narrow);
    } else {
        memcpy(field_of(o, opt), &v, sizeof v);
    }
    return true;
}

static bool set_seconds(replay_options *o, const replay_option *opt, const char *value)
{
    char *end;
    errno = 0;
    double seconds = strtod(value, &end);
    if (*end || errno || !(seconds > 0 && seconds < 1e7))
        return false;
    assert(opt->size == sizeof seconds);
    memcpy(field_of(o, opt), &seconds, sizeof seconds);
    return true;
}

/* Returns -1 to go on, or the exit code. */
static int add_word(replay_options *o, const replay_option *opt, char *word)
{
    replay_words *list = field_of(o, opt);
    char **grown = realloc(list->words, (list->count + 2) * sizeof *grown);
    if (!grown)
        return replay_fail("out of memory");
    grown[list->count++] = word;
    grown[list->count] = NULL;
    list->words = grown;
    return -1;
}

/* Stores value as opt says. Returns -1 to go on, or the exit code. */
static int apply(replay_options *o, const replay_option *opt, char *value)
{
    bool good = true;
    switch (opt->type) {
    case REPLAY_OPT_FLAG:
        assert(opt->size == sizeof(bool));
        *(bool *)field_of(o, opt) = true;
        break;
    case REPLAY_OPT_STRING:
    case REPLAY_OPT_OUTPUT:
        assert(opt->size == sizeof(const char *));
        good = strlen(value) >= opt->min;
        if (good)
            *(const char **)field_of(o, opt) = value;
        break;
    case REPLAY_OPT_COUNT:
    case REPLAY_OPT_SIZE: good = set_count(o, opt, value); break;
    case REPLAY_OPT_SECONDS: good = set_seconds(o, opt, value); break;
    case REPLAY_OPT_WORDS: return add_word(o, opt, value);
    case REPLAY_OPT_SETTER: good = opt->set(o, value); break;
    case REPLAY_OPT_HELP: return print_help();
    }
    return good ? -1 : refuse(opt, value);
}

static const replay_option *option_named(const char *name)
{
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const replay_option *opt = &options_table[i];
        if (strcmp(opt->name, name) == 0 || (opt->alias && strcmp(opt->alias, name) == 0))
            return opt;
    }
    return NULL;
}

/* One option word at argv[*i] (and its value); returns -1 to go on, or the exit code. */
static int parse_word(int argc, char **argv, int *i, replay_options *o)
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
    const replay_option *opt = option_named(name);
    if (!opt)
        return unknown_option(word, name);
    char *value = ""; /* apply's value is never NULL; options without a value ignore it */
    if (opt->arg && eq)
        value = word + (eq + 1 - word);
    else if (opt->arg && *i + 1 < argc)
        value = argv[++*i];
    else if (opt->arg)
        return replay_fail_usage("%s wants a value", word);
    else if (eq)
        return replay_fail_usage("%s%s takes no value", replay_option_dashes(name), name);
    return apply(o, opt, value);
}

/* The rules between options, and the operands. Returns -1 to go on, or the exit code. */
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
    return check_combination(o);
}

void replay_options_free(replay_options *o)
{
    free(o->operands);
    free(o->exec_words.words);
    o->operands = NULL;
    o->exec_words.words = NULL;
}

int replay_options_each_output(const replay_options *o,
                               int (*check)(const char *option, const char *path))
{
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const replay_option *opt = &options_table[i];
        if (opt->type != REPLAY_OPT_OUTPUT)
            continue;
        const char *path;
        memcpy(&path, (const char *)o + opt->offset, sizeof path);
        char shown[64];
        snprintf(shown, sizeof shown, "%s%s", replay_option_dashes(opt->name), opt->name);
        int code = path ? check(shown, path) : -1;
        if (code >= 0)
            return code;
    }
    return -1;
}
