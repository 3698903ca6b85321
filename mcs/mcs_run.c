/* mcs_run.c - the state of one run of mcs (mcs_run.h); calls nothing. */
#include "mcs_run.h"

static mcs_run the_run;

mcs_run *mcs_run_context(void) { return &the_run; }

const mcz_jit_ee *mcs_forced_jit_ee(void) { return the_run.forced_jit_ee; }

bool mcs_output_forced(void) { return the_run.output_forced; }

bool mcs_stdout_reader_gone(void) { return the_run.reader_gone; }
