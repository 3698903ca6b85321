/*
 * mcs_run.h - the state of one run of mcs, in one struct at the bottom of mcs's modules: what
 * the options every verb takes set (--jit-ee, --force), what inputs and outputs leave for later
 * (the version of the input opened last, a reader of stdout gone, the lengths of inputs that
 * are no regular file), and the dispatcher's switch table, which the option parser matches
 * abbreviations against. main (mcs.c) creates it and passes it to the verb, which passes it
 * to the helpers that read or set it (an input or an output opened keeps it); no module holds
 * it. mcs_run.c calls nothing of mcs, so every module may use it without calling a module
 * above its own.
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

/* A run with nothing set yet, matching abbreviations against the count switches. */
void mcs_run_init(mcs_run *run, const struct mcs_switch *switches, size_t count);
/* Frees what the run holds (the names noted). */
void mcs_run_end(mcs_run *run);

/* Notes the length of the input name, which is no regular file (the oldest of
 * MCS_NOTED_INPUTS goes); an input whose name cannot be kept is left out. */
void mcs_run_note_size(mcs_run *run, const char *name, uint64_t size);
/* The length noted last for the input name; 0 when none was. */
uint64_t mcs_run_noted_size(const mcs_run *run, const char *name);

#endif /* MCS_RUN_H */
