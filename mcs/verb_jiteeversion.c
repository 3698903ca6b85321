/* verb_jiteeversion.c - mcs -printJITEEVersion: a collection's JIT-EE version GUID, or the
 * versions mcz knows. */
#include "mcs_verbs.h"

const mcs_usage usage_jiteeversion = {
    "-printJITEEVersion [FILE]",
    "print a collection's JIT-EE version GUID, or the versions mcz knows",
    "With FILE: prints the GUID of the JIT-EE version FILE is read as (the one its archive\n"
    "records, else the one its packets show, else the newest; --jit-ee overrides), one line\n"
    "in lower case as SuperPMI's mcs prints the GUID it was built with, which superpmi.py\n"
    "uses to name collection directories. A version whose GUID no source gives is an error.\n"
    "Without FILE: one line per version mcz knows, oldest first: name, GUID (or \"unknown\")\n"
    "and description. SuperPMI's verb takes no file: it prints its own build's GUID.\n"};

static void list_versions(void)
{
    for (size_t i = 0; i < mcz_jit_ee_count(); i++) {
        const mcz_jit_ee *v = mcz_jit_ee_at(i);
        const char *guid = mcz_jit_ee_guid(v);
        printf("%-3s %-36s %s\n", mcz_jit_ee_name(v), guid ? guid : "unknown",
               mcz_jit_ee_description(v));
    }
}

static int print_guid_of(const char *path)
{
    mcs_input in;
    if (mcs_input_open(&in, path) != 0)
        return MCS_EXIT_FAIL;
    const mcz_jit_ee *v = mcs_input_jit_ee(&in);
    const char *guid = mcz_jit_ee_guid(v);
    int rc = MCS_EXIT_OK;
    if (guid) {
        printf("%s\n", guid);
    } else {
        tool_error("%s: JIT-EE version %s (%s): no source mcz was built from gives its GUID",
                   in.path, mcz_jit_ee_name(v), in.jit_ee_how);
        rc = MCS_EXIT_FAIL;
    }
    mcs_input_close(&in);
    return rc;
}

int cmd_jiteeversion(int argc, char **argv)
{
    const char *pos[1];
    int n = mcs_parse_args(argc, argv, &usage_jiteeversion, NULL, pos, 0, 1);
    if (n < 0)
        return MCS_EXIT_USAGE;
    if (n == 1)
        return print_guid_of(pos[0]);
    list_versions();
    return MCS_EXIT_OK;
}
