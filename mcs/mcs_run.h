/*
 * mcs_run.h - the state of one run of mcs, in one struct at the bottom of mcs's modules: what
 * the options every verb takes set (--jit-ee, --force), what inputs and outputs leave for later
 * (the version of the input opened last, a reader of stdout gone, the lengths of inputs that
 * are no regular file), and the dispatcher's switch table, which the option parser matches
 * abbreviations against. mcs.c sets it up before the verb runs; mcs_run.c holds it and calls
 * nothing, so every module may read it without calling a module above its own.
 */
#ifndef MCS_RUN_H
#define MCS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcz_superpmi.h"

struct mcs_switch;

/* The last inputs that are no regular file (a stream, a URL), with their lengths: messages
 * tell offsets in them from offsets taken from damaged bytes (mcs_note_input). */
#define MCS_NOTED_INPUTS 8

typedef struct mcs_run {
    const mcz_jit_ee *forced_jit_ee;     /* --jit-ee's version; NULL: none given */
    const mcz_jit_ee *last_input_jit_ee; /* the version of the input opened last */
    bool output_forced;                  /* --force: binary output may go to a terminal */
    bool reader_gone;                    /* stdout's reader went away (| head) */
    const struct mcs_switch *switches;   /* the switch table in SuperPMI's order (mcs_switches.c) */
    size_t switch_count;
    struct {
        char *name;
        uint64_t size;
    } noted[MCS_NOTED_INPUTS]; /* newest last */
    size_t noted_count;
} mcs_run;

/* The run's state (zeroed at start). */
mcs_run *mcs_run_context(void);

/* Its fields, for the verbs that read one. */
const mcz_jit_ee *mcs_forced_jit_ee(void);
bool mcs_output_forced(void);
bool mcs_stdout_reader_gone(void);

#endif /* MCS_RUN_H */
