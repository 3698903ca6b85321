/*
 * tool_progress.c - the one progress line of every program: on stderr, only when it is a
 * terminal and informational output is on, redrawn at most four times a second, cleared
 * before any other line so the two never mix.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool.h"

#define PROGRESS_INTERVAL 0.25 /* seconds between redraws */

/* Whether a progress line is on the terminal now, without its line end: a signal that ends the
 * program ends the line first (tool_progress_abandon), so the shell's prompt and the terminal's
 * "^C" do not run on in it. */
static volatile sig_atomic_t line_open;

/* Seconds between redraws; MCZ_TEST_PROGRESS=1 redraws at every update, so that a test sees
 * the line whatever the machine's speed. */
static double redraw_interval(void)
{
    const char *test = getenv("MCZ_TEST_PROGRESS");
    return test && test[0] == '1' ? 0 : PROGRESS_INTERVAL;
}

void tool_progress_abandon(void)
{
    if (line_open) {
        line_open = 0;
        /* async-signal-safe; nothing else to do */
        if (mcz_os_write(MCZ_OS_STDERR_FD, "\n", 1) < 0) {
        }
    }
}

void tool_progress_start(tool_progress *p, const char *what, uint64_t total_contexts,
                         uint64_t total_bytes)
{
    p->what = what;
    p->total_contexts = total_contexts;
    p->total_bytes = total_bytes;
    p->start = p->last_shown = tool_now();
    p->enabled = tool_info_shown() && mcz_os_isatty(MCZ_OS_STDERR_FD);
    p->shown = false;
}

/* Seconds left, from bytes when their total is known, else from contexts; -1 when unknown. */
static double progress_eta(const tool_progress *p, uint64_t contexts, uint64_t bytes,
                           double elapsed)
{
    if (p->total_bytes && bytes > 0 && bytes <= p->total_bytes)
        return elapsed * (double)(p->total_bytes - bytes) / (double)bytes;
    if (p->total_contexts && contexts > 0 && contexts <= p->total_contexts)
        return elapsed * (double)(p->total_contexts - contexts) / (double)contexts;
    return -1;
}

void tool_progress_update(tool_progress *p, uint64_t contexts, uint64_t bytes)
{
    if (!p->enabled)
        return;
    double now = tool_now();
    if (now - p->last_shown < redraw_interval())
        return;
    p->last_shown = now;
    double elapsed = now - p->start;
    char count[64];
    if (p->total_contexts)
        snprintf(count, sizeof count, "%" PRIu64 "/%" PRIu64 " contexts", contexts,
                 p->total_contexts);
    else if (p->total_bytes && bytes <= p->total_bytes)
        snprintf(count, sizeof count, "%" PRIu64 " contexts (%.0f%%)", contexts,
                 100.0 * (double)bytes / (double)p->total_bytes);
    else
        snprintf(count, sizeof count, "%" PRIu64 " contexts", contexts);
    double eta = progress_eta(p, contexts, bytes, elapsed);
    char eta_text[32] = "";
    if (eta >= 0)
        snprintf(eta_text, sizeof eta_text, ", ETA %.0fs", eta);
    char rate[32];
    if (bytes)
        snprintf(rate, sizeof rate, "%.0f MB/s", (double)bytes / 1e6 / elapsed);
    else
        snprintf(rate, sizeof rate, "%.0f contexts/s", (double)contexts / elapsed);
    fprintf(stderr, "\r%s: %s, %s%s\033[K", p->what, count, rate, eta_text);
    fflush(stderr);
    p->shown = true;
    line_open = 1;
}

void tool_progress_end(tool_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
    line_open = 0;
}
