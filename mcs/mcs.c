/*
 * mcs.c - bin/mcs: the dispatch over the switch table (mcs_switches.c).
 *
 * Command line as SuperPMI's mcs reads it: `mcs [options] -verb [verb options] files...`.
 * Options before the verb are global; everything after it belongs to the verb, which parses it
 * with mcs_parse_args (mcs_options.c: one syntax for every option). main creates the run's
 * state (mcs_run.h), the table in it for the option parser's abbreviations, and passes it to
 * the verb.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mcs_switches.h"
#include "mcs_util.h"

static bool is_help_arg(const mcs_run *run, const char *arg)
{
    if (strcmp(arg, "--help") == 0)
        return true;
    const mcs_switch *s = mcs_switch_find(run, arg);
    return s && s->kind == MCS_SWITCH_HELP;
}

static void print_help(FILE *f)
{
    fprintf(f, "Usage: mcs [-verbosity CHARS] -VERB [verb options] FILES...\n"
               "   or: mcs --help [VERB]\n"
               "   or: mcs --version\n\n"
               "Reads and writes SuperPMI collections: MCH files and .mcz archives alike.\n"
               "RANGE is a list such as 1-5,9 or a .mcl file. 'mcs --help VERB' (or\n"
               "'mcs -VERB --help') prints a verb's options.\n\n"
               "Options:\n"
               "  Every option takes one dash or two (-chunks, --chunks), its value after '='\n"
               "  or as the next argument (--level=3, -level 3), in any case, anywhere after\n"
               "  the verb; -verbosity may also come before it. Switches are matched as\n"
               "  SuperPMI's mcs matches them: an abbreviation means the first switch it\n"
               "  begins, in SuperPMI's order (-d is -dump, -c is -concat, -cop is -copy,\n"
               "  -th is -thin). After the verb, an option's whole name comes first: an\n"
               "  argument that is the whole name of one of the verb's options, or of an\n"
               "  option every verb takes, means that option (-j is -convert's thread count,\n"
               "  -f is --force), and only an argument that is none is read as an\n"
               "  abbreviation. Two dashes never abbreviate. An unknown option is answered\n"
               "  with the nearest known one. After '--', every argument is a file or a\n"
               "  range, even one that begins with '-'.\n\n"
               "Verbs (* not implemented yet):\n");
    for (size_t i = 0; i < mcs_switch_count; i++) {
        const mcs_switch *s = &mcs_switches[i];
        if (s->kind != MCS_SWITCH_VERB)
            continue;
        fprintf(f, "  %c -%-18s %s\n", s->verb ? ' ' : '*', s->name, s->usage->summary);
    }
    fprintf(f, "\nOptions of every verb:\n");
    mcs_print_common_help(f);
    fprintf(f, "\nExit status: 0 success, 1 failure (bad input, I/O error), 2 usage error.\n"
               "(SuperPMI's mcs returns 255 for every failure.)\n");
}

static int usage_failure(const char *fmt, ...) MCS_PRINTF(1, 2);

static int usage_failure(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mcs_usage_error(NULL, "%s", text);
}

/* An unknown switch before the verb, answered with the nearest verb or option. */
static int unknown_switch(const char *arg)
{
    mcs_nearest n;
    mcs_nearest_init(&n, arg);
    for (size_t i = 0; i < mcs_switch_count; i++)
        if (mcs_switches[i].kind != MCS_SWITCH_OPTION)
            mcs_nearest_offer(&n, mcs_switches[i].name);
    mcs_nearest_offer(&n, "--version");
    if (!n.best)
        return usage_failure("unknown switch '%s'", arg);
    char shown[64];
    mcs_option_display(n.best, shown, sizeof shown);
    return usage_failure("unknown switch '%s'; did you mean %s?", arg, shown);
}

static int run_verb(mcs_run *run, const mcs_switch *verb, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        /* After the verb, "-" alone is standard input or output, not a request for help. */
        if (strcmp(argv[i], "-") != 0 && is_help_arg(run, argv[i])) {
            mcs_print_usage(stdout, verb->usage);
            return MCS_EXIT_OK;
        }
    }
    if (!verb->verb) {
        tool_error("-%s is not implemented yet", verb->name);
        return MCS_EXIT_FAIL;
    }
    return verb->verb(run, argc, argv);
}

/* Applies one option given before the verb at argv[*i] (advancing past its value). */
static int global_option(mcs_run *run, const mcs_switch *s, int argc, char **argv, int *i)
{
    const char *value = strchr(argv[*i], '=');
    if (value)
        value++;
    else if (*i + 1 < argc)
        value = argv[++*i];
    else
        return usage_failure("%s needs a value", argv[*i]);
    if (strcmp(s->name, "writeLogFile") == 0) {
        tool_error("-writeLogFile is not implemented yet");
        return MCS_EXIT_FAIL;
    }
    return mcs_apply_global(run, NULL, s->name, value) == 0 ? MCS_EXIT_OK : MCS_EXIT_USAGE;
}

/* mcs --help [VERB]: the overview, or one verb's full help (VERB with or without its dash). */
static int help(const mcs_run *run, int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        print_help(stdout);
        return MCS_EXIT_OK;
    }
    char arg[128];
    snprintf(arg, sizeof arg, "%s%s", argv[i + 1][0] == '-' ? "" : "-", argv[i + 1]);
    const mcs_switch *s = mcs_switch_find(run, arg);
    if (!s || s->kind != MCS_SWITCH_VERB)
        return usage_failure("--help: '%s' is not a verb", argv[i + 1]);
    mcs_print_usage(stdout, s->usage);
    return MCS_EXIT_OK;
}

static int dispatch(mcs_run *run, int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return MCS_EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0)
            return help(run, argc, argv, i);
        const mcs_switch *s = mcs_switch_find(run, argv[i]);
        if (!s && argv[i][0] == '-')
            return unknown_switch(argv[i]);
        if (!s)
            return usage_failure("%s: expected a verb first", argv[i]);
        int rc = MCS_EXIT_OK;
        switch (s->kind) {
        case MCS_SWITCH_HELP:
            return help(run, argc, argv, i);
        case MCS_SWITCH_VERB:
            return run_verb(run, s, argc - i, argv + i);
        case MCS_SWITCH_GLOBAL:
            rc = global_option(run, s, argc, argv, &i);
            break;
        case MCS_SWITCH_OPTION:
            return usage_failure("%s is an option of a verb: put it after the verb", argv[i]);
        }
        if (rc != MCS_EXIT_OK)
            return rc;
    }
    return usage_failure("no verb given");
}

int main(int argc, char **argv)
{
    tool_set_program("mcs");
    mcs_run run;
    mcs_run_init(&run, mcs_switches, mcs_switch_count);
    mcz_os_stdio_binary();
    /* Ctrl-C and friends remove half-written outputs; a reader that closes the pipe early ends
     * text output quietly instead of killing mcs (tool.h). */
    tool_signals_install();
    if (tool_check_library() != 0)
        return MCS_EXIT_FAIL;
    if (tool_wants_version(argc, argv)) {
        tool_print_version();
        return mcs_close_stdout() == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
    }
    int rc = dispatch(&run, argc, argv);
    if (rc == MCS_EXIT_FAIL && run.reader_gone)
        rc = MCS_EXIT_OK; /* stopped for a reader that had enough, as text output stops */
    if (mcs_close_stdout() != 0 && rc == MCS_EXIT_OK)
        rc = MCS_EXIT_FAIL;
    mcs_run_end(&run);
    return rc;
}
