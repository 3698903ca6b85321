/*
 * tool_undo.c - what a signal (on Windows, a console control event) undoes before the process
 * ends by it; the handlers themselves are the platform layer's (platform.h mcz_os_stop_catch).
 *
 * The tables are fixed arrays of atomics so that the handler only reads memory that is never
 * freed, and calls only async-signal-safe functions (mcz_os_unlink, mcz_os_truncate).
 */
#include <limits.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "tool.h"

#define UNDO_SLOTS 8

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static struct {
    atomic_int state;
    int fd;
    int64_t size;
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

int tool_undo_truncate(int fd, int64_t size)
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

/* The handlers' hooks (platform.h mcz_os_stop_catch): async-signal-safe, each thing undone
 * once; how many things each undid. */
static unsigned undo_truncations(void)
{
    unsigned undone = 0;
    for (int i = 0; i < UNDO_SLOTS; i++) {
        if (claim(&truncations[i].state)) {
            if (mcz_os_truncate(truncations[i].fd, truncations[i].size) != 0) {
                /* nothing more a handler can do */
            }
            undone++;
        }
    }
    return undone;
}

static unsigned undo_removals(void)
{
    unsigned undone = mcz_remove_temporaries();
    for (int i = 0; i < UNDO_SLOTS; i++) {
        if (claim(&removals[i].state)) {
            mcz_os_unlink(removals[i].path);
            undone++;
        }
    }
    return undone;
}

void tool_signals_install(void)
{
    static const mcz_os_stop_hooks hooks = {undo_truncations, undo_removals,
                                            tool_progress_abandon};
    mcz_os_stop_catch(&hooks);
}

/* MCZ_TEST_SIGNAL=NAME@N: the signal arrives right after the Nth unit of work, the same way in
 * every run, so the tests of what a signal undoes do not depend on timing. */
void tool_test_signal_point(uint64_t done)
{
    static bool parsed;
    static char name[8];
    static uint64_t at;
    if (!parsed) {
        const char *spec = getenv("MCZ_TEST_SIGNAL");
        const char *sep = spec ? strchr(spec, '@') : NULL;
        parsed = true;
        if (sep && (size_t)(sep - spec) < sizeof name) {
            memcpy(name, spec, (size_t)(sep - spec));
            at = strtoull(sep + 1, NULL, 10);
        }
    }
    if (name[0] && done == at)
        mcz_os_test_signal(tool_program(), name);
}
