/*
 * source.c - one interface over the two kinds of collection: an .mcz archive (recognised by its
 * magic) read through a reader and a cursor, or a legacy .mch file mapped whole, walked with
 * mcz_mch_next, and reached at random through its .mct when it has a usable one, otherwise
 * through a table of offsets built by one scan on the first random access. A .mct is hostile
 * too: a context is read through it only once its offset is proven (every context before it
 * begins where the one before ends) and its identity is the one the table records; at the
 * first disagreement the source stops using it and scans (mcz_source_toc_rejected says why).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcz_common.h"
#include "reader_impl.h"

struct mcz_source {
    mcz_reader *reader; /* archive; NULL for an MCH */
    mcz_cursor *cursor;
    uint64_t next_chunk; /* archive iteration: chunk, and position inside it */
    uint32_t next_in_chunk;

    mcz_src *src; /* MCH: its bytes, one view of the whole (fetched at open when remote) */
    const uint8_t *data;
    size_t size;
    uint64_t pos;
    uint32_t number;
    uint64_t dropped; /* the file's bytes before this left memory (mcz_src_drop_behind) */
    char *toc_path;     /* the .mct beside the file (for a URL, the first to try); NULL: none */
    bool toc_remote;    /* toc_path is a URL: absent when it cannot be opened */
    bool toc_loaded;    /* read at the first random access */
    mcz_toc_entry *toc; /* entry i is context i+1; NULL when absent, unusable, or found wrong */
    uint32_t toc_count;
    uint32_t toc_proven;  /* entries 1..toc_proven are where a scan finds their contexts */
    mcz_diag toc_problem; /* why the .mct is not used (code MCZ_OK while it is) */
    bool toc_reported;    /* mcz_source_toc_rejected has told it */
    uint64_t *offsets; /* scan table: offsets[i] is context i+1; NULL until needed */
    uint32_t offset_count;
    bool scanned;
    mcz_diag scan_error; /* why the scan stopped early, if it did */
    const uint8_t *foreign; /* a file that is no collection: its bytes, for the message; NULL */
};

/* Stops using the .mct; toc_problem says why. Returns MCZ_ECORRUPT. */
static int toc_drop(mcz_source *s)
{
    free(s->toc);
    s->toc = NULL;
    s->toc_count = 0;
    return MCZ_ECORRUPT;
}

/* The .mct of an MCH source: its file, or for a URL the first of SuperPMI's two names for it
 * (X.mch.mct, X.mct) the server has (toc_path becomes that one). NULL when none opens. */
static mcz_src *toc_open(mcz_source *s)
{
    mcz_src *toc = mcz_src_open(s->toc_path, 0, NULL);
    size_t len = strlen(s->toc_path);
    if (toc || !s->toc_remote || len < 8 || strcasecmp(s->toc_path + len - 8, ".mch.mct") != 0)
        return toc;
    memmove(s->toc_path + len - 8, ".mct", 5); /* X.mch.mct -> X.mct */
    return mcz_src_open(s->toc_path, 0, NULL);
}

/* Reads the .mct at the first random access: used when it parses and mcz_toc_check finds it
 * can be this file's, otherwise dropped (toc_problem says why). */
static void toc_load(mcz_source *s)
{
    s->toc_loaded = true;
    if (!s->toc_path)
        return;
    mcz_src *toc = toc_open(s);
    if (!toc) {
        if (s->toc_remote) { /* no table beside the URL */
            free(s->toc_path);
            s->toc_path = NULL;
        } else {
            mcz_diag_set(&s->toc_problem, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                         "it cannot be read");
        }
        return;
    }
    int rc = mcz_toc_load(toc, true, &s->toc, &s->toc_count, &s->toc_problem);
    mcz_src_close(toc);
    if (rc == MCZ_OK)
        rc = mcz_toc_check(s->toc, s->toc_count, s->size, &s->toc_problem);
    if (rc != MCZ_OK)
        toc_drop(s);
    s->toc_proven = s->toc_count ? 1 : 0;
}

/* An .mcz name (any case). */
static bool archive_name(const char *path)
{
    size_t len = strlen(path);
    return len >= 4 && strcasecmp(path + len - 4, ".mcz") == 0;
}

/* Opens a file that is no MCH but shows signs of an archive (mcz_arc_looks_damaged) as one: it
 * fails (a whole header would have been recognised), and the message says it is a damaged
 * archive. */
static int open_damaged_archive(mcz_source *s, mcz_diag *diag)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    s->reader = mcz_rd_open_src(s->src, &d);
    if (s->reader) /* the footer, the index and the header all check out after all */
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(0), MCZ_NO_CONTEXT,
                            "damaged archive: its header is not one");
    mcz_diag_set(diag, d.code, mcz_at_offset(d.offset), mcz_in_context(d.context),
                 "damaged archive: %s", d.message);
    mcz_diag_set_subject(diag, d.subject);
    return d.code;
}

static bool starts_like_mch(const uint8_t *data, size_t size)
{
    return size >= 2 && data[0] == 'm' && data[1] == 'c';
}

/* What a file that is no collection looks like, by its first bytes, for the message: "" when
 * nothing tells. */
static const char *foreign_kind(const uint8_t *data, size_t size)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *kind;
    } kinds[] = {
        {"\x7f"
         "ELF", 4, "; it is an ELF file (a core dump holds an archive only as a memory image)"},
        {"\x28\xb5\x2f\xfd", 4, "; it is a zstd frame"},
        {"\xfd" "7zXZ", 6, "; it is an xz file"},
        {"\x1f\x8b", 2, "; it is a gzip file"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (size >= kinds[i].len && memcmp(data, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].kind;
    size_t n = size < 512 ? size : 512, text = 0;
    for (size_t i = 0; i < n; i++)
        text += data[i] >= 0x20 || data[i] == '\n' || data[i] == '\r' || data[i] == '\t';
    return n > 0 && text == n ? "; it looks like text" : "";
}

/* A file that is neither an MCH (its first context would begin 'mc') nor an archive. */
static int not_a_collection(const uint8_t *data, size_t size, mcz_diag *diag)
{
    return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                        "not a collection: neither an MCH file (whose first context begins 'mc') "
                        "nor an mcz archive (no header, no footer)%s",
                        foreign_kind(data, size));
}

static int open_archive(mcz_source *s, mcz_diag *diag)
{
    s->reader = mcz_rd_open_src(s->src, diag);
    if (!s->reader)
        return diag ? diag->code : MCZ_ECORRUPT;
    s->cursor = mcz_cursor_create(s->reader);
    return s->cursor ? MCZ_OK : mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                             "out of memory");
}

/* A remote file whose trailer is an archive's footer: an archive, opened without looking at
 * its first bytes (which would cost a request of their own). */
static bool remote_archive(mcz_src *src)
{
    const uint8_t *v;
    uint64_t size = mcz_src_size(src);
    mcz_arc_footer f;
    return mcz_src_remote(src) && size >= MCZ_ARC_FOOTER_SIZE &&
           mcz_src_view(src, size - MCZ_ARC_FOOTER_SIZE, MCZ_ARC_FOOTER_SIZE, &v, NULL) == MCZ_OK &&
           mcz_arc_footer_decode(v - (size - MCZ_ARC_FOOTER_SIZE), (size_t)size, &f, NULL) == MCZ_OK;
}

/* Notes the .mct beside an MCH, read only when a context is first asked for by number. A URL's
 * is looked for then, at X.mch.mct and X.mct (SuperPMI's names for it). */
static int toc_find(mcz_source *s, const char *path, mcz_diag *diag)
{
    char toc_path[4096];
    if (mcz_src_is_url(path)) {
        if ((size_t)snprintf(toc_path, sizeof toc_path, "%s.mct", path) >= sizeof toc_path)
            return MCZ_OK;
        s->toc_remote = true;
    } else if (mcz_toc_find(path, toc_path, sizeof toc_path) != 1) {
        return MCZ_OK;
    }
    s->toc_path = strdup(toc_path);
    return s->toc_path ? MCZ_OK : mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                               "out of memory");
}

int mcz_looks_like_archive(const void *head, size_t len)
{
    return head && mcz_arc_looks_like(head, len);
}

/* Opens s over its source: an archive, a damaged one, an MCH or something else. */
static int source_open(mcz_source *s, const char *path, mcz_diag *diag)
{
    if (remote_archive(s->src))
        return open_archive(s, diag);
    const uint8_t *data;
    int rc = mcz_src_view(s->src, 0, mcz_src_size(s->src), &data, diag); /* an MCH: whole */
    if (rc != MCZ_OK)
        return rc;
    size_t size = (size_t)mcz_src_size(s->src);
    s->data = data;
    s->size = size;
    /* An .mcz name makes a file with no sign of either kind a damaged archive, unless its
     * bytes say it is something else (text, an ELF file). */
    bool named = archive_name(path) && !starts_like_mch(data, size) && !*foreign_kind(data, size);
    if (mcz_arc_looks_like(data, size))
        return open_archive(s, diag);
    if (mcz_arc_looks_damaged(data, size, named))
        return open_damaged_archive(s, diag);
    if (size > 0 && !starts_like_mch(data, size))
        s->foreign = data; /* said at the first read */
    else
        return toc_find(s, path, diag);
    return MCZ_OK;
}

mcz_source *mcz_source_open(const char *path, mcz_diag *diag)
{
    mcz_src *src = mcz_src_open(path, MCZ_ARC_FOOTER_SIZE, diag);
    mcz_source *s = src ? mcz_rd_source_open_src(src, path, diag) : NULL;
    mcz_src_close(src);
    return s;
}

mcz_source *mcz_rd_source_open_src(mcz_src *src, const char *path, mcz_diag *diag)
{
    mcz_source *s = calloc(1, sizeof *s);
    if (!s) {
        mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_diag_clear(&s->scan_error);
    mcz_diag_clear(&s->toc_problem);
    s->src = mcz_src_ref(src);
    if (source_open(s, path, diag) != MCZ_OK) {
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
    mcz_src_close(s->src);
    free(s->toc);
    free(s->toc_path);
    free(s->offsets);
    free(s);
}

const mcz_jit_ee *mcz_source_jit_ee(mcz_source *s, uint32_t *fits, uint32_t *voted)
{
    const mcz_reader *r = s ? mcz_source_archive(s) : NULL;
    const mcz_jit_ee *recorded = r ? mcz_reader_jit_ee(r) : NULL;
    uint32_t mask = recorded ? 1u << mcz_jit_ee_index(recorded) : mcz_jit_ee_fits_all();
    uint32_t first = 1;
    if (r) {
        mcz_archive_info info;
        mcz_reader_get_info(r, &info);
        first = info.first_number;
    }
    uint64_t bytes = 0;
    uint32_t i = 0;
    mcz_mc mc;
    for (; s && !recorded && i < MCZ_JIT_EE_DETECT_CONTEXTS &&
                         bytes < MCZ_JIT_EE_DETECT_BYTES && first + i >= first;
         i++) {
        if (mcz_source_get(s, first + i, &mc, NULL) != MCZ_OK)
            break;
        mcz_jit_ee_vote(&mask, &mc);
        bytes += mc.size;
    }
    if (fits)
        *fits = mask;
    if (voted)
        *voted = i;
    return mcz_jit_ee_from_fits(mask);
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
    int rc = s->next_in_chunk || s->next_chunk % MCZ_HTTP_READAHEAD
                 ? MCZ_OK /* a remote archive: the chunks ahead come in one request */
                 : mcz_reader_prefetch(s->reader, s->next_chunk, MCZ_HTTP_READAHEAD, diag);
    if (rc == MCZ_OK)
        rc = mcz_cursor_get(s->cursor, c.first_number + s->next_in_chunk, out, diag);
    if (rc != MCZ_OK)
        return rc;
    if (++s->next_in_chunk == c.count) {
        s->next_chunk++;
        s->next_in_chunk = 0;
    }
    return 1;
}

/* mcz_mch_next over s's file, which reports a file that is no collection as one (at the first
 * read: opening stays cheap, and an empty MCH stays an empty collection). */
static int mch_next(const mcz_source *s, uint64_t *pos, uint32_t *number, mcz_mc *out,
                    mcz_diag *diag)
{
    if (s->foreign)
        return not_a_collection(s->data, s->size, diag);
    return mcz_mch_next(s->data, s->size, pos, number, out, diag);
}

int mcz_source_next(mcz_source *s, mcz_mc *out, mcz_diag *diag)
{
    if (!s || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_source_next: NULL argument");
    if (s->reader)
        return archive_next(s, out, diag);
    mcz_src_drop_behind(s->src, &s->dropped, s->pos);
    return mch_next(s, &s->pos, &s->number, out, diag);
}

/* Builds the scan table once: every context's offset, up to the end or the first damage. */
static int scan_offsets(mcz_source *s)
{
    uint64_t pos = 0, cap = 0, dropped = 0;
    uint32_t number = 0;
    for (;;) {
        uint64_t at = pos;
        mcz_mc mc;
        mcz_src_drop_behind(s->src, &dropped, pos);
        int rc = mch_next(s, &pos, &number, &mc, &s->scan_error);
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
    mcz_src_drop_behind(s->src, &s->dropped, offset); /* reads in file order stay flat */
    int rc = mch_next(s, &pos, &n, out, diag);
    if (rc == 1)
        return MCZ_OK;
    return rc < 0 ? rc : mcz_diag_set(diag, MCZ_ENOTFOUND, mcz_at_offset((int64_t)offset),
                                      mcz_in_context(number), "no context %u", number);
}

/* The identity of mc is the one entry e records, when it records one. Returns MCZ_OK, or
 * drops the .mct (MCZ_ECORRUPT); MCZ_ENOMEM when the identity could not be computed. */
static int toc_identity_check(mcz_source *s, const mcz_toc_entry *e, const mcz_mc *mc)
{
    if (e->hash[0] == '\0')
        return MCZ_OK;
    char hex[33] = "";
    /* The table was written by a tool of the collection's version, which the source does not
     * know: the identity under any version mcz knows will do. */
    for (size_t i = 0; i < mcz_jit_ee_count(); i++) {
        mcz_hash128 h;
        char one[33] = "";
        int rc = mcz_mc_identity_hash(mcz_jit_ee_at(i), mc, false, &h, NULL);
        if (rc == MCZ_ENOMEM)
            return rc;
        if (rc == MCZ_OK)
            mcz_hash_hex(&h, one);
        if (strcmp(one, e->hash) == 0)
            return MCZ_OK;
        if (one[0] && !hex[0])
            memcpy(hex, one, sizeof hex);
    }
    mcz_diag_set(&s->toc_problem, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                 "it records identity %s for context %u, which has %s", e->hash, mc->number,
                 hex[0] ? hex : "none");
    return toc_drop(s);
}

/*
 * Proves the table's offsets up to context `number`: context 1 is at 0 (mcz_toc_check), and
 * each next one begins where the one before ends, as a scan would find them. Each context is
 * walked once per source, however many are read. MCZ_ECORRUPT, with the .mct dropped, at the
 * first offset that is not where its context lies.
 */
static int toc_prove(mcz_source *s, uint32_t number)
{
    while (s->toc_proven < number) {
        uint32_t n = s->toc_proven; /* context n's offset is proven; n + 1's is next */
        uint64_t at = (uint64_t)s->toc[n - 1].offset, next = (uint64_t)s->toc[n].offset;
        mcz_mc mc;
        if (mch_at(s, at, n, &mc, NULL) != MCZ_OK) {
            mcz_diag_set(&s->toc_problem, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                         "context %u at %llu is not a whole context", n, (unsigned long long)at);
            return toc_drop(s);
        }
        if (at + mc.size != next) {
            mcz_diag_set(&s->toc_problem, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                         "it places context %u at %llu, but context %u ends at %llu", n + 1,
                         (unsigned long long)next, n, (unsigned long long)(at + mc.size));
            return toc_drop(s);
        }
        s->toc_proven = n + 1;
    }
    return MCZ_OK;
}

/* Context `number` through the .mct: at its proven offset, with the identity the table records.
 * MCZ_ECORRUPT when not, with the .mct dropped (the caller scans instead). */
static int toc_get(mcz_source *s, uint32_t number, mcz_mc *out)
{
    assert(number >= 1 && number <= s->toc_count);
    int rc = toc_prove(s, number);
    if (rc != MCZ_OK)
        return rc;
    const mcz_toc_entry *e = &s->toc[number - 1];
    if (mch_at(s, (uint64_t)e->offset, number, out, NULL) != MCZ_OK) {
        mcz_diag_set(&s->toc_problem, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "context %u at %llu is not a whole context", number,
                     (unsigned long long)e->offset);
        return toc_drop(s);
    }
    return toc_identity_check(s, e, out);
}

static int mch_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    if (!s->toc_loaded)
        toc_load(s);
    if (number >= 1 && number <= s->toc_count) {
        int rc = toc_get(s, number, out);
        if (rc == MCZ_OK || rc == MCZ_ENOMEM)
            return rc == MCZ_OK ? MCZ_OK : mcz_diag_set(diag, rc, MCZ_NO_OFFSET,
                                                        mcz_in_context(number), "out of memory");
    }
    if (!s->scanned) {
        s->scanned = true;
        int rc = scan_offsets(s);
        if (rc != MCZ_OK)
            return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, mcz_in_context(number), "out of memory");
    }
    if (number >= 1 && number <= s->offset_count)
        return mch_at(s, s->offsets[number - 1], number, out, diag);
    if (s->scan_error.code != MCZ_OK) {
        if (diag)
            *diag = s->scan_error;
        return s->scan_error.code;
    }
    return mcz_diag_set(diag, MCZ_ENOTFOUND, MCZ_NO_OFFSET, mcz_in_context(number),
                        "the file holds no context %u", number);
}

const char *mcz_source_toc(mcz_source *s)
{
    if (!s || s->reader)
        return NULL;
    if (s->toc_remote && !s->toc_loaded)
        toc_load(s); /* which of the URL's two names the server has */
    return s->toc_path;
}

const char *mcz_source_toc_rejected(mcz_source *s, mcz_diag *why)
{
    if (!s || s->toc_reported || s->toc_problem.code == MCZ_OK)
        return NULL;
    s->toc_reported = true;
    if (why)
        *why = s->toc_problem;
    return s->toc_path;
}

int mcz_source_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag)
{
    if (out)
        *out = (mcz_mc){0};
    if (!s || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, mcz_in_context(number),
                            "mcz_source_get: NULL argument");
    if (s->reader)
        return mcz_cursor_get(s->cursor, number, out, diag);
    return mch_get(s, number, out, diag);
}
