/*
 * spmi_today.c - a stand-in for today's superpmi, for the tests of mcz-replay --exec and of a
 * drop-in superpmi: the command line, the console lines, the -f list, the -details CSV, the
 * repro files, the exit codes and the -p parent of the newest superpmi sources, with results
 * made up from each context's bytes. (tests/collector/spmi_standin.c is the older superpmi.)
 *
 *   spmi_today [options] [jit[.so]] [jit2[.so]] input.mch
 *
 * Which source each rule follows (dotnet/runtime and forks, path under src/coreclr/):
 * - command line: tools/superpmi/superpmi/commandline.cpp at filipnavara/runtime@c659a8bb48140ce
 *   161dd3890fd2aa4d06f2fbfac. Switches in that file's order, first match wins: help/HELP/?,
 *   load, jit, reproName, failingMCList (any case-insensitive prefix), target, boe, boa, box,
 *   ignoreStoredConfig (compared on their first 6, 3, 3, 3, 18 characters), verbosity,
 *   writeLogFile, emitMethodStats, details, applyDiff, compile, coredistools, matchHash,
 *   streaming, parallel (prefixes), skipCleanup, repeatCount (whole words), stride, jitoption,
 *   jit2option (prefixes). A word without '-' is a JIT when it ends in the platform's shared
 *   library suffix (".so" here, ".dylib" on macOS, ".dll" on Windows), the input when it ends in
 *   .mc/.mch/.mct, else "Unknown file type passed as argument". Usage errors print the usage
 *   banner (its first line is what the -p parent looks for) and exit -1 (255).
 * - -c lists: tools/superpmi/superpmi-shared/mclist.cpp at jkoritzinsky/runtime@d6222c85106fe05
 *   bb99fc5ea9a4f9686da298334 (ranges "a-b", numbers, commas, "-5" meaning 1-5, or an .mcl
 *   file; rejected when the first entry is 0 or the list does not strictly increase). An empty
 *   .mcl file selects nothing (the source reads past its empty array there).
 * - main loop, summary, -f, -r, -failureLimit, -repeatCount, exit codes, the -details rows:
 *   tools/superpmi/superpmi/superpmi.cpp at filipnavara/runtime@c659a8bb. One row per compile,
 *   failures included; "Context size" is the context's totalLen (the reader's buffer size);
 *   "Method full name" quoted as FileWriter::PrintQuotedCsvField does
 *   (tools/superpmi/superpmi-shared/fileio.cpp: always in quotes, inner quotes doubled); int
 *   metrics as %d, int64 as %lld, double as %f. Failed compiles report no name, no tier and
 *   zero metrics. "Instructions" is 0, as without a PIN tool.
 * - the JIT's failure to load: tools/superpmi/superpmi/jitinstance.cpp at filipnavara@c659a8bb
 *   ("LoadLibrary failed", then "Startup of JIT(%s) failed %d", exit -2, i.e. 254). The JIT
 *   is loaded at the first compile, as there; a JIT here is any existing file.
 * - console lines: tools/superpmi/superpmi-shared/logging.cpp at dotnet/runtime@41f41bd825d74
 *   c36218b53f5d1d06bde0b2e62f8. Letters e (ERROR:, stderr), w (WARNING:, stderr), m
 *   (MISSING:, stdout), i (ISSUE:, stdout), n (info, stdout, no prefix), v (verbose), d
 *   (debug), a (all), q (none); the default is "ewminv". So under -v ewi the "Loaded ..."
 *   summary is not printed.
 * - an assert: the JIT's assertAbort (jit/error.cpp, dotnet/runtime) formats "Assertion failed
 *   '%s' in '%s' during '%s' (IL size %d; hash 0x%08x; %s)\n"; superpmi's MyICJI::doAssert
 *   logs it as an issue "#<context> <file> (<line>) - <message>", as the sample line in
 *   superpmi.py's parse_replay_asserts (adamperlin/runtime@cfcbad413377cd9b4cf1785ca2a119f80b7
 *   65a68 src/coreclr/scripts/superpmi.py) shows; the message's own newline leaves an empty
 *   line after it. Then "Exception thrown: DebugBreak or AV Exception 123"
 *   (superpmi-shared/spmiutil.cpp, errorhandling.cpp). A miss is "MISSING: Method context %d
 *   failed to replay: SuperPMI assertion failed (missing key ...)" (jitinstance.cpp and the
 *   AssertMapAndKeyExist macro of superpmi-shared/errorhandling.h).
 * - -p: tools/superpmi/superpmi/parallelsuperpmi.cpp, the newest copy found (fork and execv on
 *   Unix, minipal random; its repository is not known). Worker i runs "self -stride i+1 N
 *   [-failingMCList T.mcl] [-details T.csv] -v ewmin <the parent's options>" with stdout and
 *   stderr in $TMPDIR/ParallelSuperPMI-{stdout,stderr}-R-i.txt; the parent passes stderr
 *   through, sums the "Loaded" lines of stdout, passes the rest through, takes the usage
 *   banner for a usage error (nothing merged), merges the -f lists sorted as "%d\r\n" and the
 *   details in worker order under one header (skipping a worker that did not end with 0-3),
 *   and removes its temporary files unless -skipCleanup. Exit codes by priority: general
 *   failure > JIT failed to load > errors > diffs > misses > success; any other code of a
 *   worker, 254 and 255 included, is "Child process %d exited with code %u", a general
 *   failure. The argument vector is built directly rather than re-split from one string.
 * - metric columns: jit/jitmetadatalist.h; 70 metrics as at hez2010/runtime@31d9c3bbbc086c971
 *   db06a8f664e5dbf8f1b747b (77 replay / 150 diff columns) unless STANDIN_METRICS says 16
 *   (dotnet/runtime@00689c8a26bd87df457e5ea3022ed1126e250dec) or 106
 *   (AndyAyersMS/runtime@0bc2ab65f2eaaa593f9495091a2fcb98d529473f).
 * - the disassembly: superpmi.py's asmdiffs runs "superpmi -c N ... jit mch" with
 *   DOTNET_JitStdOutFile=<dir>/N.dasm and DOTNET_JitDisasm=*, reads that file and compares
 *   the base JIT's text with the diff JIT's. Here each compile that succeeds appends a listing
 *   to that file when both variables are set; the file is created at the JIT's load even
 *   when nothing is compiled. The listing's code of a context with diffs depends on the JIT
 *   (the JIT file's bytes, or its path when the file is empty), so two JITs give different
 *   text for exactly those contexts.
 *
 * Results, from an FNV-1a hash h of the context's bytes (the whole container, as the older
 * stand-in, so both agree): the first JIT errs when h % 11 == 0 and misses when h % 11 == 1; the
 * second JIT errs when h / 11 % 13 == 0 and misses when h / 11 % 13 == 1; with -a and two
 * JITs, a context both compile has a diff when h / 143 % 4 == 0. An error prints an assert
 * when h / 7 % 3 != 0 (first JIT) or h / 5 % 3 != 0 (second); the assert's text is one of four,
 * so contexts share it. Code bytes (h >> 20) % 900 + 10; on a diff the second JIT's are 4 more,
 * 4 fewer or the same, as (h >> 40) % 3 is 0, 1 or 2.
 *
 * - the table of contents: methodcontextreader.cpp at jakobbotsch/runtime@7da2080b11023ac83e7b29
 *   42389be11c2012df44 and tocfile.cpp: with -c and a valid NAME.mch.mct (or NAME.mct), each
 *   listed number is found by binary search on the table's Number and read at its Offset, and
 *   that Number is the context's number everywhere (details, -f, console lines, the listing);
 *   a number not in the table is an error (exit -1). STANDIN_TOC=reject: every table is
 *   refused with a warning, as by the loader at dotnet/runtime@4d0fd37a.
 *
 * - -streaming: streamingsuperpmi.cpp at dotnet/runtime@227b5367 (one JIT; "N!K=V" requests,
 *   each context fetched by the table or a walk over the headers; "[streaming] Done. Status=S";
 *   '#' lines skipped, "quit" or 0 ends it; jit options in requests accepted, not applied).
 *
 * Not done: -emitMethodStats and -writeLogFile (accepted, no
 * file written), -m compares against this program's own hash of the context ("%016llx%016llx"
 * of h and the FNV-1a hash of the reversed bytes), excluded contexts (none). Times ("Total
 * time", the progress line's "at N per second") are the only output that varies by run.
 *
 * Test hooks (environment): STANDIN_METRICS=16|70|106 picks the metric list; STANDIN_CRASH=1
 * aborts on a context with h % 29 == 3 after the rows before it are written;
 * STANDIN_SLEEP_MS=N sleeps N ms before each context; STANDIN_SPIN_US=N spends N microseconds
 * of CPU on each (benchmarks: what a JIT's compile costs); STANDIN_START_MS=N waits N ms when
 * it loads the JIT (what a start costs); STANDIN_TOC=reject refuses .mct tables.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#ifndef _WIN32
#include <sys/wait.h> /* -p only */
#endif
#include <time.h>
#include <unistd.h>

#if defined(__APPLE__)
#define JIT_SUFFIX ".dylib"
#elif defined(_WIN32)
#define JIT_SUFFIX ".dll"
#else
#define JIT_SUFFIX ".so"
#endif

enum { GENERAL_FAILURE = -1, JIT_FAILED_TO_INIT = -2, SUCCESS = 0, ERRORS = 1, DIFFS = 2, MISSES = 3 };
enum { MAX_WORKERS = 64 };                  /* MAXIMUM_WAIT_OBJECTS */
enum { MAX_LIST = 1 << 24 };                /* longest -c list taken */
static const char usage_first_line[] = "SuperPMI is a JIT compiler testing tool.";

/* ---- logging, as superpmi-shared/logging.cpp ---- */

enum {
    LOG_ERROR = 1, LOG_WARNING = 2, LOG_MISSING = 4, LOG_ISSUE = 8,
    LOG_INFO = 16, LOG_VERBOSE = 32, LOG_DEBUG = 64, LOG_ALL = 127
};
static unsigned log_mask = LOG_ERROR | LOG_WARNING | LOG_MISSING | LOG_ISSUE | LOG_INFO | LOG_VERBOSE;

static unsigned log_parse(const char *s)
{
    static const char letters[] = "ewminvd";
    unsigned mask = 0;
    if (strchr(s, 'q'))
        return 0;
    if (strchr(s, 'a'))
        return LOG_ALL;
    for (int i = 0; letters[i]; i++)
        if (strchr(s, letters[i]))
            mask |= 1u << i;
    return mask;
}

__attribute__((format(printf, 2, 3))) static void say(unsigned level, const char *fmt, ...)
{
    static const char *const names[] = {"ERROR", "WARNING", "MISSING", "ISSUE"};
    if (!(level & log_mask))
        return;
    FILE *dest = level <= LOG_WARNING ? stderr : stdout;
    if (level < LOG_INFO)
        fprintf(dest, "%s: ", names[__builtin_ctz(level)]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(dest, fmt, ap);
    va_end(ap);
    fputc('\n', dest);
    fflush(dest);
}

/* ---- options, as commandline.cpp ---- */

typedef struct jit_option {
    char *key, *value;
} jit_option;

typedef struct option_list {
    jit_option *items;
    int count;
} option_list;

typedef struct options {
    const char *jit, *jit2, *input, *repro, *mcl, *target, *verbosity, *stats, *details;
    const char *compile_list, *hash, *stream;
    char *default_jit;
    bool boe, boa, box, ignore_config, apply_diff, parallel, skip_cleanup;
    int workers, failure_limit, repeat, offset, increment;
    int *indexes, index_count;           /* index_count -1: no -c */
    option_list jit_opts, jit_force, jit2_opts, jit2_force;
} options;

static void usage(const char *program)
{
    printf("%s\n\n", usage_first_line);
    printf("Usage: %s [options] [jitname] [jitname2] filename.mc\n", program);
    printf(" (a stand-in: options and exit codes as superpmi's; see superpmi -help)\n");
    fflush(stdout);
}

/* _strnicmp(word, name, strlen(word)) == 0: WORD is a case-insensitive prefix of NAME. */
static bool is_prefix(const char *word, const char *name)
{
    size_t len = strlen(word);
    return len <= strlen(name) && strncasecmp(word, name, len) == 0;
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        fputs("out of memory\n", stderr);
        exit(255);
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* "key=value" or "key#value" (CommandLine::ParseJitOption); a later key replaces the value. */
static bool add_jit_option(option_list *list, const char *text)
{
    size_t k = strcspn(text, "=#");
    if (!text[k] || k >= 1023)
        return false;
    char *key = dup_range(text, k), *value = dup_range(text + k + 1, strlen(text + k + 1));
    for (int i = 0; i < list->count; i++)
        if (strcmp(list->items[i].key, key) == 0) {
            free(list->items[i].value);
            list->items[i].value = value;
            free(key);
            return true;
        }
    jit_option *grown = realloc(list->items, sizeof *grown * (size_t)(list->count + 1));
    if (!grown)
        return false;
    list->items = grown;
    list->items[list->count++] = (jit_option){key, value};
    return true;
}

/* CommandLine::AddJitOption: "[force] key=value" at argv[*i]. */
static bool parse_jit_option(int *i, int argc, char **argv, option_list *plain, option_list *force)
{
    if (*i >= argc)
        return false;
    option_list *target = plain;
    if (is_prefix(argv[*i], "force")) {
        target = force;
        ++*i;
    }
    return *i < argc && add_jit_option(target, argv[*i]);
}

/* ---- -c lists, as mclist.cpp ---- */

typedef struct int_list {
    int *v;
    int n, cap;
} int_list;

static bool list_push(int_list *l, long value)
{
    if (l->n >= MAX_LIST)
        return false;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        int *grown = realloc(l->v, sizeof *grown * (size_t)cap);
        if (!grown)
            return false;
        l->v = grown, l->cap = cap;
    }
    l->v[l->n++] = (int)value;
    return true;
}

static bool parse_ranges(const char *s, int_list *l)
{
    unsigned long start = 0;
    bool in_range = false;
    for (const char *p = s;; p++) {
        bool digit = false;
        unsigned long value = 0;
        for (; isdigit((unsigned char)*p); p++, digit = true)
            value = value * 10 + (unsigned long)(*p - '0');
        if (digit && in_range) {
            in_range = false;
            if (start >= value || value - start > MAX_LIST || value > INT_MAX) {
                say(LOG_ERROR, "Invalid range in '%s'", s);
                return false;
            }
            for (unsigned long v = start + 1; v <= value; v++)
                if (!list_push(l, (long)v))
                    return false;
        } else if (digit) {
            start = value;
            if (value > INT_MAX || !list_push(l, (long)value))
                return false;
        }
        if (*p == '-')
            in_range = true;
        if (!*p)
            break;
    }
    if (l->n == 0) {
        say(LOG_ERROR, "Didn't find a list!");
        return false;
    }
    if (in_range) {
        say(LOG_ERROR, "Found invalid external range in '%s'", s);
        return false;
    }
    return true;
}

/* MCList::getLineData: the first number on each line; lines without one are skipped. */
static bool read_mcl(const char *path, int_list *l)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(LOG_ERROR, "Unable to open '%s'. GetLastError()=%u", path, 2u);
        return false;
    }
    int c;
    bool ok = true;
    while (ok && (c = fgetc(f)) != EOF) {
        if (!isdigit(c))
            continue;
        long value = 0;
        for (; c != EOF && isdigit(c); c = fgetc(f))
            value = value < INT_MAX ? value * 10 + (c - '0') : value;
        ok = list_push(l, value > INT_MAX ? INT_MAX : value);
        while (c != EOF && c != '\n')
            c = fgetc(f);
    }
    fclose(f);
    return ok;
}

static bool process_mcl(const char *arg, options *o)
{
    int_list l = {0};
    bool ranges = strspn(arg, "0123456789-,") == strlen(arg);
    const char *dot = strrchr(arg, '.');
    bool ok = ranges ? parse_ranges(arg, &l)
                     : dot && strcasecmp(dot, ".mcl") == 0 && read_mcl(arg, &l);
    if (ok && l.n > 0 && l.v[0] == 0) {
        say(LOG_ERROR, "MCL list needs to start from 1!");
        ok = false;
    }
    for (int i = 1; ok && i < l.n; i++)
        if (l.v[i - 1] >= l.v[i]) {
            say(LOG_ERROR, "MCL list must be increasing.. found %d -> %d", l.v[i - 1], l.v[i]);
            ok = false;
        }
    if (!ok) {
        free(l.v);
        return false;
    }
    o->indexes = l.v;
    o->index_count = l.n;
    return true;
}

/* ---- the command line ---- */

static const char *const targets[] = {"amd64", "x64", "x86", "arm64", "arm", "arm32",
                                      "loongarch64", "riscv64", "wasm", "wasm32"};

static bool parse_positional(const char *arg, options *o, const char *program)
{
    const char *dot = strrchr(arg, '.');
    if (!dot) {
        usage(program);
        return false;
    }
    if (strcasecmp(dot, JIT_SUFFIX) == 0) {
        if (!o->jit)
            o->jit = arg;
        else if (o->jit2) {
            say(LOG_ERROR, "Too many JITs specified.");
            usage(program);
            return false;
        } else
            o->jit2 = arg;
        return true;
    }
    if (!strcasecmp(dot, ".mc") || !strcasecmp(dot, ".mch") || !strcasecmp(dot, ".mct")) {
        o->input = arg;
        return true;
    }
    say(LOG_ERROR, "Unknown file type passed as argument, '%s'.", arg);
    usage(program);
    return false;
}

static bool all_digits(const char *s)
{
    return strspn(s, "0123456789") == strlen(s);
}

/* One switch at argv[*i] (without its '-'); false on a usage error, usage printed. */
static bool parse_switch(int *i, int argc, char **argv, options *o)
{
    const char *w = argv[*i] + 1, *program = argv[0];
    /* The switches that take a value, in the order of the parser's chain. */
#define VALUE(slot)                                                                        \
    do {                                                                                   \
        if (++*i >= argc)                                                                  \
            goto bad;                                                                      \
        slot = argv[*i];                                                                   \
    } while (0)
    if (is_prefix(w, "help") || is_prefix(w, "?"))
        goto bad;
    if (is_prefix(w, "load")) {
        VALUE(o->input);
        if (!*o->input) {
            say(LOG_ERROR, "Arg '%s' is invalid, name of file missing.", o->input);
            goto bad;
        }
    } else if (is_prefix(w, "jit")) {
        if (++*i >= argc)
            goto bad;
        if (!*argv[*i]) {
            say(LOG_ERROR, "Arg '%s' is invalid, name of jit missing.", argv[*i]);
            goto bad;
        }
        if (o->jit && o->jit2) {
            say(LOG_ERROR, "Too many JITs specified.");
            goto bad;
        }
        *(o->jit ? &o->jit2 : &o->jit) = argv[*i];
    } else if (is_prefix(w, "reproName")) {
        VALUE(o->repro);
        if (!*o->repro) {
            say(LOG_ERROR, "Arg '%s' is invalid, name of prefix missing.", o->repro);
            goto bad;
        }
    } else if (is_prefix(w, "failingMCList"))
        VALUE(o->mcl);
    else if (strncasecmp(w, "target", 6) == 0)
        VALUE(o->target);
    else if (strncasecmp(w, "boe", 3) == 0)
        o->boe = true;
    else if (strncasecmp(w, "boa", 3) == 0)
        o->boa = true;
    else if (strncasecmp(w, "box", 3) == 0)
        o->box = true;
    else if (strncasecmp(w, "ignoreStoredConfig", 18) == 0)
        o->ignore_config = true;
    else if (is_prefix(w, "verbosity")) {
        VALUE(o->verbosity);
        log_mask = log_parse(o->verbosity);
    } else if (is_prefix(w, "writeLogFile")) {
        const char *ignored;
        VALUE(ignored);
        (void)ignored;
    } else if (is_prefix(w, "emitMethodStats"))
        VALUE(o->stats);
    else if (is_prefix(w, "details"))
        VALUE(o->details);
    else if (is_prefix(w, "applyDiff"))
        o->apply_diff = true;
    else if (is_prefix(w, "compile")) {
        VALUE(o->compile_list);
        if (!process_mcl(o->compile_list, o)) {
            say(LOG_ERROR, "Arg '%s' is invalid, needed method context list.", o->compile_list);
            goto bad;
        }
        if (o->hash) {
            say(LOG_ERROR, "Cannot use both method context list and method context hash.");
            goto bad;
        }
        if (o->offset > 0 && o->increment > 0) {
            say(LOG_ERROR, "Cannot use method context list in parallel mode.");
            goto bad;
        }
    } else if (is_prefix(w, "coredistools"))
        ;
    else if (is_prefix(w, "matchHash")) {
        VALUE(o->hash);
        if (strlen(o->hash) != 32) {
            say(LOG_ERROR, "Arg '%s' is invalid, needed a valid method context hash.", o->hash);
            goto bad;
        }
        if (o->index_count > 0) {
            say(LOG_ERROR, "Cannot use both method context list and method context hash.");
            goto bad;
        }
        if (o->offset > 0 && o->increment > 0) {
            say(LOG_ERROR, "Cannot use method context hash in parallel mode.");
            goto bad;
        }
    } else if (is_prefix(w, "streaming")) {
        if (++*i >= argc) {
            say(LOG_ERROR, "'-streaming' must be followed by a file name or 'stdin'.");
            goto bad;
        }
        o->stream = argv[*i];
    } else if (is_prefix(w, "parallel")) {
        o->parallel = true;
        if (*i + 1 < argc && all_digits(argv[*i + 1])) {
            o->workers = atoi(argv[++*i]);
            if (o->workers < 1) {
                say(LOG_ERROR, "Invalid workers count specified, workers count must be at least 1.");
                goto bad;
            }
            if (o->workers > MAX_WORKERS) {
                say(LOG_ERROR, "Invalid workers count specified, workers count cannot be more than %d.",
                    MAX_WORKERS);
                goto bad;
            }
        }
    } else if (is_prefix(w, "failureLimit")) {
        if (++*i >= argc)
            goto bad;
        o->failure_limit = atoi(argv[*i]);
        if (o->failure_limit < 1) {
            say(LOG_ERROR, "Incorrect limit specified for -failureLimit. Limit must be > 0.");
            goto bad;
        }
    } else if (strcasecmp(w, "skipCleanup") == 0)
        o->skip_cleanup = true;
    else if (strcasecmp(w, "repeatCount") == 0) {
        if (++*i >= argc)
            goto bad;
        o->repeat = all_digits(argv[*i]) ? atoi(argv[*i]) : 0;
        if (o->repeat < 1) {
            say(LOG_ERROR, "Invalid repeat count specified. Repeat count must be between 1 and INT_MAX.");
            goto bad;
        }
    } else if (is_prefix(w, "stride")) {
        if (*i + 2 >= argc)
            goto bad;
        o->offset = atoi(argv[++*i]);
        o->increment = atoi(argv[++*i]);
        if (o->offset < 1 || o->increment < 1) {
            say(LOG_ERROR, "Incorrect offset/increment specified for -stride. Offset and increment both must be > 0.");
            goto bad;
        }
        if (o->index_count > 0) {
            say(LOG_ERROR, "Cannot use method context list in parallel mode.");
            goto bad;
        }
        if (o->hash) {
            say(LOG_ERROR, "Cannot use method context hash in parallel mode.");
            goto bad;
        }
    } else if (is_prefix(w, "jitoption")) {
        ++*i;
        if (!parse_jit_option(i, argc, argv, &o->jit_opts, &o->jit_force))
            goto bad;
    } else if (is_prefix(w, "jit2option")) {
        ++*i;
        if (!parse_jit_option(i, argc, argv, &o->jit2_opts, &o->jit2_force))
            goto bad;
    } else {
        say(LOG_ERROR, "Unknown switch '%s' passed as argument.", argv[*i]);
        goto bad;
    }
    return true;
#undef VALUE
bad:
    usage(program);
    return false;
}

static const char *host_arch(void)
{
#if defined(__x86_64__)
    return "x64";
#elif defined(__i386__)
    return "x86";
#elif defined(__aarch64__)
    return "arm64";
#elif defined(__arm__)
    return "arm";
#elif defined(__riscv)
    return "riscv64";
#elif defined(__loongarch64)
    return "loongarch64";
#else
    return NULL;
#endif
}

/* The JIT beside the program: [lib]clrjit.so, or libclrjit_<os>_<target>_<host>.so across. */
static bool default_jit(options *o, const char *program)
{
    const char *slash = strrchr(program, '/'), *host = host_arch();
    if (!slash || !host)
        return false;
    char target[16] = "";
    if (o->target)
        snprintf(target, sizeof target, "%s", !strcasecmp(o->target, "amd64") ? "x64"
                                              : !strcasecmp(o->target, "arm32") ? "arm"
                                                                                : o->target);
    for (char *p = target; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (!strcmp(target, "wasm") || !strcmp(target, "wasm32"))
        return false;
    bool cross = *target && strcmp(target, host) != 0;
    const char *os = !strcmp(target, "arm") || !strcmp(target, "arm64") ? "universal" : "unix";
    size_t len = (size_t)(slash - program) + 64;
    o->default_jit = malloc(len);
    if (!o->default_jit)
        return false;
    if (cross)
        snprintf(o->default_jit, len, "%.*s/libclrjit_%s_%s_%s%s", (int)(slash - program),
                 program, os, target, host, JIT_SUFFIX);
    else
        snprintf(o->default_jit, len, "%.*s/libclrjit%s", (int)(slash - program), program,
                 JIT_SUFFIX);
    o->jit = o->default_jit;
    say(LOG_INFO, "Using default JIT: %s", o->jit);
    return true;
}

static bool parse(int argc, char **argv, options *o)
{
    if (argc == 1) {
        usage(argv[0]);
        return false;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            if (!parse_positional(argv[i], o, argv[0]))
                return false;
        } else if (!argv[i][1]) {
            usage(argv[0]);
            return false;
        } else if (!parse_switch(&i, argc, argv, o))
            return false;
    }
    if (o->target) {
        bool known = false;
        for (size_t k = 0; k < sizeof targets / sizeof *targets; k++)
            known |= strcasecmp(o->target, targets[k]) == 0;
        if (!known) {
            say(LOG_ERROR, "Illegal target architecture specified with -target.");
            usage(argv[0]);
            return false;
        }
    }
    if (o->stream && o->parallel) {
        say(LOG_ERROR, "streaming mode and parallel mode are incompatible.");
        return false;
    }
    if (o->stream && o->jit2) {
        say(LOG_ERROR, "streaming mode and diff mode are incompatible.");
        return false;
    }
    if (!o->input) {
        say(LOG_ERROR, "Missing name of an input file.");
        usage(argv[0]);
        return false;
    }
    if (!o->jit && !default_jit(o, argv[0])) {
        say(LOG_ERROR, "Missing name of a Jit.");
        usage(argv[0]);
        return false;
    }
    if (o->skip_cleanup && !o->parallel) {
        say(LOG_ERROR, "-skipCleanup requires -parallel.");
        usage(argv[0]);
        return false;
    }
    return true;
}

/* ---- the made-up JIT ---- */

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t fnv_reversed(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    while (n)
        h = (h ^ p[--n]) * 1099511628211ull;
    return h;
}

/* The metric columns: three versions of jit/jitmetadatalist.h (see the header comment). */
static const char metrics16[] =
    "PhysicallyPromotedFields LoopsFoundDuringOpts LoopsCloned LoopsUnrolled "
    "LoopAlignmentCandidates LoopsAligned LoopsIVWidened WidenedIVs VarsInSsa HoistedExpressions "
    "RedundantBranchesEliminated JumpThreadingsPerformed CseCount BasicBlocksAtCodegen PerfScore "
    "BytesAllocated";
#define METRICS_HEAD                                                                             \
    "ActualCodeBytes AllocatedHotCodeBytes AllocatedColdCodeBytes ReadOnlyDataBytes GCInfoBytes " \
    "EHClauseCount PhysicallyPromotedFields LoopsFoundDuringOpts LoopsInverted LoopsCloned "
#define METRICS_LOOPS                                                                            \
    "LoopsUnrolled LoopAlignmentCandidates LoopsAligned LoopsIVWidened WidenedIVs "              \
    "UnusedIVsRemoved LoopsMadeDownwardsCounted LoopsStrengthReduced VarsInSsa "                 \
    "HoistedExpressions RedundantBranchesEliminated JumpThreadingsPerformed CseCount "           \
    "BasicBlocksAtCodegen PerfScore BytesAllocated ImporterBranchFold ImporterSwitchFold "       \
    "DevirtualizedCall DevirtualizedCallUnboxedEntry "
#define METRICS_PROFILE                                                                          \
    "GDV ClassGDV MethodGDV MultiGuessGDV ChainedGDV EnumeratorGDV InlinerBranchFold "           \
    "InlineAttempt InlineCount ProfileConsistentBeforeInline ProfileConsistentAfterInline "      \
    "ProfileConsistentBeforeMorph ProfileConsistentAfterMorph "                                  \
    "ProfileSynthesizedBlendedOrRepaired ProfileInconsistentInitially "                          \
    "ProfileInconsistentResetLeave ProfileInconsistentImporterBranchFold "                       \
    "ProfileInconsistentImporterSwitchFold ProfileInconsistentChainedGDV "                       \
    "ProfileInconsistentScratchBB ProfileInconsistentInlinerBranchFold "                         \
    "ProfileInconsistentInlineeScale ProfileInconsistentInlinee "                                \
    "ProfileInconsistentNoReturnInlinee ProfileInconsistentMayThrowInlinee "                     \
    "NewRefClassHelperCalls StackAllocatedRefClasses NewBoxedValueClassHelperCalls "             \
    "StackAllocatedBoxedValueClasses NewArrayHelperCalls StackAllocatedArrays "
#define METRICS_TAIL                                                                             \
    "LocalAssertionCount LocalAssertionOverflow MorphTrackedLocals MorphLocals "                 \
    "EnumeratorGDVProvisionalNoEscape EnumeratorGDVCanCloneToEnsureNoEscape"
static const char metrics70[] = METRICS_HEAD METRICS_LOOPS "DevirtualizedCallRemovedBox "
    METRICS_PROFILE "NewFastAllocateStringCalls StackAllocatedStrings " METRICS_TAIL;
static const char metrics106[] = METRICS_HEAD
    "LoopsRejectedForInsufficientBenefit LoopsUnswitched LoopsRejectedForUnswitching "
    "LoopsRejectedForUnswitchingDegenerate LoopsRejectedForUnswitchingCannotDup "
    "LoopsRejectedForUnswitchingTooLarge LoopsRejectedForUnswitchingTooCostly "
    "LoopsRejectedForUnswitchingSkew LoopsConsideredForUnswitching LoopsCondCouldBeArrLen "
    "LoopsCondCouldBeArrLenNonNull LoopsCondHasArrLenAny LoopsCondCouldBeInvariantLoad "
    "LoopsCondCouldBeInvariantLoadNonFault LoopsCondHasInvariantLoadAny "
    "LoopsWithMultipleUnswitchCandidates LoopsBetterUnswitchCandidateExists "
    "LoopsUnswitchPickedDifferent LoopsMultiCandAdjacent LoopsMultiCandAdjacentAnd "
    "LoopsMultiCandAdjacentOr LoopsMultiCandAdjacentPairs LoopsUnswitchSharedBody0 "
    "LoopsUnswitchSharedBody1to3 LoopsUnswitchSharedBody4to10 LoopsUnswitchSharedBody11to30 "
    "LoopsUnswitchSharedBody31to100 LoopsUnswitchSharedBodyOver100 LoopsUnswitchLoopSize0to50 "
    "LoopsUnswitchLoopSize51to100 LoopsUnswitchLoopSize101to200 LoopsUnswitchLoopSize201to400 "
    "LoopsUnswitchLoopSizeOver400 LoopsUnswitchCondSkewBalanced LoopsUnswitchCondSkewMild "
    "LoopsUnswitchCondSkewModerate LoopsUnswitchCondSkewExtreme LoopsUnswitchCondFromProfile "
    METRICS_LOOPS METRICS_PROFILE METRICS_TAIL " SuspensionPointsMerged";

enum { MAX_METRICS = 128 };
typedef struct metric_list {
    char *names[MAX_METRICS];
    int count;
} metric_list;

static void metrics_load(metric_list *m)
{
    const char *which = getenv("STANDIN_METRICS");
    const char *text = which && !strcmp(which, "16")    ? metrics16
                       : which && !strcmp(which, "106") ? metrics106
                                                        : metrics70;
    for (const char *p = text; *p && m->count < MAX_METRICS;) {
        size_t n = strcspn(p, " ");
        m->names[m->count++] = dup_range(p, n);
        p += n + (p[n] == ' ');
    }
}

enum { OK, ERROR, MISS };
static const char *const result_names[] = {"Success", "Error", "Miss"};

/* What one JIT did with one context. */
typedef struct compile {
    int result;
    bool minopts;
    const char *tier;   /* "" on failure */
    char name[512];     /* "" on failure */
    int code;           /* ActualCodeBytes */
} compile;

typedef struct context {
    int number;
    const unsigned char *bytes;
    uint32_t total_len; /* superpmi's "Context size" */
    size_t size;        /* the whole container */
    uint64_t h;
} context;

static const char *const name_spaces[] = {
    "System.Collections.Generic", "System.Linq", "System.Text.RegularExpressions",
    "Microsoft.CodeAnalysis.CSharp", "System.Runtime.Intrinsics.X86", "System.Buffers"};
static const char *const type_names[] = {
    "Dictionary`2[System.__Canon,System.__Canon]", "List`1[int]", "Enumerable",
    "ValueTuple`3[int,long,System.__Canon]", "RegexInterpreter", "Vector128`1[ushort]",
    "ArrayPool`1[ubyte]"};
static const char *const method_names[] = {
    "TryInsert(System.__Canon,System.__Canon,ubyte):ubyte:this", "MoveNext():ubyte:this",
    "Select[System.__Canon,int](System.Collections.Generic.IEnumerable`1[System.__Canon],"
    "System.Func`2[System.__Canon,int]):System.Collections.Generic.IEnumerable`1[int]",
    "get_Item(int):System.__Canon:this", "Scan(System.ReadOnlySpan`1[ushort]):int",
    "op_Addition(Vector128`1[ushort],Vector128`1[ushort]):Vector128`1[ushort]",
    "Say(System.String=\"hi, you\"):this"};
static const char *const tiers_minopts[] = {"Tier0", "MinOpts", "Instrumented Tier0"};
static const char *const tiers_opts[] = {"Tier1", "FullOpts", "Instrumented Tier1", "Tier1-OSR"};

#define COUNT(a) (sizeof(a) / sizeof *(a))

static void method_name(uint64_t h, char *out, size_t cap)
{
    snprintf(out, cap, "%s.%s:%s", name_spaces[h / 3 % COUNT(name_spaces)],
             type_names[h / 17 % COUNT(type_names)], method_names[h / 101 % COUNT(method_names)]);
}

static const char *tier_name(uint64_t h, bool minopts)
{
    return minopts ? tiers_minopts[h / 19 % COUNT(tiers_minopts)]
                   : tiers_opts[h / 23 % COUNT(tiers_opts)];
}

static int il_size(uint64_t h)
{
    return (int)((h >> 24) % 500) + 1;
}

/* The four asserts; each is the same text for every context that hits it. */
static const struct jit_assert {
    const char *file, *text, *phase;
    int line;
} asserts[] = {
    {"/runtime/src/coreclr/jit/fgdiagnostic.cpp", "!\"Jump into middle of try region\"",
     "Compute blocks reachability", 2810},
    {"/runtime/src/coreclr/jit/lsra.cpp", "varDsc->lvTracked", "Linear scan register alloc", 1947},
    {"/runtime/src/coreclr/jit/morph.cpp", "genActualType(tree) == TYP_INT", "Morph - Global",
     9123},
    {"/runtime/src/coreclr/jit/importer.cpp", "!\"Unexpected stack, \\\"a\\\", b\"", "Importation",
     4410}};

static const char *const missing_maps[] = {"GetMethodAttribs", "GetClassAttribs",
                                           "ResolveToken", "GetCallInfo"};

/* JIT 2 (jit2 true) compiles context c: the result and the lines a real compile prints. */
static compile jit_compile(const context *c, bool jit2, bool diff)
{
    uint64_t h = c->h;
    compile r = {.result = OK, .tier = ""};
    r.result = !jit2 ? (h % 11 == 0 ? ERROR : h % 11 == 1 ? MISS : OK)
                     : (h / 11 % 13 == 0 ? ERROR : h / 11 % 13 == 1 ? MISS : OK);
    r.minopts = (h >> 7) & 1;
    if (r.result == MISS)
        say(LOG_MISSING, "Method context %d failed to replay: SuperPMI assertion failed (missing "
            "key \"key\" in map %s): key %016llX", c->number, missing_maps[h / 13 % 4],
            (unsigned long long)(h >> 8 | 0x00007F0000000000ull));
    if (r.result == ERROR && (jit2 ? h / 5 % 3 : h / 7 % 3) != 0) {
        const struct jit_assert *a = &asserts[(jit2 ? h / 31 : h / 37) % COUNT(asserts)];
        char name[512];
        method_name(h, name, sizeof name);
        say(LOG_ISSUE, "<ASSERT> #%d %s (%d) - Assertion failed '%s' in '%s' during '%s' (IL size %d; "
            "hash 0x%08x; %s)\n", c->number, a->file, a->line, a->text, name, a->phase,
            il_size(h), (unsigned)(h >> 32), tier_name(h, r.minopts));
        say(LOG_ERROR, "Exception thrown: DebugBreak or AV Exception 123");
    }
    if (r.result != OK)
        return r;
    r.tier = tier_name(h, r.minopts);
    method_name(h, r.name, sizeof r.name);
    static const int delta[] = {4, -4, 0}; /* regression, improvement, same size (GC info) */
    r.code = (int)((h >> 20) % 900) + 10 + (jit2 && diff ? delta[(h >> 40) % 3] : 0);
    return r;
}

/* Metric i of metric list m for a compile; zero for a failed one. */
static void print_metric(FILE *f, const char *metric, int i, const context *c, const compile *r)
{
    uint64_t h = c->h;
    if (r->result != OK)
        fputs(strcmp(metric, "PerfScore") == 0 ? ",0.000000" : ",0", f);
    else if (!strcmp(metric, "PerfScore"))
        fprintf(f, ",%f", r->code * 1.25 + (double)(h % 100) / 100);
    else if (!strcmp(metric, "BytesAllocated"))
        fprintf(f, ",%lld", (long long)(h >> 9) % 900000 + 20000 + r->code * 16LL);
    else if (!strcmp(metric, "ActualCodeBytes") || !strcmp(metric, "AllocatedHotCodeBytes"))
        fprintf(f, ",%d", r->code);
    else
        fprintf(f, ",%d", (int)(((h >> (i % 40)) ^ (uint64_t)i * 2654435761u) % 7));
}

/* FileWriter::PrintQuotedCsvField */
static void print_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void header_row(FILE *f, bool diffs, const metric_list *m)
{
    fputs(diffs ? "Context,Context size,Method full name,Tier name,Base result,Diff result,MinOpts,"
                  "Has diff,Base instructions,Diff instructions"
                : "Context,Context size,Method full name,Tier name,Result,MinOpts,Instructions",
          f);
    for (int i = 0; i < m->count; i++)
        if (diffs)
            fprintf(f, ",Base %s,Diff %s", m->names[i], m->names[i]);
        else
            fprintf(f, ",%s", m->names[i]);
    fputc('\n', f);
}

static void replay_row(FILE *f, const context *c, const compile *r, const metric_list *m)
{
    fprintf(f, "%d,%u,", c->number, c->total_len);
    print_quoted(f, r->name);
    fprintf(f, ",%s,%s,%s,%lld", r->tier, result_names[r->result], r->minopts ? "True" : "False",
            0LL);
    for (int i = 0; i < m->count; i++)
        print_metric(f, m->names[i], i, c, r);
    fputc('\n', f);
}

static void diff_row(FILE *f, const context *c, const compile *base, const compile *diff,
                     bool has_diff, const metric_list *m)
{
    fprintf(f, "%d,%u,", c->number, c->total_len);
    print_quoted(f, diff->name);
    fprintf(f, ",%s,%s,%s,%s,%s,%lld,%lld", diff->tier, result_names[base->result],
            result_names[diff->result], diff->minopts ? "True" : "False",
            has_diff ? "True" : "False", 0LL, 0LL);
    for (int i = 0; i < m->count; i++) {
        print_metric(f, m->names[i], i, c, base);
        print_metric(f, m->names[i], i, c, diff);
    }
    fputc('\n', f);
}

/* ---- the disassembly (DOTNET_JitStdOutFile) ---- */

typedef struct jit {
    const char *path;
    uint64_t variant; /* FNV-1a of the file's bytes, or of its path when it is empty */
    FILE *stdout_file;
} jit;

/* JitInstance::InitJit: false (messages printed) when the JIT cannot be loaded. */
/* STANDIN_START_MS=N: loading a JIT takes N ms more (a process start and a JIT load cost tens
 * of milliseconds; benchmarks of how often a replay starts superpmi). */
static void start_hook(void)
{
    const char *ms = getenv("STANDIN_START_MS");
    if (ms && atoi(ms) > 0) {
        struct timespec t = {atoi(ms) / 1000, (long)(atoi(ms) % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
}

static bool jit_load(jit *j, const char *path)
{
    j->path = path;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        if (f)
            fclose(f);
        say(LOG_ERROR, "LoadLibrary failed (0x%08x)", 0x7eu);
        say(LOG_ERROR, "Startup of JIT(%s) failed %d", path, (int)0x80004005u);
        return false;
    }
    unsigned char buf[4096];
    size_t n, total = 0;
    j->variant = 1469598103934665603ull;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < n; i++)
            j->variant = (j->variant ^ buf[i]) * 1099511628211ull;
        total += n;
    }
    fclose(f);
    if (total == 0)
        j->variant = fnv((const unsigned char *)path, strlen(path));
    const char *out = getenv("DOTNET_JitStdOutFile");
    if (out && *out && !(j->stdout_file = fopen(out, "a")))
        say(LOG_WARNING, "cannot open JitStdOutFile '%s'", out);
    start_hook();
    say(LOG_VERBOSE, "Jit startup took %fms", 0.0);
    return true;
}

/* The listing of a context that has diffs (h / 143 % 4 == 0, whatever the mode) depends on
   the JIT, so a base and a diff JIT differ on exactly those contexts. */
static void jit_disasm(const jit *j, const context *c, const compile *r)
{
    bool diff = c->h / 143 % 4 == 0;
    const char *disasm = getenv("DOTNET_JitDisasm");
    if (!j->stdout_file || !disasm || !*disasm || r->result != OK)
        return;
    FILE *f = j->stdout_file;
    uint64_t x = c->h ^ (diff ? j->variant : 0);
    fprintf(f, "; Assembly listing for method %s (%s)\n", r->name, r->tier);
    fprintf(f, "; Emitting BLENDED_CODE for generic X64 + VEX on Unix\n");
    fprintf(f, "; %s code\n; superpmi context #%d\n\n", r->minopts ? "MinOpts" : "optimized",
            c->number);
    fprintf(f, "G_M%05u_IG01:        ;; offset=0x0000\n", (unsigned)(c->h % 100000));
    int lines = r->code / 8 + 1;
    for (int i = 0; i < lines && i < 32; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        fprintf(f, "       db       0x%02x, 0x%02x, 0x%02x, 0x%02x\n", (unsigned)(x >> 56),
                (unsigned)(x >> 48) & 255, (unsigned)(x >> 40) & 255, (unsigned)(x >> 32) & 255);
    }
    fprintf(f, "\n; Total bytes of code %d, prolog size 4, PerfScore %.2f, instruction count %d, "
            "allocated bytes for code %d (MethodHash=%08x) for method %s (%s)\n", r->code,
            r->code * 1.25, lines, r->code, (unsigned)(c->h >> 32), r->name, r->tier);
    fprintf(f, "; ============================================================\n\n");
    fflush(f);
}

/* ---- the input: MCH containers 'm','c', u32 totalLen, totalLen bytes, '4','2' ---- */

typedef struct reader {
    FILE *f;
    const char *path;
    int number;
    unsigned char *buf;
    size_t cap;
    off_t file_size;
} reader;

/* The next container: 1 and *c filled, 0 at the end, -1 (message printed) when broken. */
static int reader_next(reader *r, bool wanted, context *c)
{
    unsigned char head[6];
    size_t got = fread(head, 1, sizeof head, r->f);
    if (got == 0)
        return 0;
    r->number++;
    uint32_t len = (uint32_t)head[2] | (uint32_t)head[3] << 8 | (uint32_t)head[4] << 16 |
                   (uint32_t)head[5] << 24;
    off_t at = ftello(r->f);
    if (got < sizeof head || head[0] != 'm' || head[1] != 'c' || at < 0 ||
        (off_t)len + 2 > r->file_size - at) {
        say(LOG_ERROR, "Method %d is of low integrity.", r->number);
        return -1;
    }
    if (!wanted)
        return fseeko(r->f, (off_t)len + 2, SEEK_CUR) == 0 ? 1 : -1;
    size_t need = (size_t)len + 8;
    if (need > r->cap) {
        unsigned char *grown = realloc(r->buf, need);
        if (!grown) {
            say(LOG_ERROR, "Method %d is of low integrity.", r->number);
            return -1;
        }
        r->buf = grown, r->cap = need;
    }
    memcpy(r->buf, head, sizeof head);
    if (fread(r->buf + 6, 1, (size_t)len + 2, r->f) != (size_t)len + 2 || r->buf[len + 6] != '4' ||
        r->buf[len + 7] != '2') {
        say(LOG_ERROR, "Method %d is of low integrity.", r->number);
        return -1;
    }
    *c = (context){.number = r->number, .bytes = r->buf, .total_len = len, .size = need,
                   .h = fnv(r->buf, need)};
    return 1;
}

static bool stand_in_hash_matches(const context *c, const char *hash)
{
    char mine[33];
    snprintf(mine, sizeof mine, "%016llx%016llx", (unsigned long long)c->h,
             (unsigned long long)fnv_reversed(c->bytes, c->size));
    return strcasecmp(mine, hash) == 0;
}

/* ---- the main loop (superpmi.cpp main) ---- */

typedef struct run {
    const options *o;
    metric_list metrics;
    FILE *details, *mcl;
    jit jits[2];
    bool loaded_jits;
    int loaded, jitted, fail_to_replay, errors, errors2, diffs, missing, excluded;
} run;

static void add_to_mcl(run *s, int number)
{
    if (s->mcl) {
        fprintf(s->mcl, "%d\r\n", number);
        fflush(s->mcl);
    }
}

static int write_repro(const run *s, const context *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s-%d.mc", s->o->repro, c->number);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(c->bytes, 1, c->size, f) != c->size || fclose(f) != 0) {
        say(LOG_ERROR, "Failed to open output '%s'. GetLastError()=%u", path, (unsigned)errno);
        return GENERAL_FAILURE;
    }
    say(LOG_INFO, "Wrote out repro to '%s'", path);
    return SUCCESS;
}

enum { GO_ON = 1, STOP = 2 };

/* One compile of context c by the JIT(s): GO_ON, STOP (-failureLimit) or an exit code. */
static int compile_once(run *s, const context *c)
{
    const options *o = s->o;
    bool two = o->jit2 != NULL;
    bool diff_context = o->apply_diff && two && c->h / 143 % 4 == 0;
    if (!s->loaded_jits) {
        if (!jit_load(&s->jits[0], o->jit) || (two && !jit_load(&s->jits[1], o->jit2)))
            return JIT_FAILED_TO_INIT;
        s->loaded_jits = true;
    }
    s->jitted++;
    compile base = jit_compile(c, false, diff_context);
    jit_disasm(&s->jits[0], c, &base);
    if (base.result == ERROR) {
        s->errors++;
        say(LOG_ERROR, "Method %d of size %d failed to load and compile correctly%s (%s).",
            c->number, il_size(c->h), two ? " by JIT1" : "", o->jit);
        if (s->errors == o->failure_limit) {
            say(LOG_ERROR, "More than %d methods failed%s. Skip compiling remaining methods.",
                o->failure_limit, two ? " by JIT1" : "");
            return STOP;
        }
        if (o->repro && o->index_count == -1 && write_repro(s, c) != SUCCESS)
            return GENERAL_FAILURE;
        if (o->boe && o->index_count == -1)
            say(LOG_INFO, "HINT: to repro add '-c %d' to cmdline", c->number);
    }
    compile second = {.result = OK, .tier = ""};
    if (two) {
        second = jit_compile(c, true, diff_context);
        jit_disasm(&s->jits[1], c, &second);
        if (second.result == ERROR) {
            s->errors2++;
            say(LOG_ERROR, "Method %d of size %d failed to load and compile correctly by JIT2 (%s).",
                c->number, il_size(c->h), o->jit2);
            if (s->errors2 == o->failure_limit) {
                say(LOG_ERROR, "More than %d methods compilation failed by JIT2. Skip compiling "
                    "remaining methods.", o->failure_limit);
                return STOP;
            }
        }
    }
    const compile *shown = two ? &second : &base;
    if (base.result == OK && second.result == OK) {
        bool has_diff = diff_context;
        if (has_diff) {
            s->diffs++;
            say(LOG_ISSUE, "<ASM_DIFF> main method %d of size %d differs", c->number, il_size(c->h));
            if (!o->details)
                add_to_mcl(s, c->number);
        }
        if (s->details && o->apply_diff)
            diff_row(s->details, c, &base, shown, has_diff, &s->metrics);
        else if (s->details)
            replay_row(s->details, c, &base, &s->metrics);
    } else {
        s->fail_to_replay++;
        add_to_mcl(s, c->number);
        s->missing += base.result == MISS || second.result == MISS;
        if (s->details && o->apply_diff)
            diff_row(s->details, c, &base, shown, false, &s->metrics);
        else if (s->details)
            replay_row(s->details, c, &base, &s->metrics);
    }
    if (s->details)
        fflush(s->details);
    return GO_ON;
}

/* ---- the table of contents (superpmi-shared/tocfile.cpp, methodcontextreader.cpp) ---- */

/* The .mct paired with an .mch (CheckForPairedFile: NAME.mch.mct, then NAME.mct), as the
 * reader loads it: "INDX", a count, 48-byte TOCElements (Offset int64, Number int32, Hash),
 * "INDX"; numbers strictly increasing (the validation). A bad table is no table (a warning).
 * STANDIN_TOC=reject loads none, as the copy of tocfile.cpp at dotnet/runtime@4d0fd37a does
 * (it compares fread's item count with a byte count). */
typedef struct toc {
    int64_t *offsets;
    int *numbers;
    uint32_t count;
} toc;

static bool toc_try(const char *path, toc *t)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char head[8];
    bool ok = fread(head, 1, 8, f) == 8 && memcmp(head, "INDX", 4) == 0;
    if (ok && getenv("STANDIN_TOC") && strcmp(getenv("STANDIN_TOC"), "reject") == 0) {
        say(LOG_WARNING, "The index file %s is invalid: it appears to be truncated.", path);
        ok = false;
    }
    uint32_t count = 0;
    if (ok)
        memcpy(&count, head + 4, 4);
    t->offsets = ok && count ? calloc(count, sizeof *t->offsets) : NULL;
    t->numbers = ok && count ? calloc(count, sizeof *t->numbers) : NULL;
    for (uint32_t i = 0; ok && i < count; i++) {
        unsigned char e[48];
        ok = t->offsets && t->numbers && fread(e, 1, 48, f) == 48;
        if (ok) {
            memcpy(&t->offsets[i], e, 8);
            memcpy(&t->numbers[i], e + 8, 4);
            ok = i == 0 || t->numbers[i] > t->numbers[i - 1];
        }
    }
    ok = ok && fread(head, 1, 4, f) == 4 && memcmp(head, "INDX", 4) == 0;
    fclose(f);
    t->count = ok ? count : 0;
    if (!ok) {
        free(t->offsets);
        free(t->numbers);
        t->offsets = NULL, t->numbers = NULL;
    }
    return ok;
}

static void toc_load(const char *input, toc *t)
{
    memset(t, 0, sizeof *t);
    size_t len = strlen(input);
    if (len < 4 || strcasecmp(input + len - 4, ".mch") != 0)
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s.mct", input);
    if (access(path, F_OK) != 0)
        snprintf(path, sizeof path, "%.*s.mct", (int)(len - 4), input);
    if (access(path, F_OK) == 0)
        toc_try(path, t);
}

/* GetOffset: the TOC's binary search by Number; -1 when the number is not there. */
static int64_t toc_offset(const toc *t, int number)
{
    uint32_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->numbers[mid] < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->count && t->numbers[lo] == number ? t->offsets[lo] : -1;
}

/* Whether the loop takes context number n (the reader's -c, -stride and -m). */
static bool wanted(const options *o, int n, int *next_index)
{
    if (o->index_count >= 0) {
        while (*next_index < o->index_count && o->indexes[*next_index] < n)
            ++*next_index;
        return *next_index < o->index_count && o->indexes[*next_index] == n;
    }
    if (o->offset > 0 && o->increment > 0)
        return n >= o->offset && (n - o->offset) % o->increment == 0;
    return true;
}

/* STANDIN_SLEEP_MS=N: each context waits N ms; STANDIN_SPIN_US=N: each context keeps the CPU
 * busy for N microseconds of this process's CPU time, as a JIT compiling a method does. */
static void sleep_hook(void)
{
    const char *ms = getenv("STANDIN_SLEEP_MS");
    if (ms && atoi(ms) > 0) {
        struct timespec t = {atoi(ms) / 1000, (long)(atoi(ms) % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    const char *us = getenv("STANDIN_SPIN_US");
    long spin = us ? atol(us) : 0;
    if (spin > 0) {
        struct timespec start, now;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
        volatile uint64_t x = 0;
        do {
            for (int i = 0; i < 1000; i++)
                x += (uint64_t)i * 2654435761u;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
        } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 <
                 spin);
    }
}

/* superpmi.cpp's progress line, every 500 compiles at the verbose level: how far the reader
 * is (methodcontextreader.cpp at jakobbotsch/runtime@7da2080b: Progress() / TotalWork(), the
 * position in the -c list over its length, else with a table the number of the context read
 * last over the table's count, else the file offset over the file's size), the counts, and
 * the compiles per second since the line before (wall time: the one figure a comparison must
 * leave out, as Total time's). */
typedef struct progress {
    double total;  /* TotalWork() * repeatCount */
    double before; /* Progress() * repeatCount before the context being compiled */
    double since;  /* when the last line was printed */
} progress;

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void progress_line(const run *s, progress *p, int iter)
{
    const int interval = 500;
    if (!(log_mask & LOG_VERBOSE) || s->jitted == 0 || s->jitted % interval != 0)
        return;
    double percent = 100.0 * (p->before + iter) / p->total;
    double now = seconds_now(), elapsed = now - p->since;
    int rate = elapsed > (double)interval / INT_MAX ? (int)((double)interval / elapsed) : INT_MAX;
    p->since = now;
    if (s->o->apply_diff)
        say(LOG_VERBOSE, " %2.1f%% - Loaded %d  Jitted %d  Diffs %d  FailedCompile %d at %d per "
            "second", percent, s->loaded, s->jitted, s->diffs, s->fail_to_replay, rate);
    else
        say(LOG_VERBOSE, " %2.1f%% - Loaded %d  Jitted %d  FailedCompile %d at %d per second",
            percent, s->loaded, s->jitted, s->fail_to_replay, rate);
}

static int replay_loop(run *s, reader *r, const toc *t)
{
    const options *o = s->o;
    int next_index = 0, taken = 0;
    double work = o->index_count > 0 ? o->index_count : t->count ? t->count : (double)r->file_size;
    progress p = {work * o->repeat, 0, seconds_now()};
    for (;;) {
        if (o->index_count >= 0 && next_index >= o->index_count)
            return SUCCESS;
        context c;
        bool take;
        double before = o->index_count > 0 ? taken : t->count ? r->number : (double)ftello(r->f);
        if (o->index_count > 0 && t->count) {
            /* GetSpecificMethodContext: seek to the TOC's offset; the number is the TOC's */
            int want = o->indexes[next_index++];
            int64_t at = toc_offset(t, want);
            if (at < 0 || fseeko(r->f, (off_t)at, SEEK_SET) != 0)
                return GENERAL_FAILURE;
            r->number = want - 1;
            take = true;
        } else {
            take = wanted(o, r->number + 1, &next_index);
        }
        int got = reader_next(r, take, &c);
        if (got < 0)
            return GENERAL_FAILURE;
        if (got == 0)
            return SUCCESS;
        if (!take || (o->hash && !stand_in_hash_matches(&c, o->hash)))
            continue;
        p.before = before * o->repeat;
        taken++;
        sleep_hook();
        if (getenv("STANDIN_CRASH") && c.h % 29 == 3) {
            fflush(NULL);
            abort();
        }
        s->loaded++;
        for (int iter = 0; iter < o->repeat; iter++) {
            int rc = compile_once(s, &c);
            if (rc == STOP)
                return SUCCESS;
            if (rc != GO_ON)
                return rc;
            progress_line(s, &p, iter);
        }
    }
}

/* The verbose lines superpmi.cpp's main prints before it reads the input. */
static void log_settings(const options *o)
{
    if (!(log_mask & LOG_VERBOSE))
        return;
    say(LOG_VERBOSE, "Using jit(%s) with input (%s)", o->jit, o->input);
    printf(" indexCount=%d (", o->index_count);
    for (int i = 0; i < o->index_count; i++)
        printf(i + 1 < o->index_count ? "%d," : "%d", o->indexes[i]);
    printf(")\n");
    if (o->stats)
        say(LOG_VERBOSE, " EmitMethodStats-Types=%s", o->stats);
    if (o->hash)
        say(LOG_VERBOSE, " MD5Hash=%s", o->hash);
    if (o->mcl)
        say(LOG_VERBOSE, " failingMCList=%s", o->mcl);
    if (o->offset > 0 && o->increment > 0)
        say(LOG_VERBOSE, " offset=%d increment=%d", o->offset, o->increment);
    fflush(stdout);
}

/* ---- -streaming (streamingsuperpmi.cpp at dotnet/runtime@227b5367) ---- */

/* Context `index` as the streaming loop reads it (reader->Reset(&index, 1)): by the table when
 * one is loaded, else by walking the headers from the start. 1, or -1 when it is not there. */
static int stream_fetch(reader *r, const toc *t, int index, context *c)
{
    if (t->count) {
        int64_t at = toc_offset(t, index);
        if (at < 0 || fseeko(r->f, (off_t)at, SEEK_SET) != 0)
            return -1;
        r->number = index - 1;
        return reader_next(r, true, c) == 1 ? 1 : -1;
    }
    if (fseeko(r->f, 0, SEEK_SET) != 0)
        return -1;
    r->number = 0;
    while (r->number + 1 < index)
        if (reader_next(r, false, c) != 1)
            return -1;
    return reader_next(r, true, c) == 1 ? 1 : -1;
}

/* One JIT, requests "N!Key=Value..." from the file or stdin; "[streaming] Done. Status=S" after
 * each compile; '#' lines skipped; "quit" or a number that reads as 0 ends it. */
static int stream_replay(const options *o, reader *r, const toc *t)
{
    FILE *in = strcasecmp(o->stream, "stdin") == 0 ? stdin : fopen(o->stream, "r");
    if (!in) {
        say(LOG_ERROR, "Failed to open file '%s'. GetLastError()=%u", o->stream, (unsigned)errno);
        return ERRORS;
    }
    jit j = {0};
    bool loaded = false;
    char line[2048];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#')
            continue;
        if (strncmp(line, "quit", 4) == 0)
            break;
        int index = atoi(line);
        if (index == 0)
            break;
        context c;
        if (stream_fetch(r, t, index, &c) != 1)
            return GENERAL_FAILURE;
        if (!loaded && !(loaded = jit_load(&j, o->jit)))
            return JIT_FAILED_TO_INIT;
        compile res = jit_compile(&c, false, false);
        jit_disasm(&j, &c, &res);
        if (res.result == ERROR)
            say(LOG_ERROR, "Method %d of size %d failed to load and compile correctly (%s).",
                c.number, il_size(c.h), o->jit);
        printf("[streaming] Done. Status=%d\n", res.result);
        fflush(stdout);
    }
    if (j.stdout_file)
        fclose(j.stdout_file);
    return SUCCESS;
}

static int replay_streaming(const options *o)
{
    reader r = {.path = o->input};
    struct stat st;
    if (!(r.f = fopen(o->input, "rb")) || fstat(fileno(r.f), &st) != 0) {
        say(LOG_ERROR, "Failed to open '%s'. GetLastError()=%u", o->input, (unsigned)errno);
        return GENERAL_FAILURE;
    }
    r.file_size = st.st_size;
    toc t;
    toc_load(o->input, &t);
    int rc = stream_replay(o, &r, &t);
    fclose(r.f);
    free(r.buf);
    free(t.offsets);
    free(t.numbers);
    return rc;
}

static int replay(const options *o)
{
    static run s;
    s.o = o;
    if (o->stream)
        return replay_streaming(o);
    log_settings(o);
    metrics_load(&s.metrics);
    if (o->mcl && !(s.mcl = fopen(o->mcl, "wb")))
        say(LOG_ERROR, "Failed to open output file '%s'. GetLastError()=%u", o->mcl,
            (unsigned)errno);
    if (o->details && !(s.details = fopen(o->details, "w"))) {
        say(LOG_ERROR, "Could not create file %s", o->details);
        return GENERAL_FAILURE;
    }
    reader r = {.path = o->input};
    struct stat st;
    if (!(r.f = fopen(o->input, "rb")) || fstat(fileno(r.f), &st) != 0) {
        say(LOG_ERROR, "Failed to open '%s'. GetLastError()=%u", o->input, (unsigned)errno);
        return GENERAL_FAILURE;
    }
    r.file_size = st.st_size;
    if (s.details)
        header_row(s.details, o->apply_diff, &s.metrics);
    toc t;
    toc_load(o->input, &t);
    int rc = replay_loop(&s, &r, &t);
    free(t.offsets);
    free(t.numbers);
    fclose(r.f);
    free(r.buf);
    if (s.details)
        fclose(s.details);
    if (rc != SUCCESS)
        return rc;
    if (o->apply_diff)
        say(LOG_INFO, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d Diffs %d",
            s.loaded, s.jitted, s.fail_to_replay, s.excluded, s.missing, s.diffs);
    else
        say(LOG_INFO, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d", s.loaded,
            s.jitted, s.fail_to_replay, s.excluded, s.missing);
    say(LOG_VERBOSE, "Total time: %fms", 0.0);
    if (s.mcl)
        fclose(s.mcl);
    for (int i = 0; i < 2; i++)
        if (s.jits[i].stdout_file)
            fclose(s.jits[i].stdout_file);
    return s.errors || s.errors2 ? ERRORS : o->apply_diff && s.diffs ? DIFFS
                                         : s.missing                 ? MISSES
                                                                     : SUCCESS;
}

/* ---- -p (parallelsuperpmi.cpp) ----
 * POSIX only (fork, execv, waitpid): on Windows this stand-in refuses -p, which the tests of
 * mcz-superpmi.exe (tests/cross/windows-dropin.sh) never pass to it. */
#ifndef _WIN32

/* LOGLEVEL_PASSTHROUGH_*: printed whatever the verbosity, without a prefix. */
static void pass_through(FILE *dest, const char *line)
{
    fprintf(dest, "%s\n", line);
    fflush(dest);
}

typedef struct worker {
    char mcl[4096], details[4096], out[4096], err[4096];
    pid_t pid;
    int result; /* GENERAL_FAILURE until the worker's exit code says otherwise */
} worker;

static volatile sig_atomic_t close_requested;

static void on_interrupt(int sig)
{
    (void)sig;
    close_requested = 1;
}

typedef struct argv_builder {
    char *v[256];
    int n;
} argv_builder;

static void arg(argv_builder *a, const char *s)
{
    if (a->n < (int)COUNT(a->v) - 1)
        a->v[a->n++] = (char *)(uintptr_t)s;
    a->v[a->n] = NULL;
}

static void args_options(argv_builder *a, const option_list *l, const char *sw, bool force,
                         char pairs[][2048], int *used)
{
    for (int i = 0; i < l->count && *used < 64; i++) {
        arg(a, sw);
        if (force)
            arg(a, "force");
        snprintf(pairs[*used], 2048, "%s=%s", l->items[i].key, l->items[i].value);
        arg(a, pairs[(*used)++]);
    }
}

/* ConstructChildProcessArgs, after "-stride i N [-failingMCList F] [-details F] -v ewmin". */
static void child_args(argv_builder *a, const options *o, char ints[2][16], char pairs[][2048])
{
    int used = 0;
    if (o->boe) arg(a, "-boe");
    if (o->boa) arg(a, "-boa");
    if (o->box) arg(a, "-box");
    if (o->ignore_config) arg(a, "-ignoreStoredConfig");
    if (o->apply_diff) arg(a, "-applyDiff");
    const char *const strings[][2] = {{"-verbosity", o->verbosity}, {"-reproName", o->repro},
                                      {"-emitMethodStats", o->stats}, {"-matchHash", o->hash},
                                      {"-target", o->target}, {"-compile", o->compile_list}};
    for (size_t i = 0; i < COUNT(strings); i++)
        if (strings[i][1]) {
            arg(a, strings[i][0]);
            arg(a, strings[i][1]);
        }
    if (o->failure_limit != -1) {
        snprintf(ints[0], 16, "%d", o->failure_limit);
        arg(a, "-failureLimit");
        arg(a, ints[0]);
    }
    if (o->repeat != 1) {
        snprintf(ints[1], 16, "%d", o->repeat);
        arg(a, "-repeatCount");
        arg(a, ints[1]);
    }
    args_options(a, &o->jit_force, "-jitoption", true, pairs, &used);
    args_options(a, &o->jit2_force, "-jit2option", true, pairs, &used);
    args_options(a, &o->jit_opts, "-jitoption", false, pairs, &used);
    args_options(a, &o->jit2_opts, "-jit2option", false, pairs, &used);
    arg(a, o->jit);
    if (o->jit2)
        arg(a, o->jit2);
    arg(a, o->input);
}

static bool start_worker(worker *w, const char *self, const options *o, int i, int n)
{
    argv_builder a = {.n = 0};
    char stride[2][16], ints[2][16];
    static char pairs[64][2048];
    snprintf(stride[0], 16, "%d", i + 1);
    snprintf(stride[1], 16, "%d", n);
    arg(&a, self);
    arg(&a, "-stride");
    arg(&a, stride[0]);
    arg(&a, stride[1]);
    if (o->mcl) {
        arg(&a, "-failingMCList");
        arg(&a, w->mcl);
    }
    if (o->details) {
        arg(&a, "-details");
        arg(&a, w->details);
    }
    arg(&a, "-v");
    arg(&a, "ewmin");
    child_args(&a, o, ints, pairs);
    int out = open(w->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int err = open(w->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out < 0 || err < 0) {
        say(LOG_ERROR, "Unable to open '%s'. errno=%d", out < 0 ? w->out : w->err, errno);
        return false;
    }
    fflush(NULL);
    w->pid = fork();
    if (w->pid == 0) {
        if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
            _exit(1);
        execv(self, a.v);
        fprintf(stderr, "execv(%s) failed: %s\n", self, strerror(errno));
        _exit(1);
    }
    close(out);
    close(err);
    if (w->pid < 0) {
        say(LOG_ERROR, "fork() failed: %s", strerror(errno));
        return false;
    }
    return true;
}

static void child_stderr(const char *path)
{
    char line[4096];
    FILE *f = fopen(path, "r");
    if (!f) {
        say(LOG_ERROR, "Unable to open '%s'.", path);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        pass_through(stderr, line);
    }
    fclose(f);
}

typedef struct totals {
    int loaded, jitted, failed, excluded, missing, diffs;
} totals;

static void child_stdout(const options *o, const char *path, totals *t, bool *usage_error)
{
    char line[4096];
    FILE *f = fopen(path, "r");
    if (!f) {
        say(LOG_ERROR, "Unable to open '%s'.", path);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        totals c = {0};
        if (strncmp(line, usage_first_line, strlen(usage_first_line)) == 0) {
            *usage_error = true;
            pass_through(stdout, line);
        } else if (strncmp(line, "Loaded ", 7) != 0)
            pass_through(stdout, line);
        else if (o->apply_diff
                     ? sscanf(line, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d Diffs %d",
                              &c.loaded, &c.jitted, &c.failed, &c.excluded, &c.missing, &c.diffs) != 6
                     : sscanf(line, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d",
                              &c.loaded, &c.jitted, &c.failed, &c.excluded, &c.missing) != 5)
            say(LOG_ERROR, "Couldn't parse status message: \"%s\"", line);
        else {
            t->loaded += c.loaded, t->jitted += c.jitted, t->failed += c.failed;
            t->excluded += c.excluded, t->missing += c.missing;
            t->diffs = o->apply_diff ? t->diffs + c.diffs : -1;
        }
    }
    fclose(f);
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* ReadMCLToArray for every worker, sorted, WriteArrayToMCL. */
static void merge_mcls(const char *path, const worker *w, int n)
{
    int_list all = {0};
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(w[i].mcl, "rb");
        if (!f) {
            say(LOG_ERROR, "Unable to open '%s'. GetLastError()=%u", w[i].mcl, 2u);
            continue;
        }
        int value;
        while (fscanf(f, "%d", &value) == 1)
            list_push(&all, value);
        fclose(f);
    }
    if (all.n)
        qsort(all.v, (size_t)all.n, sizeof *all.v, compare_ints);
    FILE *f = fopen(path, "wb");
    if (!f) {
        say(LOG_ERROR, "Failed to open output file '%s'. GetLastError()=%u", path, (unsigned)errno);
        say(LOG_ERROR, "Unable to write to MCL file %s.", path);
    } else {
        for (int i = 0; i < all.n; i++)
            fprintf(f, "%d\r\n", all.v[i]);
        fclose(f);
    }
    free(all.v);
}

/* MergeWorkerCsvs: worker order, the first readable file's header, no sorting. */
static void merge_details(const char *path, const worker *w, int n)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        say(LOG_ERROR, "Could not create file %s", path);
        return;
    }
    bool has_header = false;
    char *line = NULL;
    size_t cap = 0;
    for (int i = 0; i < n; i++) {
        if (w[i].result < SUCCESS || w[i].result > MISSES) {
            say(LOG_WARNING, "Skipping merging CSV from child %d due to result code %d", i,
                w[i].result);
            continue;
        }
        FILE *f = fopen(w[i].details, "r");
        if (!f) {
            say(LOG_ERROR, "Could not open child CSV file %s", w[i].details);
            continue;
        }
        ssize_t len;
        bool first = true;
        while ((len = getline(&line, &cap, f)) > 0) {
            bool skip = first && has_header;
            first = false;
            if (skip)
                continue;
            line[strcspn(line, "\r\n")] = '\0';
            fprintf(out, "%s\n", line);
        }
        has_header = true;
        fclose(f);
    }
    free(line);
    fclose(out);
}

static int merge_result(int result, int child)
{
    if (child == result)
        return result;
    const int order[] = {GENERAL_FAILURE, JIT_FAILED_TO_INIT, ERRORS, DIFFS, MISSES};
    for (size_t k = 0; k < COUNT(order); k++)
        if (result == order[k] || child == order[k])
            return order[k];
    return result;
}

static int wait_workers(worker *w, int n)
{
    int result = SUCCESS;
    for (int i = 0; i < n; i++) {
        int status;
        pid_t got;
        do
            got = waitpid(w[i].pid, &status, 0);
        while (got < 0 && errno == EINTR);
        if (got < 0 || !WIFEXITED(status)) {
            if (!close_requested)
                say(LOG_ERROR, "Could not get exit code for child process %d\n", i);
            result = GENERAL_FAILURE;
            continue;
        }
        int code = WEXITSTATUS(status);
        w[i].result = code <= MISSES ? code : GENERAL_FAILURE;
        if (code > MISSES && !close_requested)
            say(LOG_ERROR, "Child process %d exited with code %u", i, (unsigned)code);
        result = merge_result(result, w[i].result);
    }
    return result;
}

static unsigned random_number(void)
{
    unsigned r = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL);
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &r, sizeof r) != (ssize_t)sizeof r)
            r ^= 0x9e3779b9u;
        close(fd);
    }
    return r;
}

/* The verbose lines doParallelSuperPMI prints before it starts the workers. */
static void log_children(const char *self, const options *o, int n)
{
    static char pairs[64][2048];
    char ints[2][16];
    argv_builder a = {.n = 0};
    if (!(log_mask & LOG_VERBOSE))
        return;
    child_args(&a, o, ints, pairs);
    printf("Using child (%s) with args (", self);
    for (int i = 0; i < a.n; i++)
        printf(" %s", a.v[i]);
    printf(")\n");
    if (o->mcl)
        printf(" failingMCList=%s\n", o->mcl);
    if (o->details)
        printf(" details=%s\n", o->details);
    printf(" workerCount=%d, skipCleanup=%d.\n", n, o->skip_cleanup);
    fflush(stdout);
}

static int parallel(options *o)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        say(LOG_ERROR, "Failed to get current exe path.");
        return ERRORS;
    }
    self[len] = '\0';
    signal(SIGINT, on_interrupt);
    if (o->workers <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o->workers = cpus > 0 ? (int)cpus : 1;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    unsigned r = random_number();
    worker w[MAX_WORKERS + 1];
    int n = o->workers < MAX_WORKERS ? o->workers : MAX_WORKERS;
    log_children(self, o, n);
    for (int i = 0; i < n; i++) {
        w[i].result = GENERAL_FAILURE;
        snprintf(w[i].mcl, sizeof w[i].mcl, "%s/ParallelSuperPMI-%u-%d.mcl", tmp, r, i);
        snprintf(w[i].details, sizeof w[i].details, "%s/ParallelSuperPMI-Details-%u-%d.csv", tmp, r, i);
        snprintf(w[i].out, sizeof w[i].out, "%s/ParallelSuperPMI-stdout-%u-%d.txt", tmp, r, i);
        snprintf(w[i].err, sizeof w[i].err, "%s/ParallelSuperPMI-stderr-%u-%d.txt", tmp, r, i);
    }
    for (int i = 0; i < n; i++)
        if (!start_worker(&w[i], self, o, i, n))
            return GENERAL_FAILURE;
    int result = wait_workers(w, n);
    if (!close_requested) {
        bool usage_error = false;
        totals t = {0};
        for (int i = 0; i < n && !usage_error; i++) {
            child_stderr(w[i].err);
            child_stdout(o, w[i].out, &t, &usage_error);
        }
        if (o->mcl && !usage_error)
            merge_mcls(o->mcl, w, n);
        if (o->details && !usage_error)
            merge_details(o->details, w, n);
        if (!usage_error && o->apply_diff)
            say(LOG_INFO, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d Diffs %d",
                t.loaded, t.jitted, t.failed, t.excluded, t.missing, t.diffs);
        else if (!usage_error)
            say(LOG_INFO, "Loaded %d  Jitted %d  FailedCompile %d Excluded %d Missing %d",
                t.loaded, t.jitted, t.failed, t.excluded, t.missing);
        say(LOG_VERBOSE, "Total time: %fms", 0.0);
    } else
        result = SUCCESS;
    for (int i = 0; i < n && !o->skip_cleanup; i++) {
        if (o->mcl)
            remove(w[i].mcl);
        if (o->details)
            remove(w[i].details);
        remove(w[i].out);
        remove(w[i].err);
    }
    return result;
}

#else
static int parallel(options *o)
{
    (void)o;
    say(LOG_ERROR, "-parallel: not in this stand-in on Windows");
    return GENERAL_FAILURE;
}
#endif /* !_WIN32 */

int main(int argc, char **argv)
{
    /* Static, as the metric names of replay(): reachable until exit, like superpmi's. */
    static options o = {.failure_limit = -1, .repeat = 1, .index_count = -1};
    if (!parse(argc, argv, &o))
        return GENERAL_FAILURE;
    return o.parallel ? parallel(&o) : replay(&o);
}
