/*
 * fuzz_replay_ring.c - the parent's side of a replay worker's record ring
 * (parallel-replay/replay_ring.c, replay_record.c) against a worker that writes what it likes.
 *
 * The input is a script of steps, each led by one byte:
 *   0  raw bytes into the ring (a length byte, then that many bytes, cut in two pieces)
 *   1  the parent takes what is there (replay_records_take)
 *   2  the worker scribbles on its position (tail): eight bytes, set or added
 *   3  a well-formed record (replay_chan_result: kind, number, size, a message, or with the
 *      ROW flag the place of rows, "OFFSET LENGTH" as the worker writes it)
 * While the worker has sent only well-formed records, the parent must receive exactly those,
 * in order, and read back the places they give; always, every record it receives must be
 * within the protocol's bounds. A crash, a leak or a mismatch is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay_proc.h"

#define EXPECTED_MAX 256 /* well-formed records awaiting the parent */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct script {
    const uint8_t *p, *end;
} script;

static size_t script_take(script *s, void *dst, size_t len)
{
    size_t n = len < (size_t)(s->end - s->p) ? len : (size_t)(s->end - s->p);
    memcpy(dst, s->p, n);
    s->p += n;
    return n;
}

typedef struct expected {
    int kind;
    uint32_t number, size;
    char text[REPLAY_MESSAGE_MAX];
    uint64_t at; /* ROW: the place the text gives */
    size_t len;
} expected;

typedef struct model {
    bool clean; /* only well-formed records so far: the parent must see exactly those */
    expected queue[EXPECTED_MAX];
    size_t head, count;
} model;

/* A COLUMNS or ROW record's place in the rows file: within bounds when it is one. */
static bool place_of(const replay_record *rec, uint64_t *at, size_t *len)
{
    bool rows = rec->type == REPLAY_REC_COLUMNS ||
                (rec->type == REPLAY_REC_RESULT && (rec->kind & REPLAY_REC_ROW));
    if (!rows || !replay_rows_where(rec->text, at, len))
        return false;
    if (*at > INT64_MAX || *len > REPLAY_ROWS_MAX)
        abort();
    return true;
}

static void on_record(void *arg, const replay_record *rec)
{
    model *m = arg;
    if (rec->text_len >= REPLAY_MESSAGE_MAX || rec->text[rec->text_len] != '\0')
        abort();
    uint64_t at = 0;
    size_t len = 0;
    bool placed = place_of(rec, &at, &len);
    if (!m->clean)
        return;
    if (m->count == 0)
        abort(); /* a record nobody sent */
    const expected *e = &m->queue[m->head];
    if (rec->type != REPLAY_REC_RESULT || rec->kind != e->kind || rec->number != e->number ||
        rec->size != e->size || rec->text_len != strlen(e->text) ||
        memcmp(rec->text, e->text, rec->text_len) != 0)
        abort();
    if ((e->kind & REPLAY_REC_ROW) && (!placed || at != e->at || len != e->len))
        abort(); /* the parent misreads a place the worker wrote */
    m->head = (m->head + 1) % EXPECTED_MAX;
    m->count--;
}

/* The worker's ring is full: it gives up at once (the parent drains only when told to). */
static int ring_full(void *arg)
{
    (void)arg;
    return 1;
}

static void put_raw(script *s, replay_ring *g, model *m)
{
    uint8_t len = 0, cut = 0, bytes[255];
    script_take(s, &len, 1);
    script_take(s, &cut, 1);
    len = (uint8_t)script_take(s, bytes, len);
    cut = cut < len ? cut : len;
    if (replay_ring_put(g, bytes, cut, bytes + cut, len - cut, ring_full, NULL) == MCZ_OK)
        m->clean = m->clean && len == 0;
}

static void put_record(script *s, replay_chan *ch, model *m)
{
    expected e = {0};
    uint8_t head[10] = {0}, len = 0;
    script_take(s, head, sizeof head);
    script_take(s, &len, 1);
    e.kind = head[0] & REPLAY_REC_KIND_MASK;
    memcpy(&e.number, head + 2, 4);
    memcpy(&e.size, head + 6, 4);
    char msg[REPLAY_MESSAGE_MAX + 128] = {0};
    if (head[1] & 1) {
        /* a place in the rows file, written as replay_chan_rows writes it */
        uint64_t at = 0;
        script_take(s, &at, sizeof at);
        e.kind |= REPLAY_REC_ROW;
        e.at = at & INT64_MAX;
        e.len = e.size & (REPLAY_ROWS_MAX - 1);
        snprintf(msg, sizeof msg, "%lld %zu", (long long)e.at, e.len);
    } else {
        /* messages reach the protocol's maximum when the length byte's top bit is set */
        size_t want = len & 0x80 ? REPLAY_MESSAGE_MAX - 1 + (len & 0x7F) : len;
        size_t got = script_take(s, msg, want < sizeof msg - 1 ? want : sizeof msg - 1);
        msg[got] = '\0';
    }
    size_t carried = strnlen(msg, sizeof e.text - 1); /* what the record carries: 511 bytes */
    memcpy(e.text, msg, carried);
    e.text[carried] = '\0';
    if (replay_chan_result(ch, e.number, e.kind, e.size, msg) != MCZ_OK || !m->clean)
        return;
    if (m->count == EXPECTED_MAX) {
        m->clean = false; /* too many to follow; the rest is checked for bounds only */
        return;
    }
    m->queue[(m->head + m->count++) % EXPECTED_MAX] = e;
}

static void scribble_tail(script *s, replay_ring *g, model *m)
{
    uint8_t how = 0;
    uint64_t v = 0;
    script_take(s, &how, 1);
    script_take(s, &v, sizeof v);
    /* the position is the ring's first member, so the mapping starts with it */
    _Atomic uint64_t *tail = (_Atomic uint64_t *)(void *)g;
    if (how & 1)
        *tail = v;
    else
        *tail += (uint64_t)(int64_t)(int16_t)v;
    m->clean = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one process here: plain memory, zero-filled as the platform files' shared mapping is
     * (the ring's size is a multiple of its 64-byte alignment) */
    replay_ring *g = aligned_alloc(64, replay_ring_bytes());
    if (!g)
        abort();
    memset(g, 0, replay_ring_bytes());
    replay_chan ch = {.fd = -1, .ring = g, .rows_fd = -1};
    static replay_record_reader rd;
    memset(&rd, 0, sizeof rd);
    static model m;
    memset(&m, 0, sizeof m);
    m.clean = true;
    script s = {data, data + size};
    bool damaged = false;
    while (s.p < s.end && !damaged) {
        uint8_t step = *s.p++;
        const char *why = NULL;
        switch (step % 4) {
        case 0:
            put_raw(&s, g, &m);
            break;
        case 1:
            damaged = replay_records_take(&rd, g, on_record, &m, &why) != MCZ_OK;
            if (damaged && (m.clean || !why))
                abort(); /* well-formed records never damage the ring */
            break;
        case 2:
            scribble_tail(&s, g, &m);
            break;
        default:
            put_record(&s, &ch, &m);
        }
    }
    if (!damaged && replay_records_take(&rd, g, on_record, &m, &(const char *){NULL}) == MCZ_OK &&
        m.clean && (m.count != 0 || rd.len != 0))
        abort(); /* a well-formed record the parent never saw */
    free(ch.columns_sent);
    free(g);
    return 0;
}
