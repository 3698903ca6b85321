/* verb_jiteeversion.c - mcs -printJITEEVersion: which packet table this build reads. */
#include "mcs_verbs.h"

const mcs_usage usage_jiteeversion = {
    "-printJITEEVersion",
    "print which JIT-EE packet table this build reads",
    "SuperPMI's mcs prints the JIT-EE version GUID it was compiled with (jiteeversionguid.h);\n"
    "scripts pick a collection directory by it. Collections do not record that GUID: mcz reads\n"
    "them through the packet table of one JIT-EE version, and this prints that table's name.\n"
    "It is not a GUID: scripts that expect one must not use this output.\n"};

int cmd_jiteeversion(int argc, char **argv)
{
    if (mcs_parse_args(argc, argv, &usage_jiteeversion, NULL, NULL, 0, 0) < 0)
        return MCS_EXIT_USAGE;
    printf("%s\n", mcz_packet_table_version());
    return MCS_EXIT_OK;
}
