/* mcs_switches.c - the switch table of mcs (mcs_switches.h), in SuperPMI's order. */
#include "mcs_switches.h"
#include "mcs_verbs.h"

/* The SuperPMI verb mcs does not implement: listed in the help and resolved like the others. */
static const mcs_usage usage_asmdump = {"-ASMDump [RANGE] IN OUTPREFIX",
                                        "write a disassembly of each context's compiled code",
                                        NULL, NULL};

const mcs_switch mcs_switches[] = {
    {"help", MCS_SWITCH_HELP, NULL, NULL},
    {"?", MCS_SWITCH_HELP, NULL, NULL},
    {"ASMDump", MCS_SWITCH_VERB, NULL, &usage_asmdump},
    {"concat", MCS_SWITCH_VERB, cmd_concat, &usage_concat},
    {"copy", MCS_SWITCH_VERB, cmd_copy, &usage_copy},
    {"dump", MCS_SWITCH_VERB, cmd_dump, &usage_dump},
    {"fracture", MCS_SWITCH_VERB, cmd_fracture, &usage_fracture},
    {"dumpMap", MCS_SWITCH_VERB, cmd_dumpmap, &usage_dumpmap},
    {"dumpToc", MCS_SWITCH_VERB, cmd_dumptoc, &usage_dumptoc},
    {"jitflags", MCS_SWITCH_VERB, cmd_jitflags, &usage_jitflags},
    {"ildump", MCS_SWITCH_VERB, cmd_ildump, &usage_ildump},
    {"merge", MCS_SWITCH_VERB, cmd_merge, &usage_merge},
    {"printJITEEVersion", MCS_SWITCH_VERB, cmd_jiteeversion, &usage_jiteeversion},
    {"recursive", MCS_SWITCH_OPTION, NULL, NULL},
    {"dedup", MCS_SWITCH_OPTION, NULL, NULL},
    {"toc", MCS_SWITCH_VERB, cmd_toc, &usage_toc},
    {"input", MCS_SWITCH_OPTION, NULL, NULL},
    {"integ", MCS_SWITCH_VERB, cmd_integ, &usage_integ},
    {"mcl", MCS_SWITCH_OPTION, NULL, NULL},
    {"removeDup", MCS_SWITCH_VERB, cmd_removedup, &usage_removedup},
    {"stat", MCS_SWITCH_VERB, cmd_stat, &usage_stat},
    {"strip", MCS_SWITCH_VERB, cmd_strip, &usage_strip},
    {"thin", MCS_SWITCH_OPTION, NULL, NULL},
    {"legacy", MCS_SWITCH_OPTION, NULL, NULL},
    {"verbosity", MCS_SWITCH_GLOBAL, NULL, NULL},
    {"writeLogFile", MCS_SWITCH_GLOBAL, NULL, NULL},
    {"simple", MCS_SWITCH_OPTION, NULL, NULL},
    /* mcz's own verbs, after SuperPMI's list. */
    {"convert", MCS_SWITCH_VERB, cmd_convert, &usage_convert},
    {"export", MCS_SWITCH_VERB, cmd_export, &usage_export},
    {"info", MCS_SWITCH_VERB, cmd_info, &usage_info},
    {"verify", MCS_SWITCH_VERB, cmd_verify, &usage_verify},
    {"recover", MCS_SWITCH_VERB, cmd_recover, &usage_recover},
    {"receive", MCS_SWITCH_VERB, cmd_receive, &usage_receive},
};

const size_t mcs_switch_count = sizeof mcs_switches / sizeof mcs_switches[0];
