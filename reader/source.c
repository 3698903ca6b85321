/*
 * source.c - one interface over the two kinds of collection: an .mcz archive (recognised by its
 * magic) read through a reader and a cursor, or a legacy .mch file mapped whole, walked with
 * mcz_mch_next, and reached at random through its .mct when it has a valid one, otherwise
 * through a table of offsets built by one scan on the first random access.
 */
#include <stdlib.h>

#include "mcz_common.h"
#include "reader_impl.h"

struct mcz_source {
    mcz_reader *reader; /* archive; NULL for an MCH */
    mcz_cursor *cursor;
    uint64_t next_chunk; /* archive iteration: chunk, and position inside it */
    uint32_t next_in_chunk;

    mcz_file file; /* MCH */
    uint64_t pos;
    uint32_t number;
    uint64_t dropped; /* the file's bytes before this left memory (mcz_file_drop_behind) */
    mcz_toc_entry *toc; /* NULL when absent, invalid, or found wrong */
    uint32_t toc_count;
    uint64_t *offsets; /* scan table: offsets[i] is context i+1; NULL until needed */
    uint32_t offset_count;
    bool scanned;
    mcz_diag scan_error; /* why the scan stopped early, if it did */
};

/* Loads the .mct beside an MCH when it parses and lies inside the file; otherwise none. */
static void load_toc(mcz_source *s, const char *path)
{
    char toc_path[4096];
    if (mcz_toc_find(path, toc_path, sizeof toc_path) != 1)
        return;
    mcz_file f;
    if (mcz_file_map(toc_path, &f, NULL) != MCZ_OK)
        return;
    if (mcz_toc_parse(f.data, f.size, true, &s->toc, &s->toc_count, NULL) != MCZ_OK) {
        s->toc = NULL;
        s->toc_count = 0;
    }
    mcz_file_unmap(&f);
    for (uint32_t i = 0; s->toc && i < s->toc_count; i++) {
        if (s->toc[i].offset < 0 || (uint64_t)s->toc[i].offset >= s->file.size ||
            s->toc[i].number <= 0) {
            free(s->toc);
            s->toc = NULL;
        }
    }
}

static int open_archive(mcz_source *s, mcz_diag *diag)
{
    s->reader = mcz_reader_open_image(s->file.data, s->file.size, diag);
    if (!s->reader)
        return diag ? diag->code : MCZ_ECORRUPT;
    s->reader->file = s->file; /* the reader owns the image now */
    s->file.impl_ = NULL;
    s->cursor = mcz_cursor_create(s->reader);
    return s->cursor ? MCZ_OK : mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
}

mcz_source *mcz_source_open(const char *path, mcz_diag *diag)
{
    mcz_source *s = calloc(1, sizeof *s);
    if (!s) {
        mcz_fail(diag, MCZ_ENOMEM, -1, -1, "out of memory");
        return NULL;
    }
    mcz_diag_clear(&s->scan_error);
    int rc = mcz_file_map(path, &s->file, diag);
    if (rc == MCZ_OK && mcz_arc_looks_like(s->file.data, s->file.size))
        rc = open_archive(s, diag);
    else if (rc == MCZ_OK)
        load_toc(s, path);
    if (rc != MCZ_OK) {
        mcz_source_close(s);
        return NULL;
    }
    return s;
}

void mcz_source_close(mcz_source *s)
{
    if (!s)
        return;
    mcz_cursor_free(s->cursor);
    mcz_reader_close(s->reader);
    mcz_file_unmap(&s->file);
    free(s->toc);
    free(s->offsets);
    free(s);
}

const mcz_reader *mcz_source_archive(const mcz_source *s)
{
    return s ? s->reader : NULL;
}

static int archive_next(mcz_source *s, mcz_mc *out, mcz_diag *diag)
{
    mcz_chunk_info c;
    if (mcz_reader_chunk(s->reader, s->next_chunk, &c) != MCZ_OK)
        return 0;
    int rc = mcz_cursor_get(s->cursor, c.first_number + s->next_in_chunk, out, diag);
    if (rc != MCZ_OK)
        return rc;
    if (++s->next_in_chunk == c.count) {
        s->next_chunk++;
        s->next_in_chunk = 0;
    }
    return 1;
}

int mcz_source_next(mcz_source *s, mcz_mc *out, mcz_diag *diag)
{
    if (!s || !out)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_source_next: NULL argument");
    if (s->reader)
        return archive_next(s, out, diag);
    mcz_file_drop_behind(&s->file, &s->dropped, s->pos);
    return mcz_mch_next(s->file.data, s->file.size, &s->pos, &s->number, out, diag);
}

/* Builds the scan table once: every context's offset, up to the end or the first damage. */
static int scan_offsets(mcz_source *s)
{
    uint64_t pos = 0, cap = 0, dropped = 0;
    uint32_t number = 0;
    for (;;) {
        uint64_t at = pos;
        mcz_mc mc;
        mcz_file_drop_behind(&s->file, &dropped, pos);
        int rc = mcz_mch_next(s->file.data, s->file.size, &pos, &number, &mc, &s->scan_error);
        if (rc <= 0) /* the end, or damage: scan_error says which */
            return MCZ_OK;
        if (s->offset_count == cap) {
            cap = cap ? cap * 2 : 1024;
            uint64_t *bigger = realloc(s->offsets, cap * sizeof *bigger);
            if (!bigger)
                return MCZ_ENOMEM;
            s->offsets = bigger;
        }
        s->offsets[s->offset_count++] = at;
    }
}

/* The context at a known offset, which must carry `number`. */
static int mch_at(mcz_source *s, uint64_t offset, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    uint64_t pos = offset;
    uint32_t n = number - 1;
    mcz_file_drop_behind(&s->file, &s->dropped, offset); /* reads in file order stay flat */
    int rc = mcz_mch_next(s->file.data, s->file.size, &pos, &n, out, diag);
    if (rc == 1)
        return MCZ_OK;
    return rc < 0 ? rc : mcz_fail(diag, MCZ_ENOTFOUND, (int64_t)offset, number, "no context %u",
                                  number);
}

static const mcz_toc_entry *toc_find(const mcz_source *s, uint32_t number)
{
    uint32_t lo = 0, hi = s->toc_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)s->toc[mid].number < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->toc_count && (uint32_t)s->toc[lo].number == number ? &s->toc[lo] : NULL;
}

static int mch_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    const mcz_toc_entry *e = s->toc ? toc_find(s, number) : NULL;
    if (e && mch_at(s, (uint64_t)e->offset, number, out, NULL) == MCZ_OK)
        return MCZ_OK;
    if (e) { /* the .mct does not match this file: stop trusting it */
        free(s->toc);
        s->toc = NULL;
    }
    if (!s->scanned) {
        s->scanned = true;
        int rc = scan_offsets(s);
        if (rc != MCZ_OK)
            return mcz_fail(diag, rc, -1, number, "out of memory");
    }
    if (number >= 1 && number <= s->offset_count)
        return mch_at(s, s->offsets[number - 1], number, out, diag);
    if (s->scan_error.code != MCZ_OK) {
        if (diag)
            *diag = s->scan_error;
        return s->scan_error.code;
    }
    return mcz_fail(diag, MCZ_ENOTFOUND, -1, number, "the file holds no context %u", number);
}

int mcz_source_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    if (!s || !out)
        return mcz_fail(diag, MCZ_EINVAL, -1, number, "mcz_source_get: NULL argument");
    if (s->reader)
        return mcz_cursor_get(s->cursor, number, out, diag);
    return mch_get(s, number, out, diag);
}
