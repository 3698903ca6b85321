/* verb_jiteeversion.c - mcs -printJITEEVersion: the JIT-EE version GUID a collection records,
 * or the one the user gave; --list: the packet tables mcz knows. */
#include <stdlib.h>

#include "mcs_verbs.h"

#define GUID_ENV "MCZ_JIT_EE_GUID"

typedef struct jiteeversion_args {
    const char *given;
    bool list;
} jiteeversion_args;

static const mcs_option jiteeversion_options[] = {
    {.name = "--jit-ee-guid", .type = MCS_OPT_VALUE, MCS_FIELD(jiteeversion_args, given),
     .arg = "GUID", .help = "the GUID to print when no FILE is given"},
    {.name = "--list", .type = MCS_OPT_FLAG, MCS_FIELD(jiteeversion_args, list),
     .help = "instead, the JIT-EE versions whose packet tables mcz knows,\n"
             "oldest first: name, GUID (or \"unknown\") and description\n"
             "(--jit-ee takes them)"},
    MCS_OPTIONS_END};

const mcs_usage usage_jiteeversion = {
    "-printJITEEVersion [FILE]",
    "print the JIT-EE version GUID a collection records, or the one given",
    "Prints one GUID, one line in lower case, as SuperPMI's mcs prints the one it was built\n"
    "with (superpmi.py files collections under it). mcz's mcs is built for no JIT, so the\n"
    "GUID is never guessed:\n"
    "  FILE                the GUID the archive FILE records (-convert --jit-ee-guid); an\n"
    "                      MCH file, or an archive recording none, is an error (exit 1)\n"
    "                      whose line names the packet table's GUID as inferred, not\n"
    "                      recorded, as -info and Python's info()['jit_ee_guid'] (None) do\n"
    "  no FILE             the one --jit-ee-guid gives, else the environment variable\n"
    "                      " GUID_ENV "; neither given: one line on stderr, exit 1\n",
    jiteeversion_options};

static void list_versions(void)
{
    for (size_t i = 0; i < mcz_jit_ee_count(); i++) {
        const mcz_jit_ee *v = mcz_jit_ee_at(i);
        const char *guid = mcz_jit_ee_guid(v);
        printf("%-3s %-36s %s\n", mcz_jit_ee_name(v), guid ? guid : "unknown",
               mcz_jit_ee_description(v));
    }
}

/* Why FILE answers with no GUID, in one line that agrees with -info: none is recorded, and
 * the packet table's GUID, when the table has one, is inferred rather than recorded. */
static void say_none_recorded(const mcs_input *in)
{
    const char *table = mcz_jit_ee_guid(in->jit_ee);
    char inferred[160] = "";
    if (table)
        snprintf(inferred, sizeof inferred, "; its packet table %s has GUID %s, inferred, not "
                 "recorded", mcz_jit_ee_name(in->jit_ee), table);
    tool_error("%s: %s records no JIT-EE GUID%s (-convert --jit-ee-guid records one%s)",
               in->path, in->archive ? "the archive" : "an MCH file", inferred,
               in->archive ? "" : " in an archive");
}

static int print_guid_of(mcs_run *run, const char *path)
{
    mcs_input in;
    if (mcs_input_open(run, &in, path) != 0)
        return MCS_EXIT_FAIL;
    const char *guid = in.archive ? mcz_reader_jit_ee_guid(in.archive) : NULL;
    if (guid)
        printf("%s\n", guid);
    else
        say_none_recorded(&in);
    mcs_input_close(&in);
    return guid ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}

/* The GUID the user gave: the option, else the environment. */
static int print_given_guid(const char *option)
{
    const char *text = option ? option : getenv(GUID_ENV);
    char guid[MCZ_GUID_TEXT_SIZE];
    if (!text || !*text) {
        tool_error("no JIT-EE GUID: mcz's mcs is built for no JIT (set " GUID_ENV
                   " or give --jit-ee-guid)");
        return MCS_EXIT_FAIL;
    }
    if (mcz_guid_canonical(text, guid) != MCZ_OK) {
        tool_error("%s: '%s' is not a GUID (8-4-4-4-12 hex digits)",
                   option ? "--jit-ee-guid" : GUID_ENV, text);
        return option ? MCS_EXIT_USAGE : MCS_EXIT_FAIL;
    }
    printf("%s\n", guid);
    return MCS_EXIT_OK;
}

int cmd_jiteeversion(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    jiteeversion_args a = {0};
    int n = mcs_parse_args(run, argc, argv, &usage_jiteeversion, &a, pos, 0, 1);
    if (n < 0)
        return MCS_EXIT_USAGE;
    if (a.list + (n == 1) + (a.given != NULL) > 1)
        return mcs_usage_error(&usage_jiteeversion, "FILE, --jit-ee-guid and --list exclude "
                                                    "each other");
    if (a.list) {
        list_versions();
        return MCS_EXIT_OK;
    }
    return n == 1 ? print_guid_of(run, pos[0]) : print_given_guid(a.given);
}
