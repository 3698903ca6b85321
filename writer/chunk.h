/*
 * chunk.h - one chunk of the writer, from the first append into it until it is discarded (or
 * the writer closes): what the writer core (writer_impl.h) and the outputs (out.h) share.
 */
#ifndef MCZ_WRITER_CHUNK_H
#define MCZ_WRITER_CHUNK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../format/archive.h"

typedef enum chunk_state { CHUNK_SEALED, CHUNK_BUSY, CHUNK_DONE } chunk_state;

typedef struct chunk {
    struct chunk *next;                     /* the queue, in number order */
    _Atomic(struct chunk *) retained_next;  /* the retained list (read by the fatal dump) */
    chunk_state state;
    uint32_t first_number;
    uint32_t count;
    uint32_t *lengths; /* NULL while open: derived from raw once sealed (mcz_wr_chunk_settle) */
    uint8_t *raw; /* given back to the pool once compressed; raw_len stays */
    size_t raw_len, raw_cap;
    atomic_uint copying; /* appends copying into raw outside the lock (chunk_pool.c) */
    uint64_t opened_ns; /* CLOCK_MONOTONIC of its first context (flush_ms) */
    /* Filled by a worker (or by mcz_writer_append_compressed), immutable once DONE. */
    uint8_t *frames;    /* chunk header frame + zstd data frame; NULL once in a file */
    size_t frames_len;  /* the stored size */
    uint64_t checksum;
    bool packets;       /* a copied chunk's layout (its own writer's chunks: w->packets) */
    mcz_hash128 *identity, *dedup; /* NULL when the writer stores no hashes */
    uint64_t offset;    /* set by the output that stored it: where its frames lie */
    bool rows_spilled;  /* lengths and hashes freed, in the writer's spill file (spill.c) */
    uint64_t rows_at;   /* ...at this offset */
} chunk;

#endif /* MCZ_WRITER_CHUNK_H */
