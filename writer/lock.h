/*
 * lock.h - the writer's mutex, with its contract checkable: in a debug build (no NDEBUG) it
 * records which thread holds it, so a function documented "lock held" asserts it
 * (MCZ_LOCK_HELD) and one that must run without it asserts that (MCZ_LOCK_FREE). A release
 * build compiles both to nothing and the wrapper to the bare pthread calls.
 */
#ifndef MCZ_WRITER_LOCK_H
#define MCZ_WRITER_LOCK_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct mcz_lock {
    pthread_mutex_t mutex;
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
    pthread_mutex_init(&l->mutex, NULL);
    MCZ_LOCK_NOTE(l, 0);
}

static inline void mcz_lock_destroy(mcz_lock *l)
{
    pthread_mutex_destroy(&l->mutex);
}

static inline void mcz_lock_take(mcz_lock *l)
{
    pthread_mutex_lock(&l->mutex);
    MCZ_LOCK_NOTE(l, mcz_lock_self());
}

static inline void mcz_lock_drop(mcz_lock *l)
{
    MCZ_LOCK_NOTE(l, 0);
    pthread_mutex_unlock(&l->mutex);
}

/* pthread_cond_wait on the writer's mutex, its holder recorded across the wait. */
static inline void mcz_lock_wait(mcz_lock *l, pthread_cond_t *cond)
{
    MCZ_LOCK_NOTE(l, 0);
    pthread_cond_wait(cond, &l->mutex);
    MCZ_LOCK_NOTE(l, mcz_lock_self());
}

/* The same, until the CLOCK_MONOTONIC time at. */
static inline void mcz_lock_wait_until(mcz_lock *l, pthread_cond_t *cond,
                                       const struct timespec *at)
{
    MCZ_LOCK_NOTE(l, 0);
    pthread_cond_clockwait(cond, &l->mutex, CLOCK_MONOTONIC, at);
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
