/*
 * mcs.c - bin/mcs: the switch table and the dispatch.
 *
 * Command line as SuperPMI's mcs reads it: `mcs [options] -verb [verb options] files...`.
 * Switches are case-insensitive and matched by prefix against one list in SuperPMI's fixed
 * order, so an abbreviation means what it means there (-d is -dump, -c is -concat, -cop is
 * -copy). The verbs mcz adds come after SuperPMI's list, so they never change what an existing
 * abbreviation resolves to. Options before the verb are global; everything after it belongs to
 * the verb.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mcs_util.h"
#include "mcs_verbs.h"

typedef enum switch_kind {
    SWITCH_HELP,   /* -help, -? */
    SWITCH_VERB,   /* run != NULL, else "not implemented yet" */
    SWITCH_GLOBAL, /* an option before the verb */
    SWITCH_OPTION  /* an option of some verb */
} switch_kind;

typedef struct mcs_switch {
    const char *name;
    switch_kind kind;
    int (*run)(int argc, char **argv);
    const mcs_usage *usage;
} mcs_switch;

/* The SuperPMI verb mcs does not implement: listed in the help and resolved like the others. */
static const mcs_usage usage_asmdump = {"-ASMDump [RANGE] IN OUTPREFIX",
                                        "write a disassembly of each context's compiled code",
                                        NULL};

static const mcs_switch switches[] = {
    {"help", SWITCH_HELP, NULL, NULL},
    {"?", SWITCH_HELP, NULL, NULL},
    {"ASMDump", SWITCH_VERB, NULL, &usage_asmdump},
    {"concat", SWITCH_VERB, cmd_concat, &usage_concat},
    {"copy", SWITCH_VERB, cmd_copy, &usage_copy},
    {"dump", SWITCH_VERB, cmd_dump, &usage_dump},
    {"fracture", SWITCH_VERB, cmd_fracture, &usage_fracture},
    {"dumpMap", SWITCH_VERB, cmd_dumpmap, &usage_dumpmap},
    {"dumpToc", SWITCH_VERB, cmd_dumptoc, &usage_dumptoc},
    {"jitflags", SWITCH_VERB, cmd_jitflags, &usage_jitflags},
    {"ildump", SWITCH_VERB, cmd_ildump, &usage_ildump},
    {"merge", SWITCH_VERB, cmd_merge, &usage_merge},
    {"printJITEEVersion", SWITCH_VERB, cmd_jiteeversion, &usage_jiteeversion},
    {"recursive", SWITCH_OPTION, NULL, NULL},
    {"dedup", SWITCH_OPTION, NULL, NULL},
    {"toc", SWITCH_VERB, cmd_toc, &usage_toc},
    {"input", SWITCH_OPTION, NULL, NULL},
    {"integ", SWITCH_VERB, cmd_integ, &usage_integ},
    {"mcl", SWITCH_OPTION, NULL, NULL},
    {"removeDup", SWITCH_VERB, cmd_removedup, &usage_removedup},
    {"stat", SWITCH_VERB, cmd_stat, &usage_stat},
    {"strip", SWITCH_VERB, cmd_strip, &usage_strip},
    {"thin", SWITCH_OPTION, NULL, NULL},
    {"legacy", SWITCH_OPTION, NULL, NULL},
    {"verbosity", SWITCH_GLOBAL, NULL, NULL},
    {"writeLogFile", SWITCH_GLOBAL, NULL, NULL},
    {"simple", SWITCH_OPTION, NULL, NULL},
    /* mcz's own verbs, after SuperPMI's list. */
    {"convert", SWITCH_VERB, cmd_convert, &usage_convert},
    {"export", SWITCH_VERB, cmd_export, &usage_export},
    {"info", SWITCH_VERB, cmd_info, &usage_info},
    {"verify", SWITCH_VERB, cmd_verify, &usage_verify},
    {"recover", SWITCH_VERB, cmd_recover, &usage_recover},
    {"receive", SWITCH_VERB, cmd_receive, &usage_receive},
};

#define SWITCH_COUNT (sizeof switches / sizeof switches[0])

/* The first switch (in table order) that arg, without its '-', is a prefix of. "-" alone
 * resolves to help, as in SuperPMI. */
static const mcs_switch *switch_find(const char *arg)
{
    if (arg[0] != '-')
        return NULL;
    const char *text = arg + 1;
    size_t len = strlen(text);
    for (size_t i = 0; i < SWITCH_COUNT; i++)
        if (len <= strlen(switches[i].name) && strncasecmp(text, switches[i].name, len) == 0)
            return &switches[i];
    return NULL;
}

const char *mcs_switch_resolve(const char *arg)
{
    const mcs_switch *s = switch_find(arg);
    return s ? s->name : NULL;
}

static bool is_help_arg(const char *arg)
{
    if (strcmp(arg, "--help") == 0)
        return true;
    const mcs_switch *s = switch_find(arg);
    return s && s->kind == SWITCH_HELP;
}

static void print_help(FILE *f)
{
    fprintf(f, "usage: mcs [-verbosity CHARS] -VERB [verb options] FILES...\n"
               "       mcs -VERB --help\n"
               "       mcs --version\n\n"
               "Reads and writes SuperPMI collections: MCH files and .mcz archives alike.\n"
               "Switches are case-insensitive and may be abbreviated; an abbreviation means\n"
               "the first switch it begins, in SuperPMI's order (-d is -dump, -c is -concat,\n"
               "-cop is -copy). RANGE is a list such as 1-5,9 or a .mcl file.\n\n"
               "Verbs (* not implemented yet):\n");
    for (size_t i = 0; i < SWITCH_COUNT; i++) {
        const mcs_switch *s = &switches[i];
        if (s->kind != SWITCH_VERB)
            continue;
        fprintf(f, "  %c -%-18s %s\n", s->run ? ' ' : '*', s->name, s->usage->summary);
    }
    fprintf(f, "\nGlobal options:\n"
               "  -verbosity CHARS    messages to show: e errors, w warnings, n info,\n"
               "                      a all, q quiet (default: all)\n"
               "  --jit-ee VERSION|GUID  (after any verb) read every input as that JIT-EE\n"
               "                      version instead of the one it records or its packets\n"
               "                      show (mcs -printJITEEVersion --list lists them)\n"
               "\nExit status: 0 success, 1 failure (bad input, I/O error), 2 usage error.\n"
               "(SuperPMI's mcs returns 255 for every failure.)\n");
}

static int usage_failure(const char *fmt, ...) MCS_PRINTF(1, 2);

static int usage_failure(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcs: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'mcs --help'.\n", stderr);
    return MCS_EXIT_USAGE;
}

/* The versions --jit-ee takes, for its error message: "B, C". */
static void jit_ee_names(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < mcz_jit_ee_count() && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                mcz_jit_ee_name(mcz_jit_ee_at(i)));
}

/* Takes "--jit-ee VALUE" (or "--jit-ee=VALUE") out of a verb's arguments, whichever verb it
 * is, and forces that version on every input. Returns the new argc, or -1 after the error. */
static int take_jit_ee(const mcs_switch *verb, int argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (strcmp(argv[i], "--jit-ee") == 0) {
            if (i + 1 == argc)
                return mcs_usage_error(verb->usage, "--jit-ee needs a value"), -1;
            value = argv[++i];
        } else if (strncmp(argv[i], "--jit-ee=", 9) == 0) {
            value = argv[i] + 9;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        const mcz_jit_ee *v = mcz_jit_ee_find(value);
        if (!v) {
            char names[256];
            jit_ee_names(names, sizeof names);
            return mcs_usage_error(verb->usage,
                                   "--jit-ee: '%s' is not a JIT-EE version or GUID mcz knows "
                                   "(%s; mcs -printJITEEVersion --list lists them)",
                                   value, names), -1;
        }
        mcs_force_jit_ee(v);
    }
    argv[kept] = NULL;
    return kept;
}

static int run_verb(const mcs_switch *verb, int argc, char **argv)
{
    argc = take_jit_ee(verb, argc, argv);
    if (argc < 0)
        return MCS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        /* After the verb, "-" alone is standard input or output, not a request for help. */
        if (strcmp(argv[i], "-") != 0 && is_help_arg(argv[i])) {
            mcs_print_usage(stdout, verb->usage);
            return MCS_EXIT_OK;
        }
    }
    if (!verb->run) {
        tool_error("-%s is not implemented yet", verb->name);
        return MCS_EXIT_FAIL;
    }
    return verb->run(argc, argv);
}

/* Applies one global option at argv[*i] (advancing past its value). */
static int global_option(const mcs_switch *s, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        return usage_failure("%s needs a value", argv[*i]);
    const char *value = argv[++*i];
    if (strcmp(s->name, "writeLogFile") == 0) {
        tool_error("-writeLogFile is not implemented yet");
        return MCS_EXIT_FAIL;
    }
    if (!mcs_set_verbosity(value))
        return usage_failure("unknown verbosity letters in '%s'", value);
    return MCS_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return MCS_EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            print_help(stdout);
            return MCS_EXIT_OK;
        }
        const mcs_switch *s = switch_find(argv[i]);
        if (!s)
            return usage_failure(argv[i][0] == '-' ? "unknown switch %s"
                                                   : "%s: expected a verb first",
                                 argv[i]);
        int rc = MCS_EXIT_OK;
        switch (s->kind) {
        case SWITCH_HELP:
            print_help(stdout);
            return MCS_EXIT_OK;
        case SWITCH_VERB:
            return run_verb(s, argc - i, argv + i);
        case SWITCH_GLOBAL:
            rc = global_option(s, argc, argv, &i);
            break;
        case SWITCH_OPTION:
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
    /* Ctrl-C and friends remove half-written outputs; a reader that closes the pipe early ends
     * text output quietly instead of killing mcs (tool.h). */
    tool_signals_install();
    if (tool_check_library() != 0)
        return MCS_EXIT_FAIL;
    if (tool_wants_version(argc, argv)) {
        tool_print_version();
        return mcs_close_stdout() == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
    }
    int rc = dispatch(argc, argv);
    if (mcs_close_stdout() != 0 && rc == MCS_EXIT_OK)
        rc = MCS_EXIT_FAIL;
    return rc;
}
