/*
 * dropin_banner.c - what superpmi -p's parent prints before its workers start, at the verbose
 * level (doParallelSuperPMI in parallelsuperpmi.cpp): the program and the arguments every
 * worker is given (ConstructChildProcessArgs: the switches in its order, superpmi's spelling,
 * the last value given of each; the JIT options, forced ones first; the JITs and the input),
 * then -f, -details and the worker count. The workers' own lines, the summary and the total
 * time are mcz-replay's (--order-as-parallel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "tool_spmi.h"

/* ConstructChildProcessArgs's switches with one value, in its order; "int": printed as the
 * number superpmi reads (atoi), and left out at its default. */
static const struct child_switch {
    tool_spmi_id id;
    const char *word;
    bool number;
    long omitted; /* for a number: the default, not passed */
} child_switches[] = {
    {TOOL_SPMI_BOE, "-boe", false, 0},
    {TOOL_SPMI_BOA, "-boa", false, 0},
    {TOOL_SPMI_BOX, "-box", false, 0},
    {TOOL_SPMI_IGNORE_STORED_CONFIG, "-ignoreStoredConfig", false, 0},
    {TOOL_SPMI_APPLY_DIFF, "-applyDiff", false, 0},
    {TOOL_SPMI_VERBOSITY, "-verbosity", false, 0},
    {TOOL_SPMI_REPRO_NAME, "-reproName", false, 0},
    {TOOL_SPMI_EMIT_METHOD_STATS, "-emitMethodStats", false, 0},
    {TOOL_SPMI_MATCH_HASH, "-matchHash", false, 0},
    {TOOL_SPMI_TARGET, "-target", false, 0},
    {TOOL_SPMI_COMPILE, "-compile", false, 0},
    {TOOL_SPMI_FAILURE_LIMIT, "-failureLimit", true, -1},
    {TOOL_SPMI_REPEAT_COUNT, "-repeatCount", true, 1},
};

/* The switch argv[i] names (NULL: none superpmi knows; the command line was read before, so
 * there is none) and, in *n, how many value words follow it. */
static const tool_spmi_switch *switch_at(char **argv, int i, size_t *n)
{
    const tool_spmi_switch *s = tool_spmi_lookup(argv[i] + 1);
    *n = s ? tool_spmi_value_words(s, argv, (size_t)i) : 0;
    return s;
}

/* The word after the last occurrence of switch id (its value), or "" for a switch without one;
 * NULL when it is not given. */
static const char *last_value(int argc, char **argv, tool_spmi_id id)
{
    const char *found = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            continue;
        size_t n;
        const tool_spmi_switch *s = switch_at(argv, i, &n);
        if (s && s->id == id)
            found = n && i + 1 < argc ? argv[i + 1] : "";
        i += (int)n;
    }
    return found;
}

/* Each -jitoption (or -jit2option) whose "force" is as asked: " -SW [force] KEY=VALUE". */
static void print_options(FILE *to, int argc, char **argv, tool_spmi_id id, bool force)
{
    const char *word = id == TOOL_SPMI_JITOPTION ? "-jitoption" : "-jit2option";
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            continue;
        size_t n;
        const tool_spmi_switch *s = switch_at(argv, i, &n);
        if (s && s->id == id && i + (int)n < argc && (n == 2) == force)
            fprintf(to, force ? " %s force %s" : " %s %s", word, argv[i + (int)n]);
        i += (int)n;
    }
}

/* The arguments every worker is given after its own (-stride, its files, -v ewmin). */
static void print_child_args(FILE *to, int argc, char **argv, const dropin_cmd *cmd)
{
    for (size_t k = 0; k < sizeof child_switches / sizeof *child_switches; k++) {
        const struct child_switch *c = &child_switches[k];
        const char *value = last_value(argc, argv, c->id);
        if (!value)
            continue;
        if (!c->number)
            fprintf(to, *value ? " %s %s" : " %s", c->word, value);
        else if (atol(value) != c->omitted)
            fprintf(to, " %s %ld", c->word, atol(value));
    }
    print_options(to, argc, argv, TOOL_SPMI_JITOPTION, true);
    print_options(to, argc, argv, TOOL_SPMI_JIT2OPTION, true);
    print_options(to, argc, argv, TOOL_SPMI_JITOPTION, false);
    print_options(to, argc, argv, TOOL_SPMI_JIT2OPTION, false);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            size_t n;
            switch_at(argv, i, &n);
            i += (int)n;
            continue;
        }
        if (tool_spmi_classify(argv[i]) == TOOL_SPMI_FILE_JIT)
            fprintf(to, " %s", argv[i]);
    }
    fprintf(to, " %s", cmd->input);
}

void dropin_parallel_banner(int argc, char **argv, const dropin_cmd *cmd, const char *self,
                            long workers, FILE *to)
{
    if (!cmd->parallel || !tool_spmi_verbose(last_value(argc, argv, TOOL_SPMI_VERBOSITY)))
        return;
    fprintf(to, "Using child (%s) with args (", self);
    print_child_args(to, argc, argv, cmd);
    fputs(")\n", to);
    const char *list = last_value(argc, argv, TOOL_SPMI_FAILING_MC_LIST);
    const char *details = last_value(argc, argv, TOOL_SPMI_DETAILS);
    if (list)
        fprintf(to, " failingMCList=%s\n", list);
    if (details)
        fprintf(to, " details=%s\n", details);
    fprintf(to, " workerCount=%ld, skipCleanup=%d.\n", workers,
            last_value(argc, argv, TOOL_SPMI_SKIP_CLEANUP) != NULL);
    fflush(to);
}
