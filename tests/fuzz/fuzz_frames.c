/*
 * fuzz_frames.c - the frame parser (mcz_frame_parser, the stream mcs -receive reads) on hostile
 * bytes. The input is a stream; it is pushed twice: all at once, and in pieces whose sizes come
 * from the input's first byte (1 to 64 bytes, and every so often a piece of none). Both pushes
 * must give the same events (kind, offset, size, numbers) and the same end or failure (code and
 * offset): the parser may not depend on where the bytes were cut. A stream the parser takes as
 * a complete archive must open as one (mcz_reader_open_image checks what a file's reader
 * checks). Nothing may crash or read outside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../reader/reader_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENTS 64 /* events compared; the rest are counted */

typedef struct outcome {
    int rc;
    int64_t offset;      /* the failure's */
    size_t events;
    mcz_frame_event ev[MAX_EVENTS];
    mcz_frame_event end;
} outcome;

static void record(outcome *o, const mcz_frame_event *ev)
{
    if (o->events < MAX_EVENTS) {
        o->ev[o->events] = *ev;
        o->ev[o->events].bytes = NULL; /* views die with the next call */
        o->ev[o->events].dict = NULL;
        o->ev[o->events].raw = NULL;
    }
    o->events++;
}

/* Pushes data[0, size) in pieces; piece_seed 0: all at once. */
static void run(const uint8_t *data, size_t size, uint32_t piece_seed, outcome *o)
{
    memset(o, 0, sizeof *o);
    mcz_frame_parser *p = mcz_frame_parser_create();
    if (!p)
        abort();
    uint32_t state = piece_seed * 2654435761u + 1;
    size_t at = 0;
    mcz_diag d;
    o->rc = MCZ_OK;
    for (;;) {
        size_t len = size - at;
        if (piece_seed) {
            state = state * 1103515245u + 12345u;
            size_t piece = (state >> 16) % 65; /* 0 .. 64 */
            len = piece < len ? piece : len;
        }
        size_t used;
        mcz_frame_event ev;
        o->rc = mcz_frame_parser_push(p, data + at, len, &used, &ev, &d);
        if (o->rc != MCZ_OK)
            break;
        if (used > len || (ev.kind == MCZ_FRAME_NONE && used != len))
            abort(); /* no event: every byte offered is taken */
        at += used;
        if (ev.kind != MCZ_FRAME_NONE) {
            if (ev.size && ev.bytes == NULL)
                abort();
            record(o, &ev);
        } else if (at == size) {
            break;
        }
    }
    if (o->rc == MCZ_OK)
        o->rc = mcz_frame_parser_end(p, &o->end, &d);
    else if (mcz_frame_parser_end(p, &o->end, NULL) != o->rc)
        abort(); /* the failure is sticky */
    o->offset = o->rc == MCZ_OK ? -1 : d.offset;
    if (o->rc != MCZ_OK && (d.offset < 0 || (uint64_t)d.offset > size + 12))
        abort(); /* a failure names where in the stream it lies */
    mcz_frame_parser_free(p);
}

static bool same_event(const mcz_frame_event *a, const mcz_frame_event *b)
{
    return a->kind == b->kind && a->offset == b->offset && a->size == b->size &&
           a->first_number == b->first_number && a->count == b->count &&
           a->dict_size == b->dict_size && a->complete == b->complete && a->torn == b->torn;
}

static void compare(const outcome *a, const outcome *b)
{
    if (a->rc != b->rc || a->offset != b->offset || a->events != b->events)
        abort();
    for (size_t i = 0; i < a->events && i < MAX_EVENTS; i++)
        if (!same_event(&a->ev[i], &b->ev[i]))
            abort();
    if (a->rc == MCZ_OK && !same_event(&a->end, &b->end))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = calloc(size ? size : 1, 1); /* exact size: the sanitizer sees any overread */
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    static outcome whole, pieces;
    run(copy, size, 0, &whole);
    run(copy, size, size ? data[0] + 1u : 1u, &pieces);
    compare(&whole, &pieces);
    if (whole.rc == MCZ_OK && whole.end.complete) {
        mcz_reader *r = mcz_reader_open_image(copy, size, NULL);
        if (!r)
            abort(); /* the parser took what the reader refuses */
        mcz_archive_info info;
        mcz_reader_get_info(r, &info);
        if (info.chunks != whole.end.chunk_count || info.contexts != whole.end.context_count)
            abort();
        mcz_reader_close(r);
    }
    free(copy);
    return 0;
}
