/*
 * replay_record.c - the records a worker sends the parent, both ends.
 *
 *   READY   text                the replayer initialized; the worker wants a unit (text: what
 *                               it planned, which must be what the parent planned)
 *   START   number [whole]      about to replay this context (or, whole: the rest of the unit)
 *   RESULT  number kind size    one context accounted (kind | ROW: the text locates its details
 *                               rows in the rows file; | MISS: a JIT missed data)
 *   COLUMNS text                the header of the rows that follow, located as rows are
 *   UNIT_DONE number            every wanted context of the unit was reported
 *   FATAL   text                the replayer could not initialize
 *   STATS   4 x u64             I/O figures, sent once before a normal exit
 *
 * A record is a 12-byte header (u8 type, u8 kind, u16 text length, u32 number, u32 size) and its
 * text (at most REPLAY_MESSAGE_MAX - 1 bytes), in native byte order, through the worker's ring.
 * The worker's pipe only wakes the parent: a byte after READY, UNIT_DONE, FATAL and STATS, and
 * while the ring is full.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay_proc.h"

#define REC_HEADER 12u
#define REC_MAX (REC_HEADER + REPLAY_MESSAGE_MAX)
#define RING_WAIT_NS 100000 /* a worker's pause while its ring is full */

_Static_assert(REPLAY_RECORD_BUFFER >= 2 * REC_MAX, "a partial record and a whole one must fit");
_Static_assert(REPLAY_RING_SIZE >= 2 * REC_MAX, "a ring holds two records");

static int chan_wake(replay_chan *ch)
{
    static const uint8_t doorbell = 0;
    return mcz_os_write_all(ch->fd, &doorbell, 1);
}

/* While the ring is full: wake the parent, then pause. */
static int chan_wait(void *arg)
{
    if (chan_wake(arg) != MCZ_OK)
        return -1;
    nanosleep(&(struct timespec){0, RING_WAIT_NS}, NULL);
    return 0;
}

static int chan_put(replay_chan *ch, int type, int kind, uint32_t number, uint32_t size,
                    const void *text, size_t text_len)
{
    if (text_len > REPLAY_MESSAGE_MAX - 1)
        text_len = REPLAY_MESSAGE_MAX - 1;
    uint8_t rec[REC_HEADER];
    uint16_t len16 = (uint16_t)text_len;
    rec[0] = (uint8_t)type;
    rec[1] = (uint8_t)kind;
    memcpy(rec + 2, &len16, 2);
    memcpy(rec + 4, &number, 4);
    memcpy(rec + 8, &size, 4);
    return replay_ring_put(ch->ring, rec, REC_HEADER, text, text_len, chan_wait, ch);
}

int replay_chan_send(replay_chan *ch, int type, int kind, uint32_t number, uint32_t size,
                     const void *text, size_t text_len)
{
    int rc = chan_put(ch, type, kind, number, size, text, text_len);
    return rc == MCZ_OK ? chan_wake(ch) : rc;
}

int replay_chan_start(replay_chan *ch, uint32_t number, uint32_t size, bool whole_unit)
{
    fflush(NULL); /* the replayer's output so far belongs before whatever comes next */
    return chan_put(ch, REPLAY_REC_START, whole_unit, number, size, NULL, 0);
}

int replay_chan_result(replay_chan *ch, uint32_t number, int kind, uint32_t size, const char *msg)
{
    return chan_put(ch, REPLAY_REC_RESULT, kind, number, size, msg, msg ? strlen(msg) : 0);
}

void replay_rows_path(const char *temp_dir, size_t slot, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/rows.%zu", temp_dir, slot);
}

/* Appends text to the rows file; its place, "OFFSET LENGTH", in where. */
static int rows_put(replay_chan *ch, const char *text, char *where, size_t cap)
{
    size_t len = strlen(text);
    int64_t at = ch->rows_fd >= 0 ? mcz_os_seek_end(ch->rows_fd) : -1;
    if (at < 0 || mcz_os_write_all(ch->rows_fd, text, len) != 0)
        return MCZ_EIO;
    snprintf(where, cap, "%lld %zu", (long long)at, len);
    return MCZ_OK;
}

bool replay_rows_where(const char *text, uint64_t *at, size_t *len)
{
    const char *space = strchr(text, ' ');
    char offset[24];
    uint64_t n;
    if (!space || (size_t)(space - text) >= sizeof offset)
        return false;
    memcpy(offset, text, (size_t)(space - text));
    offset[space - text] = '\0';
    if (!replay_parse_count(offset, 0, INT64_MAX, at) ||
        !replay_parse_count(space + 1, 0, REPLAY_ROWS_MAX, &n))
        return false;
    *len = (size_t)n;
    return true;
}

int replay_chan_rows(replay_chan *ch, uint32_t number, int kind, bool miss, uint32_t size,
                     const char *header, const char *rows)
{
    char where[64];
    if (!ch->columns_sent || strcmp(ch->columns_sent, header) != 0) {
        free(ch->columns_sent);
        if (!(ch->columns_sent = strdup(header)))
            return MCZ_ENOMEM;
        if (rows_put(ch, header, where, sizeof where) != MCZ_OK)
            return MCZ_EIO;
        int rc = chan_put(ch, REPLAY_REC_COLUMNS, 0, 0, 0, where, strlen(where));
        if (rc != MCZ_OK)
            return rc;
    }
    if (rows_put(ch, rows, where, sizeof where) != MCZ_OK)
        return MCZ_EIO;
    return chan_put(ch, REPLAY_REC_RESULT, kind | REPLAY_REC_ROW | (miss ? REPLAY_REC_MISS : 0),
                    number, size, where, strlen(where));
}

_Noreturn void replay_chan_fatal(replay_chan *ch, const char *msg)
{
    fflush(NULL);
    replay_chan_send(ch, REPLAY_REC_FATAL, 0, 0, 0, msg, strlen(msg));
    _Exit(REPLAY_EXIT_INIT_FAILED);
}

_Noreturn void replay_chan_broken(replay_chan *ch, const char *msg)
{
    fflush(NULL);
    replay_chan_send(ch, REPLAY_REC_FATAL, REPLAY_FATAL_BROKEN, 0, 0, msg, strlen(msg));
    _Exit(REPLAY_EXIT_GENERAL);
}

/* Parses the complete records buffered; leaves at most a partial one. */
static int parse_records(replay_record_reader *rd,
                         void (*on_record)(void *arg, const replay_record *rec), void *arg,
                         const char **why)
{
    size_t at = 0;
    while (rd->len - at >= REC_HEADER) {
        const uint8_t *p = rd->buf + at;
        uint16_t text_len;
        replay_record rec = {.type = p[0], .kind = p[1]};
        memcpy(&text_len, p + 2, 2);
        memcpy(&rec.number, p + 4, 4);
        memcpy(&rec.size, p + 8, 4);
        if (text_len >= REPLAY_MESSAGE_MAX) {
            rd->len = 0;
            *why = "a worker sent an oversized record";
            return MCZ_ECORRUPT;
        }
        if (rd->len - at < REC_HEADER + text_len)
            break;
        char text[REPLAY_MESSAGE_MAX];
        memcpy(text, p + REC_HEADER, text_len);
        text[text_len] = '\0';
        rec.text = text;
        rec.text_len = text_len;
        at += REC_HEADER + text_len;
        on_record(arg, &rec);
    }
    memmove(rd->buf, rd->buf + at, rd->len - at);
    rd->len -= at;
    return MCZ_OK;
}

int replay_records_take(replay_record_reader *rd, replay_ring *g,
                        void (*on_record)(void *arg, const replay_record *rec), void *arg,
                        const char **why)
{
    for (;;) {
        long n = replay_ring_take(g, &rd->taken, rd->buf + rd->len, sizeof rd->buf - rd->len);
        if (n < 0) {
            *why = "a worker damaged its record ring";
            return MCZ_ECORRUPT;
        }
        if (n == 0)
            return MCZ_OK;
        rd->len += (size_t)n;
        int rc = parse_records(rd, on_record, arg, why);
        if (rc != MCZ_OK)
            return rc;
    }
}
