/*
 * mcs_switches.h - the switch table of mcs (mcs_switches.c), as data: every switch SuperPMI's
 * mcs knows, in its order, then mcz's own verbs. Switches are case-insensitive and matched by
 * prefix against this order, so an abbreviation means what it means in SuperPMI (-d is -dump,
 * -c is -concat, -cop is -copy); mcz's verbs come last so they never change what an existing
 * abbreviation resolves to. mcs.c dispatches through it; the option parser matches against it
 * through the run's state (mcs_run.h), so it never calls the dispatcher.
 */
#ifndef MCS_SWITCHES_H
#define MCS_SWITCHES_H

#include <stddef.h>

#include "mcs_util.h"

typedef enum mcs_switch_kind {
    MCS_SWITCH_HELP,   /* -help, -? */
    MCS_SWITCH_VERB,   /* run != NULL, else "not implemented yet" */
    MCS_SWITCH_GLOBAL, /* an option before the verb */
    MCS_SWITCH_OPTION  /* an option of some verb */
} mcs_switch_kind;

typedef struct mcs_switch {
    const char *name;
    mcs_switch_kind kind;
    /* the verb, given the run's state; argv[0] is the verb as typed; returns the exit code */
    int (*verb)(mcs_run *run, int argc, char **argv);
    const mcs_usage *usage;
} mcs_switch;

extern const mcs_switch mcs_switches[];
extern const size_t mcs_switch_count;

/* The switch arg names (mcs_options.c, over the table the run holds): with two dashes its whole
 * name, with one SuperPMI's rule, the first switch in table order whose name the text after
 * '-' begins. A value after '=' is not part of the name; "-" alone resolves to help, as in
 * SuperPMI. NULL when arg names none. */
const mcs_switch *mcs_switch_find(const mcs_run *run, const char *arg);

#endif /* MCS_SWITCHES_H */
