/*
 * replay_ring.c - the byte ring one worker writes and the parent reads, in memory both share.
 *
 * The positions count bytes ever written (tail, the worker's) and taken (head, the parent's);
 * the worker stores tail with release order after writing the bytes, so the parent, loading it
 * with acquire order, sees whole pieces. A piece costs the worker no system call, and what a
 * worker wrote before it died is still there for the parent to read. The parent keeps its own
 * copy of head and treats tail and the bytes as hostile: a crashing worker may have scribbled on
 * them.
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#include "replay_proc.h"

_Static_assert((REPLAY_RING_SIZE & (REPLAY_RING_SIZE - 1)) == 0, "ring size: a power of two");

struct replay_ring {
    alignas(64) _Atomic uint64_t tail;
    alignas(64) _Atomic uint64_t head;
    alignas(64) uint8_t data[REPLAY_RING_SIZE];
};

_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "the ring's positions must be lock-free, hence address-free across processes");

size_t replay_ring_bytes(void) { return sizeof(replay_ring); }

/* Bytes of the ring from position at up to its wrap (then the rest from its start). */
static size_t ring_first(uint64_t at, size_t len)
{
    size_t off = (size_t)(at & (REPLAY_RING_SIZE - 1));
    return len < REPLAY_RING_SIZE - off ? len : REPLAY_RING_SIZE - off;
}

static void ring_write(replay_ring *g, uint64_t at, const void *src, size_t len)
{
    if (len == 0)
        return; /* src may be NULL then, which memcpy may not be given */
    size_t first = ring_first(at, len);
    memcpy(g->data + (at & (REPLAY_RING_SIZE - 1)), src, first);
    memcpy(g->data, (const uint8_t *)src + first, len - first);
}

static void ring_read(const replay_ring *g, uint64_t at, void *dst, size_t len)
{
    size_t first = ring_first(at, len);
    memcpy(dst, g->data + (at & (REPLAY_RING_SIZE - 1)), first);
    memcpy((uint8_t *)dst + first, g->data, len - first);
}

int replay_ring_put(replay_ring *g, const void *a, size_t alen, const void *b, size_t blen,
                    int (*wait)(void *), void *arg)
{
    uint64_t tail = atomic_load_explicit(&g->tail, memory_order_relaxed);
    size_t need = alen + blen;
    if (need > REPLAY_RING_SIZE)
        return MCZ_EINVAL;
    while (REPLAY_RING_SIZE - (tail - atomic_load_explicit(&g->head, memory_order_acquire)) <
           need)
        if (wait(arg) != 0)
            return MCZ_EIO;
    ring_write(g, tail, a, alen);
    if (blen)
        ring_write(g, tail + alen, b, blen);
    atomic_store_explicit(&g->tail, tail + need, memory_order_release);
    return MCZ_OK;
}

long replay_ring_take(replay_ring *g, uint64_t *taken, void *dst, size_t cap)
{
    uint64_t tail = atomic_load_explicit(&g->tail, memory_order_acquire);
    if (tail - *taken > REPLAY_RING_SIZE)
        return -1;
    size_t n = tail - *taken < cap ? (size_t)(tail - *taken) : cap;
    ring_read(g, *taken, dst, n);
    *taken += n;
    atomic_store_explicit(&g->head, *taken, memory_order_release);
    return (long)n;
}
