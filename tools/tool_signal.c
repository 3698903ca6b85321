/*
 * tool_signal.c - what a signal undoes before the process ends by it.
 *
 * The tables are fixed arrays of atomics so that the handler only reads memory that is never
 * freed, and calls only async-signal-safe functions (unlink, ftruncate, raise).
 */
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define UNDO_SLOTS 8

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static struct {
    atomic_int state;
    int fd;
    off_t size;
} truncations[UNDO_SLOTS];

static struct {
    atomic_int state;
    char path[PATH_MAX];
} removals[UNDO_SLOTS];

static int take(atomic_int *state)
{
    int expect = SLOT_FREE;
    return atomic_compare_exchange_strong(state, &expect, SLOT_BUSY);
}

/* Claims a live slot for the handler, so a slot is undone once. */
static int claim(atomic_int *state)
{
    int expect = SLOT_LIVE;
    return atomic_compare_exchange_strong(state, &expect, SLOT_BUSY);
}

int tool_undo_truncate(int fd, off_t size)
{
    for (int i = 0; i < UNDO_SLOTS; i++) {
        if (take(&truncations[i].state)) {
            truncations[i].fd = fd;
            truncations[i].size = size;
            atomic_store(&truncations[i].state, SLOT_LIVE);
            return i;
        }
    }
    return -1;
}

void tool_undo_forget(int handle)
{
    if (handle >= 0 && handle < UNDO_SLOTS)
        atomic_store(&truncations[handle].state, SLOT_FREE);
}

void tool_undo_remove(const char *path)
{
    size_t len = strlen(path);
    for (int i = 0; len < PATH_MAX && i < UNDO_SLOTS; i++) {
        if (take(&removals[i].state)) {
            memcpy(removals[i].path, path, len + 1);
            atomic_store(&removals[i].state, SLOT_LIVE);
            return;
        }
    }
}

void tool_undo_remove_forget(const char *path)
{
    for (int i = 0; i < UNDO_SLOTS; i++) {
        if (atomic_load(&removals[i].state) == SLOT_LIVE && strcmp(removals[i].path, path) == 0) {
            atomic_store(&removals[i].state, SLOT_FREE);
            return;
        }
    }
}

static unsigned undo_all(void)
{
    unsigned undone = mcz_remove_temporaries();
    for (int i = 0; i < UNDO_SLOTS; i++) {
        if (claim(&truncations[i].state)) {
            if (ftruncate(truncations[i].fd, truncations[i].size) != 0) {
                /* nothing more a handler can do */
            }
            undone++;
        }
        if (claim(&removals[i].state)) {
            unlink(removals[i].path);
            undone++;
        }
    }
    return undone;
}

static void on_signal(int sig)
{
    if (undo_all() == 0 && sig == SIGPIPE)
        return; /* the write fails with EPIPE instead */
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the process ends by sig */
}

void tool_signals_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal the parent had ignored (nohup, a background job) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN &&
            sigs[i] != SIGPIPE)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* MCZ_TEST_SIGNAL=NAME@N: the signal arrives right after the Nth unit of work, the same way in
 * every run, so the tests of what a signal undoes do not depend on timing. */
void tool_test_signal_point(uint64_t done)
{
    static int sig = -1;
    static uint64_t at;
    if (sig < 0) {
        static const struct { const char *name; int sig; } names[] = {
            {"INT", SIGINT}, {"TERM", SIGTERM}, {"HUP", SIGHUP}, {"PIPE", SIGPIPE}};
        const char *spec = getenv("MCZ_TEST_SIGNAL");
        const char *sep = spec ? strchr(spec, '@') : NULL;
        sig = 0;
        for (size_t i = 0; sep && i < sizeof names / sizeof names[0]; i++)
            if (strncmp(spec, names[i].name, (size_t)(sep - spec)) == 0 &&
                strlen(names[i].name) == (size_t)(sep - spec))
                sig = names[i].sig;
        at = sep ? strtoull(sep + 1, NULL, 10) : 0;
    }
    if (sig > 0 && done == at)
        raise(sig);
}
