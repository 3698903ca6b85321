/*
 * replay_progress.c - one self-overwriting progress line on stderr (contexts done, rate, ETA),
 * only when stderr is a terminal; the caller decides that. Cleared before any other line is
 * written so the two never mix.
 */
#include <stdio.h>

#include "replay_int.h"

#define PROGRESS_INTERVAL 0.25 /* seconds between redraws */

static double started, last_drawn;
static bool shown;

void replay_progress_update(uint64_t done, uint64_t total, bool force)
{
    double now = tool_now();
    if (started == 0)
        started = now;
    if (!force && now - last_drawn < PROGRESS_INTERVAL)
        return;
    last_drawn = now;
    double elapsed = now - started;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    double pct = total ? 100.0 * (double)done / (double)total : 100.0;
    fprintf(stderr, "\r%5.1f%% %llu/%llu contexts, %.0f/s", pct, (unsigned long long)done,
            (unsigned long long)total, rate);
    if (rate > 0 && done < total)
        fprintf(stderr, ", ETA %.0fs", (double)(total - done) / rate);
    fprintf(stderr, "\033[K");
    fflush(stderr);
    shown = true;
}

void replay_progress_clear(void)
{
    if (!shown)
        return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    shown = false;
}
