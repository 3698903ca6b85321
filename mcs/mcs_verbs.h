/*
 * mcs_verbs.h - the verbs mcs implements, one file each (mcs/verb_<name>.c): its help and its
 * entry point, given the run's state (mcs_run.h). argv[0] is the verb switch as typed; the
 * return value is the exit code.
 */
#ifndef MCS_VERBS_H
#define MCS_VERBS_H

#include "mcs_util.h"

#define MCS_VERB(name)                 \
    extern const mcs_usage usage_##name; \
    int cmd_##name(mcs_run *run, int argc, char **argv);

MCS_VERB(concat)
MCS_VERB(copy)
MCS_VERB(dumptoc)
MCS_VERB(toc)
MCS_VERB(integ)
MCS_VERB(convert)
MCS_VERB(export)
MCS_VERB(info)
MCS_VERB(verify)
MCS_VERB(recover)
MCS_VERB(receive)
MCS_VERB(dump)
MCS_VERB(dumpmap)
MCS_VERB(ildump)
MCS_VERB(stat)
MCS_VERB(jitflags)
MCS_VERB(removedup)
MCS_VERB(merge)
MCS_VERB(strip)
MCS_VERB(fracture)
MCS_VERB(jiteeversion)

#undef MCS_VERB

/* Strict-checks every context of an opened input (verb_integ.c, shared with -verify; the check
 * is tool_check_context, mcz-replay's too). Unknown packet ids are warned about at the end, or
 * with strict fail. Returns 0 with *checked set, or -1 after printing the first damaged
 * context. */
int mcs_check_contexts(mcs_input *in, const char *what, bool strict, uint64_t *checked);
/* The options of -integ and -verify (--strict), their usages' table. */
extern const mcs_option mcs_check_options[];
/* Arguments of "-VERB FILE [--strict]" (a usage with mcs_check_options): opens FILE into in. Returns MCS_EXIT_OK or the exit
 * code after printing the error. */
int mcs_check_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, mcs_input *in,
                   bool *strict);

#endif /* MCS_VERBS_H */
