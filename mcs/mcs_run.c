/* mcs_run.c - the state of one run of mcs (mcs_run.h); calls nothing of mcs. */
#include <stdlib.h>
#include <string.h>

#include "mcs_run.h"

void mcs_run_init(mcs_run *run, const struct mcs_switch *switches, size_t count)
{
    *run = (mcs_run){.switches = switches, .switch_count = count};
}

void mcs_run_end(mcs_run *run)
{
    for (size_t i = 0; i < run->noted_count; i++)
        free(run->noted[i].name);
    run->noted_count = 0;
}

void mcs_run_note_size(mcs_run *run, const char *name, uint64_t size)
{
    char *copy = strdup(name);
    if (!copy)
        return; /* its offsets are left out of messages, as an unknown input's */
    if (run->noted_count == MCS_NOTED_INPUTS) {
        free(run->noted[0].name);
        memmove(run->noted, run->noted + 1, sizeof run->noted - sizeof run->noted[0]);
        run->noted_count--;
    }
    run->noted[run->noted_count].name = copy;
    run->noted[run->noted_count++].size = size;
}

uint64_t mcs_run_noted_size(const mcs_run *run, const char *name)
{
    for (size_t i = run->noted_count; i > 0; i--)
        if (strcmp(run->noted[i - 1].name, name) == 0)
            return run->noted[i - 1].size;
    return 0;
}
