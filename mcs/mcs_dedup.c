/* mcs_dedup.c - the deduplicator of -removeDup and -merge -dedup (mcs_dedup.h). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_context.h"
#include "mcs_dedup.h"
#include "mcz_agnostic.h"

/*
 * ---- The keys seen: (key, sequence number) entries in sorted runs ----
 *
 * Every context gets a sequence number (its place among all the inputs' contexts). Entries
 * gather in a buffer of at most run_cap; a full buffer is sorted by (key, number) and written
 * as a run to one temporary file (under TMPDIR), runs back to back. Deciding merges the runs
 * (the buffer alone, sorted in place, when nothing was spilled): the first entry of each key
 * is its first occurrence, whose bit is set in `kept`. Memory: the buffer (run_cap entries of
 * 24 bytes), a read buffer per run while merging, and one bit per context.
 */

typedef struct dedup_entry {
    mcz_hash128 key;
    uint64_t number;
} dedup_entry;

#define DEDUP_RUN_DEFAULT (128u * 1024) /* entries per run: 3 MiB */
#define DEDUP_RUN_ENV "MCZ_DEDUP_RUN"   /* entries per run instead (tests spill with few) */
#define DEDUP_READ_ENTRIES 2048u        /* read buffer of one run while merging: 48 KiB */

typedef struct run_set {
    dedup_entry *buf;
    size_t used, cap;
    FILE *file;          /* the spilled runs; NULL until the first spill */
    char *dir, *path;    /* where it lies, removed as soon as the system allows */
    uint64_t *ends;      /* entries in the file at the end of each run */
    size_t runs, ends_cap;
    uint64_t total;      /* entries recorded: the next sequence number */
} run_set;

static int entry_cmp(const void *a, const void *b)
{
    const dedup_entry *x = a, *y = b;
    int c = memcmp(x->key.bytes, y->key.bytes, sizeof x->key.bytes);
    return c ? c : (x->number > y->number) - (x->number < y->number);
}

static size_t run_cap_from_env(void)
{
    const char *text = getenv(DEDUP_RUN_ENV);
    uint64_t n;
    if (text && tool_parse_count(text, true, 1, SIZE_MAX / sizeof(dedup_entry), &n) == MCZ_OK)
        return (size_t)n;
    return DEDUP_RUN_DEFAULT;
}

static void run_set_free(run_set *r)
{
    if (r->file)
        fclose(r->file);
    if (r->path)
        remove(r->path); /* again: a system that keeps open files from removal */
    if (r->dir)
        mcz_os_rmdir(r->dir);
    free(r->path);
    free(r->dir);
    free(r->buf);
    free(r->ends);
    memset(r, 0, sizeof *r);
}

/* The temporary file of the runs, removed from its directory at once where the system lets an
 * open file go (so nothing is left behind, however the process ends). 0, or -1 (printed). */
static int run_file_open(run_set *r)
{
    const char *base = mcz_os_temp_dir();
    size_t len = strlen(base) + sizeof "/mcs-dedup-XXXXXX/runs";
    r->dir = malloc(len);
    r->path = malloc(len);
    if (!r->dir || !r->path) {
        tool_error("out of memory");
        return -1;
    }
    snprintf(r->dir, len, "%s/mcs-dedup-XXXXXX", base);
    if (!mcz_os_mkdtemp(r->dir)) {
        tool_error("%s: cannot make a temporary directory for the keys: %s", base,
                   strerror(errno));
        free(r->dir);
        r->dir = NULL;
        return -1;
    }
    snprintf(r->path, len, "%s/runs", r->dir);
    r->file = fopen(r->path, "w+b");
    if (!r->file) {
        tool_error("%s: %s", r->path, strerror(errno));
        return -1;
    }
    if (remove(r->path) == 0 && mcz_os_rmdir(r->dir) == 0) {
        free(r->path);
        free(r->dir);
        r->path = r->dir = NULL;
    }
    return 0;
}

static const char *run_file_name(const run_set *r)
{
    return r->path ? r->path : "the deduplicator's temporary file";
}

/* Sorts the buffer and appends it to the file as one run. 0, or -1 (printed). */
static int run_spill(run_set *r)
{
    if (!r->file && run_file_open(r) != 0)
        return -1;
    if (r->runs == r->ends_cap) {
        size_t cap = r->ends_cap ? 2 * r->ends_cap : 16;
        uint64_t *ends = realloc(r->ends, cap * sizeof *ends);
        if (!ends) {
            tool_error("out of memory");
            return -1;
        }
        r->ends = ends;
        r->ends_cap = cap;
    }
    qsort(r->buf, r->used, sizeof *r->buf, entry_cmp);
    if (fwrite(r->buf, sizeof *r->buf, r->used, r->file) != r->used) {
        tool_error("%s: %s", run_file_name(r), strerror(errno));
        return -1;
    }
    r->ends[r->runs] = (r->runs ? r->ends[r->runs - 1] : 0) + r->used;
    r->runs++;
    r->used = 0;
    return 0;
}

/* Records the key of the next context. 0, or -1 (printed). */
static int run_add(run_set *r, const mcz_hash128 *key)
{
    if (!r->buf) {
        r->cap = run_cap_from_env();
        r->buf = malloc(r->cap * sizeof *r->buf);
        if (!r->buf) {
            tool_error("out of memory");
            return -1;
        }
    }
    if (r->used == r->cap && run_spill(r) != 0)
        return -1;
    r->buf[r->used].key = *key;
    r->buf[r->used].number = r->total++;
    r->used++;
    return 0;
}

/* One spilled run being read while merging. */
typedef struct run_reader {
    dedup_entry buf[DEDUP_READ_ENTRIES];
    size_t at, have;
    uint64_t next, end; /* entries of the file still to read: [next, end) */
} run_reader;

/* The reader's current entry, reading more of its run when it is used up: 1, 0 at the run's
 * end, -1 (printed). */
static int reader_fill(run_set *r, run_reader *rd)
{
    if (rd->at < rd->have)
        return 1;
    if (rd->next == rd->end)
        return 0;
    uint64_t n = rd->end - rd->next;
    rd->have = n < DEDUP_READ_ENTRIES ? (size_t)n : DEDUP_READ_ENTRIES;
    rd->at = 0;
    if (fseeko(r->file, (off_t)(rd->next * sizeof(dedup_entry)), SEEK_SET) != 0 ||
        fread(rd->buf, sizeof(dedup_entry), rd->have, r->file) != rd->have) {
        tool_error("%s: cannot read back the keys: %s", run_file_name(r),
                   ferror(r->file) ? strerror(errno) : "short file");
        return -1;
    }
    rd->next += rd->have;
    return 1;
}

static bool reader_less(const run_reader *a, const run_reader *b)
{
    return entry_cmp(&a->buf[a->at], &b->buf[b->at]) < 0;
}

/* Restores the heap (of readers by current entry) below position i. */
static void heap_down(run_reader **heap, size_t n, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, rt = l + 1;
        if (l < n && reader_less(heap[l], heap[least]))
            least = l;
        if (rt < n && reader_less(heap[rt], heap[least]))
            least = rt;
        if (least == i)
            return;
        run_reader *t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

/* Tracks the key of the entry last merged: each key's first entry sets its number's bit. */
typedef struct first_of_key {
    uint8_t *kept;
    mcz_hash128 last;
    bool any;
} first_of_key;

static void take(first_of_key *f, const dedup_entry *e)
{
    if (f->any && memcmp(f->last.bytes, e->key.bytes, sizeof e->key.bytes) == 0)
        return;
    f->kept[e->number / 8] |= (uint8_t)(1u << (e->number % 8));
    f->last = e->key;
    f->any = true;
}

/* The runs merged in (key, number) order. 0, or -1 (printed). */
static int merge_runs(run_set *r, first_of_key *f)
{
    run_reader *readers = calloc(r->runs, sizeof *readers);
    run_reader **heap = calloc(r->runs, sizeof *heap);
    int rc = readers && heap ? 0 : -1;
    if (rc != 0)
        tool_error("out of memory");
    size_t n = 0;
    for (size_t i = 0; rc == 0 && i < r->runs; i++) {
        readers[i].next = i ? r->ends[i - 1] : 0;
        readers[i].end = r->ends[i];
        rc = reader_fill(r, &readers[i]) < 0 ? -1 : 0;
        if (rc == 0 && readers[i].have)
            heap[n++] = &readers[i];
    }
    for (size_t i = n; rc == 0 && i-- > 0;)
        heap_down(heap, n, i);
    while (rc == 0 && n > 0) {
        run_reader *top = heap[0];
        take(f, &top->buf[top->at++]);
        int more = reader_fill(r, top);
        if (more < 0)
            rc = -1;
        else if (more == 0)
            heap[0] = heap[--n];
        heap_down(heap, n, 0);
    }
    free(heap);
    free(readers);
    return rc;
}

/* Sets the bit of each key's first occurrence in a new *kept (one bit per entry), and frees
 * what recording took. 0, or -1 (printed). */
static int run_decide(run_set *r, uint8_t **kept)
{
    first_of_key f = {calloc(r->total / 8 + 1, 1), {{0}}, false};
    int rc = f.kept ? 0 : -1;
    if (rc != 0)
        tool_error("out of memory");
    else if (r->runs == 0) {
        if (r->used > 0) /* none: buf may be NULL, which qsort may not be given */
            qsort(r->buf, r->used, sizeof *r->buf, entry_cmp);
        for (size_t i = 0; i < r->used; i++)
            take(&f, &r->buf[i]);
    } else if ((rc = r->used ? run_spill(r) : 0) == 0) {
        free(r->buf); /* not needed while merging */
        r->buf = NULL;
        rc = merge_runs(r, &f);
    }
    uint64_t total = r->total;
    run_set_free(r);
    r->total = total;
    *kept = f.kept;
    return rc;
}

/* ---- Keys ---- */

/* What MethodContext::Equal compares of CompileMethod, in a fixed order. */
static size_t legacy_fields(const mcs_method *m, uint8_t *out)
{
    static const unsigned info_fields[] = {
        MCZ_MI_IL_SIZE, MCZ_MI_ARGS + MCZ_SIG_NUM_ARGS, MCZ_MI_ARGS + MCZ_SIG_RET_TYPE,
        MCZ_MI_LOCALS + MCZ_SIG_NUM_ARGS, MCZ_MI_EH_COUNT, MCZ_MI_OPTIONS, MCZ_MI_MAX_STACK,
        MCZ_MI_REGION_KIND, MCZ_MI_ARGS + MCZ_SIG_CALL_CONV, MCZ_MI_ARGS + MCZ_SIG_CB_SIG,
        MCZ_MI_ARGS + MCZ_SIG_FLAGS, MCZ_MI_LOCALS + MCZ_SIG_CB_SIG, MCZ_CM_FLAGS};
    size_t n = 0;
    for (size_t i = 0; i < sizeof info_fields / sizeof info_fields[0]; i++, n += 4)
        memcpy(out + n, m->info + info_fields[i], 4);
    memset(out + n, 0, 4);
    if (m->has_os)
        memcpy(out + n, m->info + MCZ_CM_OS, 4);
    n += 4;
    const uint8_t *il;
    uint32_t il_size;
    mcz_hash128 il_hash = {{0}};
    if (mcs_method_il(m, &il, &il_size))
        mcz_murmur3_128(il, il_size, &il_hash);
    memcpy(out + n, il_hash.bytes, sizeof il_hash.bytes);
    return n + sizeof il_hash.bytes;
}

/* Map presence and item counts (the last packet of an id counts, as when SuperPMI loads it);
 * compile results count as absent when thin. */
static int legacy_maps(const mcz_jit_ee *v, const mcz_mc *mc, bool thin, uint8_t *out,
                       mcz_diag *d)
{
    memset(out, 0, 256 * 5);
    uint32_t pos = 0;
    mcz_packet p;
    int rc;
    while ((rc = mcz_packet_next(mc, &pos, &p, d)) == 1) {
        const mcz_packet_info *info = mcz_jit_ee_packet(v, p.id);
        mcz_map m;
        if (thin && info && info->compile_result)
            continue;
        rc = mcz_map_parse(v, &p, &m, d);
        if (rc != MCZ_OK)
            return rc;
        out[5 * p.id] = 1;
        memcpy(out + 5 * p.id + 1, &m.count, 4);
    }
    return rc;
}

static int legacy_key(const mcz_jit_ee *v, const mcz_mc *mc, bool thin, mcz_hash128 *key,
                      mcz_diag *d)
{
    mcs_method m;
    int rc = mcs_method_load(mc, &m, d);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        mcz_mc_dedup_key(v, mc, key); /* no identity either: the hash of the bytes */
        return MCZ_OK;
    }
    uint8_t buf[16 * 4 + 16 + 256 * 5];
    size_t n = legacy_fields(&m, buf);
    rc = legacy_maps(v, mc, thin, buf + n, d);
    if (rc == MCZ_OK)
        mcz_murmur3_128(buf, n + 256 * 5, key);
    return rc;
}

/* ---- The deduplicator ---- */

struct mcs_dedup {
    run_set seen;
    uint8_t *kept;      /* once decided: bit n set when context n is the first of its key */
    uint64_t copied;    /* contexts the copying pass has gone through (the next one's number) */
    bool legacy;
    mcz_mc_builder *thin; /* NULL unless thinning */
    mcs_copy_counts counts;
    tool_progress progress;
};

mcs_dedup *mcs_dedup_create(bool legacy, bool thin)
{
    mcs_dedup *dd = calloc(1, sizeof *dd);
    if (dd && thin && !(dd->thin = mcz_mc_builder_create())) {
        free(dd);
        dd = NULL;
    }
    if (!dd)
        tool_error("out of memory");
    else
        dd->legacy = legacy;
    return dd;
}

void mcs_dedup_free(mcs_dedup *dd)
{
    if (!dd)
        return;
    run_set_free(&dd->seen);
    free(dd->kept);
    mcz_mc_builder_free(dd->thin);
    free(dd);
}

uint64_t mcs_dedup_loaded(const mcs_dedup *dd)
{
    return dd->counts.loaded;
}

uint64_t mcs_dedup_saved(const mcs_dedup *dd)
{
    return dd->counts.saved;
}

/* The key of a context read from in, after the deep check. Returns 0, or -1 (printed). */
static int context_key(const mcs_dedup *dd, const mcs_input *in, const mcz_mc *mc,
                       mcz_hash128 *key)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_mc_check(mc, &d);
    if (rc == MCZ_OK && dd->legacy)
        rc = legacy_key(in->jit_ee, mc, dd->thin != NULL, key, &d);
    else if (rc == MCZ_OK)
        mcz_mc_dedup_key(in->jit_ee, mc, key);
    if (rc == MCZ_OK)
        return 0;
    mcs_input_context_error(in, mc, &d);
    return -1;
}

/* ---- Recording: every context's key, in input order ---- */

/* An MCH file: every context is read and keyed. */
static int record_sequential(mcs_dedup *dd, mcs_input *in)
{
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_hash128 key;
        if (context_key(dd, in, &mc, &key) != 0 || run_add(&dd->seen, &key) != 0)
            return -1;
        tool_progress_update(&dd->progress, dd->seen.total, in->read_bytes);
    }
    return rc < 0 ? -1 : mcs_input_rewind(in);
}

/* An archive's context at `position` decoded (legacy keys, and archives that store no keys),
 * its chunk decoded once for all its contexts; the archive's bytes behind it leave memory. */
static int archive_context(mcs_input *in, mcz_cursor *cursor, uint64_t *dropped,
                           const mcz_context_info *ci, mcz_mc *mc)
{
    mcz_chunk_info ch;
    if (mcz_reader_chunk(in->archive, ci->chunk, &ch) == MCZ_OK)
        mcz_reader_drop_behind(in->archive, dropped, ch.offset);
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_cursor_get(cursor, ci->number, mc, &d);
    return rc == MCZ_OK ? 0 : mcs_input_read_failed(in, ci->number, rc, &d);
}

/* The key of an archive's context: the stored one, from the index, unless legacy keys are
 * asked for or the archive stores none (or stores them for another version). */
static int archive_key(mcs_dedup *dd, mcs_input *in, mcz_cursor *cursor, uint64_t *dropped,
                       uint64_t position, mcz_hash128 *key)
{
    mcz_context_info ci;
    if (mcz_reader_context_with(in->archive, position, MCZ_CONTEXT_DEDUP, &ci) != MCZ_OK) {
        tool_error("%s: the index lacks context %llu", in->path,
                   (unsigned long long)position + 1);
        return -1;
    }
    if (!dd->legacy && ci.hashes && mcs_input_hashes_usable(in)) {
        *key = ci.dedup;
        return 0;
    }
    mcz_mc mc;
    if (archive_context(in, cursor, dropped, &ci, &mc) != 0)
        return -1;
    if (dd->legacy)
        return context_key(dd, in, &mc, key);
    mcz_mc_dedup_key(in->jit_ee, &mc, key);
    return 0;
}

static int record_archive(mcs_dedup *dd, mcs_input *in)
{
    mcz_cursor *cursor = mcz_cursor_create(in->archive);
    if (!cursor) {
        tool_error("%s: out of memory", in->path);
        return -1;
    }
    uint64_t dropped = 0;
    int rc = 0;
    for (uint64_t pos = 0; pos < in->contexts && rc == 0; pos++) {
        mcz_hash128 key;
        rc = archive_key(dd, in, cursor, &dropped, pos, &key) != 0 ? -1
                                                                    : run_add(&dd->seen, &key);
        tool_progress_update(&dd->progress, dd->seen.total, 0);
    }
    mcz_cursor_free(cursor);
    return rc;
}

int mcs_dedup_record(mcs_dedup *dd, mcs_input *in)
{
    assert(!dd->kept);
    tool_progress_start(&dd->progress, "reading keys", dd->seen.total + in->contexts,
                        in->archive ? 0 : in->raw_bytes);
    int rc = in->archive ? record_archive(dd, in) : record_sequential(dd, in);
    tool_progress_end(&dd->progress);
    return rc;
}

/* ---- Copying: the first occurrence of each key ---- */

/* 1 when the next context of the copying pass is kept, 0 when not, -1 (printed) when the
 * inputs hold more contexts than were recorded. */
static int next_kept(mcs_dedup *dd, const mcs_input *in)
{
    if (dd->copied >= dd->seen.total) {
        tool_error("%s: more contexts than when its keys were read: the file changed meanwhile",
                   in->path);
        return -1;
    }
    uint64_t n = dd->copied++;
    return (dd->kept[n / 8] >> (n % 8)) & 1;
}

static int copy_sequential(mcs_dedup *dd, mcs_input *in, mcs_output *out)
{
    tool_progress_start(&dd->progress, "deduplicating", in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        int kept = next_kept(dd, in);
        if (kept < 0 || (kept > 0 && mcs_output_put_checked(out, dd->thin, in, &mc) != 0)) {
            rc = -1;
            break;
        }
        dd->counts.loaded++;
        dd->counts.saved += (uint64_t)kept;
        tool_progress_update(&dd->progress, dd->counts.loaded, in->read_bytes);
    }
    tool_progress_end(&dd->progress);
    return rc;
}

typedef struct dedup_input {
    mcs_dedup *dd;
    const mcs_input *in;
} dedup_input;

static int keep_first(void *arg, mcs_chunk_walk *walk, const mcz_context_info *ci)
{
    (void)walk;
    (void)ci;
    const dedup_input *di = arg;
    return next_kept(di->dd, di->in);
}

int mcs_dedup_copy(mcs_dedup *dd, mcs_input *in, mcs_output *out)
{
    if (!dd->kept && run_decide(&dd->seen, &dd->kept) != 0)
        return -1;
    if (!in->archive)
        return copy_sequential(dd, in, out) < 0 ? -1 : 0;
    const mcs_copy_rules rules = {dd->thin, true, "deduplicating"};
    dedup_input di = {dd, in};
    return mcs_chunks_copy(in, out, &rules, keep_first, &di, &dd->counts);
}

int mcs_dedup_finish(const mcs_dedup *dd)
{
    if (dd->copied == dd->seen.total)
        return 0;
    tool_error("fewer contexts than when their keys were read: a file changed meanwhile");
    return -1;
}
