/*
 * dropin_args.c - a superpmi command line read as superpmi reads it (tools/tool_spmi.h), and
 * turned into mcz-replay's when the input is an archive.
 *
 * The checks below are those CommandLine::Parse makes before superpmi opens any file
 * (filipnavara/runtime src/coreclr/tools/superpmi/superpmi/commandline.cpp at
 * c659a8bb48140ce161dd3890fd2aa4d06f2fbfac): a command line that fails one goes to the real
 * superpmi unchanged, which prints its own message and usage and exits as it always does.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "tool_spmi.h"

/* superpmi's MAXIMUM_WAIT_OBJECTS: the most -parallel workers it takes, on every OS. */
#define SPMI_MAX_WORKERS 64
/* MM3_HASH_BUFFER_SIZE - 1: the characters of a -matchHash value. */
#define SPMI_HASH_CHARS 32

/* atoi, without its undefined overflow: a value past int's range is INT_MAX or INT_MIN. */
static long spmi_atoi(const char *s)
{
    errno = 0;
    long v = strtol(s, NULL, 10);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : v;
}

static bool all_digits(const char *s)
{
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool is_target(const char *t)
{
    static const char *const names[] = {"amd64", "x64", "x86", "arm64", "arm", "arm32",
                                        "loongarch64", "riscv64", "wasm", "wasm32"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (tool_strcasecmp(t, names[i]) == 0)
            return true;
    return false;
}

/* ParseJitOption: a key ended by '=' or '#', shorter than 1024 characters. */
static bool is_jit_option(const char *s)
{
    size_t key = strcspn(s, "=#");
    return s[key] != '\0' && key < 1023;
}

/* A word that is not a switch: a JIT (at most two), the input, or a refusal. .mcz is an input
 * to mcz-superpmi alone. */
static bool read_file_word(const char *word, dropin_cmd *cmd, int *jits)
{
    const char *dot = strrchr(word, '.');
    switch (tool_spmi_classify(word)) {
    case TOOL_SPMI_FILE_JIT:
        return ++*jits <= 2;
    case TOOL_SPMI_FILE_INPUT:
        cmd->input = word;
        return true;
    default:
        if (dot && tool_strcasecmp(dot, ".mcz") == 0) {
            cmd->input = word;
            return true;
        }
        return false;
    }
}

/* The checks superpmi makes on one switch's value words (v: its n value words). */
static bool read_switch(const tool_spmi_switch *s, char **v, size_t n, dropin_cmd *cmd,
                        bool *stride, bool *hash, int *jits)
{
    switch (s->id) {
    case TOOL_SPMI_HELP:
        return false;
    case TOOL_SPMI_LOAD:
        cmd->input = v[0];
        return v[0][0] != '\0';
    case TOOL_SPMI_JIT:
        return v[0][0] != '\0' && ++*jits <= 2;
    case TOOL_SPMI_REPRO_NAME:
        return v[0][0] != '\0';
    case TOOL_SPMI_TARGET:
        return is_target(v[0]);
    case TOOL_SPMI_COMPILE:
        cmd->compile = true;
        return !*hash && !*stride;
    case TOOL_SPMI_MATCH_HASH:
        *hash = true;
        return strlen(v[0]) == SPMI_HASH_CHARS && !cmd->compile && !*stride;
    case TOOL_SPMI_PARALLEL:
        cmd->parallel = true;
        if (n == 1)
            cmd->workers = spmi_atoi(v[0]);
        return n == 0 || (cmd->workers >= 1 && cmd->workers <= SPMI_MAX_WORKERS);
    case TOOL_SPMI_FAILURE_LIMIT:
        return spmi_atoi(v[0]) >= 1;
    case TOOL_SPMI_REPEAT_COUNT:
        return all_digits(v[0]) && spmi_atoi(v[0]) >= 1;
    case TOOL_SPMI_STRIDE:
        *stride = true;
        return spmi_atoi(v[0]) >= 1 && spmi_atoi(v[1]) >= 1 && !cmd->compile && !*hash;
    case TOOL_SPMI_JITOPTION:
    case TOOL_SPMI_JIT2OPTION:
        return is_jit_option(v[n - 1]);
    default:
        return true;
    }
}

/* The walk of CommandLine::Parse: false at the first word superpmi would refuse. */
static bool read_words(int argc, char **argv, dropin_cmd *cmd, bool *streaming, int *jits)
{
    bool stride = false, hash = false, skip_cleanup = false;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            if (!read_file_word(argv[i], cmd, jits))
                return false; /* no '.', or "Unknown file type" */
            continue;
        }
        const tool_spmi_switch *s = tool_spmi_lookup(argv[i] + 1);
        if (!s)
            return false; /* "Unknown switch" */
        size_t n = tool_spmi_value_words(s, argv, (size_t)i);
        if (n > (size_t)(argc - 1 - i))
            return false; /* its value missing */
        skip_cleanup |= s->id == TOOL_SPMI_SKIP_CLEANUP;
        *streaming |= s->id == TOOL_SPMI_STREAMING;
        if (!read_switch(s, argv + i + 1, n, cmd, &stride, &hash, jits))
            return false;
        i += (int)n;
    }
    return !(skip_cleanup && !cmd->parallel); /* "-skipCleanup requires -parallel." */
}

void dropin_read(int argc, char **argv, dropin_cmd *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    bool streaming = false;
    int jits = 0;
    /* no words at all: superpmi prints its help */
    bool ok = argc > 1 && read_words(argc, argv, cmd, &streaming, &jits);
    /* the checks after the walk, in superpmi's order */
    ok = ok && !(streaming && (cmd->parallel || jits == 2)) && cmd->input;
    cmd->usage = !ok;
}

/* ---- Translation ---- */

static void add2(dropin_words *w, const char *a, const char *b)
{
    dropin_words_add(w, a);
    dropin_words_add(w, b);
}

/* The words the real superpmi keeps, each after --exec-word (one option per word, so a path with
 * blanks stays one word). */
static void keep(dropin_words *exec, char **v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        add2(exec, "--exec-word", v[k]);
}

static int refuse(const char *word, const tool_spmi_switch *s, const char *input, char *why,
                  size_t cap)
{
    snprintf(why, cap, "%s (superpmi's -%s) is not served over an mcz archive (%s) yet; "
             "run superpmi over the collection written back as an MCH: mcs -export %s OUT.mch",
             word, s->name, input, input);
    return -1;
}

/* One switch at argv[i] with its n value words: mcz-replay's options into opts, what the real
 * superpmi keeps into exec. */
static int translate_switch(const tool_spmi_switch *s, char **argv, int i, size_t n,
                            const dropin_cmd *cmd, dropin_words *opts, dropin_words *exec,
                            char *why, size_t cap)
{
    char number[24];
    switch (s->id) {
    case TOOL_SPMI_LOAD:
    case TOOL_SPMI_PARALLEL:
    case TOOL_SPMI_SKIP_CLEANUP:
        return 0; /* the input goes last; -parallel is -j; mcz-replay removes its temporaries */
    case TOOL_SPMI_REPRO_NAME:
        if (!cmd->compile) /* superpmi writes repro files only without -compile */
            add2(opts, "--repro", argv[i + 1]);
        return 0;
    case TOOL_SPMI_FAILING_MC_LIST:
        add2(opts, "-f", argv[i + 1]);
        return 0;
    case TOOL_SPMI_DETAILS:
        add2(opts, "--details", argv[i + 1]);
        return 0;
    case TOOL_SPMI_COMPILE:
        add2(opts, "-c", argv[i + 1]);
        return 0;
    case TOOL_SPMI_FAILURE_LIMIT:
        snprintf(number, sizeof number, "%ld", spmi_atoi(argv[i + 1]));
        add2(opts, "--failure-limit", number);
        return 0;
    case TOOL_SPMI_VERBOSITY:
        add2(opts, "--verbosity", argv[i + 1]);
        keep(exec, argv + i, n + 1);
        return 0;
    case TOOL_SPMI_WRITE_LOG_FILE:
    case TOOL_SPMI_EMIT_METHOD_STATS:
    case TOOL_SPMI_STREAMING:
    case TOOL_SPMI_STRIDE:
        return refuse(argv[i], s, cmd->input, why, cap);
    default:
        keep(exec, argv + i, n + 1);
        return 0;
    }
}

long dropin_workers(const dropin_cmd *cmd)
{
    return !cmd->parallel ? 1 : cmd->workers ? cmd->workers : mcz_os_cores();
}

int dropin_translate(int argc, char **argv, const dropin_cmd *cmd, const char *replay,
                     const char *real, dropin_words *out, char *why, size_t cap)
{
    assert(!cmd->usage && cmd->input);
    dropin_words opts = {0}, exec = {0};
    char workers[24];
    snprintf(workers, sizeof workers, "%ld", dropin_workers(cmd));
    add2(&exec, "--exec-word", real);
    int rc = 0;
    for (int i = 1; rc == 0 && i < argc; i++) {
        if (argv[i][0] != '-') {
            if (tool_spmi_classify(argv[i]) == TOOL_SPMI_FILE_JIT)
                keep(&exec, argv + i, 1);
            continue; /* inputs: the last one alone, at the end */
        }
        const tool_spmi_switch *s = tool_spmi_lookup(argv[i] + 1);
        size_t n = tool_spmi_value_words(s, argv, (size_t)i);
        rc = translate_switch(s, argv, i, n, cmd, &opts, &exec, why, cap);
        i += (int)n;
    }
    if (rc == 0) {
        dropin_words_add(out, replay);
        dropin_words_add(out, "-q");
        /* superpmi itself numbers each unit's contexts globally (a table of the unit's global
         * numbers, -c them), so the JIT is told the number it would be over the .mch;
         * mcz-replay falls back on renumbering for a superpmi that reads no table */
        dropin_words_add(out, "--exec-toc");
        add2(out, "-j", workers);
        /* superpmi -p N prints its workers' output and concatenates their details one worker
         * after the other: the same order, so superpmi.py numbers asserts and sums floats alike */
        if (cmd->parallel)
            add2(out, "--order-as-parallel", workers);
        for (size_t k = 0; k < opts.count; k++)
            dropin_words_add(out, opts.word[k]);
        for (size_t k = 0; k < exec.count; k++)
            dropin_words_add(out, exec.word[k]);
        add2(out, "--", cmd->input);
    }
    dropin_words_free(&opts);
    dropin_words_free(&exec);
    return rc;
}

int dropin_streaming_value(char **argv)
{
    size_t at = tool_spmi_find(argv, TOOL_SPMI_STREAMING);
    return at && argv[at + 1] ? (int)at + 1 : 0;
}
