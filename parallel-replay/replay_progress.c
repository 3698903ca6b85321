/*
 * replay_progress.c - the run's one progress line (the tools' tool_progress): contexts done of
 * those selected. Cleared before any other line is written so the two never mix.
 */
#include "replay_int.h"

static tool_progress progress;
static bool started;

void replay_progress_update(uint64_t done, uint64_t total)
{
    if (!started) {
        tool_progress_start(&progress, "replaying", total, 0);
        started = true;
    }
    progress.total_contexts = total;
    tool_progress_update(&progress, done, 0);
}

void replay_progress_clear(void)
{
    tool_progress_end(&progress);
}
