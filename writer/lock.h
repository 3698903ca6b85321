/*
 * lock.h - the writer's mutex, with its contract checkable: in a debug build (no NDEBUG) it
 * records which thread holds it, so a function documented "lock held" asserts it
 * (MCZ_LOCK_HELD) and one that must run without it asserts that (MCZ_LOCK_FREE). A release
 * build compiles both to nothing and the wrapper to the bare platform/threads.h calls.
 */
#ifndef MCZ_WRITER_LOCK_H
#define MCZ_WRITER_LOCK_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../platform/threads.h"

typedef struct mcz_lock {
    mcz_mutex mutex;
#ifndef NDEBUG
    atomic_uintptr_t owner; /* the holder's mcz_lock_self(), 0 when free */
#endif
} mcz_lock;

#ifndef NDEBUG
/* This thread's token: the address of a thread-local byte (never 0). */
uintptr_t mcz_lock_self(void);
#define MCZ_LOCK_NOTE(l, who) atomic_store_explicit(&(l)->owner, (who), memory_order_relaxed)
#else
#define MCZ_LOCK_NOTE(l, who) ((void)0)
#endif

static inline void mcz_lock_init(mcz_lock *l)
{
    mcz_mutex_init(&l->mutex);
    MCZ_LOCK_NOTE(l, 0);
}

static inline void mcz_lock_destroy(mcz_lock *l)
{
    mcz_mutex_destroy(&l->mutex);
}

static inline void mcz_lock_take(mcz_lock *l)
{
    mcz_mutex_lock(&l->mutex);
    MCZ_LOCK_NOTE(l, mcz_lock_self());
}

static inline void mcz_lock_drop(mcz_lock *l)
{
    MCZ_LOCK_NOTE(l, 0);
    mcz_mutex_unlock(&l->mutex);
}

/* A wait on cond with the writer's mutex, its holder recorded across the wait. */
static inline void mcz_lock_wait(mcz_lock *l, mcz_cond *cond)
{
    MCZ_LOCK_NOTE(l, 0);
    mcz_cond_wait(cond, &l->mutex);
    MCZ_LOCK_NOTE(l, mcz_lock_self());
}

/* The same, until the monotonic time deadline_ns (mcz_os_monotonic_ns). */
static inline void mcz_lock_wait_until(mcz_lock *l, mcz_cond *cond, uint64_t deadline_ns)
{
    MCZ_LOCK_NOTE(l, 0);
    mcz_cond_wait_until(cond, &l->mutex, deadline_ns);
    MCZ_LOCK_NOTE(l, mcz_lock_self());
}

#ifndef NDEBUG
/* True when the calling thread holds l. */
static inline bool mcz_lock_held(const mcz_lock *l)
{
    return atomic_load_explicit(&l->owner, memory_order_relaxed) == mcz_lock_self();
}
#define MCZ_LOCK_HELD(l) assert(mcz_lock_held(l))
#define MCZ_LOCK_FREE(l) assert(!mcz_lock_held(l))
#else
#define MCZ_LOCK_HELD(l) ((void)0)
#define MCZ_LOCK_FREE(l) ((void)0)
#endif

#endif /* MCZ_WRITER_LOCK_H */
