/*
 * replay_plan.c - cuts a collection into work units before any worker starts.
 *
 * An archive's unit is its chunk: the smallest piece that decompresses alone, so no two workers
 * ever decompress the same bytes. An MCH file has no chunks; runs of consecutive contexts of
 * about unit_bytes play their role, found from the .mct when there is a usable one (no read of
 * the file at all), else from one scan of the container headers (mcz_mch_next).
 *
 * The plan depends only on the collection, -c and the unit size, never on the number of workers;
 * --shard K/N only on the contexts' numbers and sizes and -c, so separate processes, and an .mch
 * and its .mcz, agree on which contexts each shard owns.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

/* Records the size of the next context (numbers come in order, from first_number). */
static int size_push(replay_plan *p, uint64_t size)
{
    if (!p->keep_sizes)
        return MCZ_OK;
    if (replay_grow(&p->sizes, &p->sizes_cap, p->sizes_count, sizeof *p->sizes) != MCZ_OK)
        return MCZ_ENOMEM;
    p->sizes[p->sizes_count++] = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    return MCZ_OK;
}

static int unit_push(replay_plan *p, size_t *cap, const replay_unit *u)
{
    if (replay_grow(&p->units, cap, p->unit_count, sizeof *p->units) != MCZ_OK)
        return MCZ_ENOMEM;
    p->units[p->unit_count++] = *u;
    return MCZ_OK;
}

/* Selected numbers in [first, last] (binary search for the first range that can overlap). */
static uint32_t selected_between(const replay_plan *p, uint32_t first, uint32_t last)
{
    if (!p->selective)
        return last - first + 1;
    const mcz_list *l = &p->selection;
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->ranges[mid].last < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t n = 0;
    for (size_t i = lo; i < l->count && l->ranges[i].first <= last; i++) {
        uint32_t a = l->ranges[i].first > first ? l->ranges[i].first : first;
        uint32_t b = l->ranges[i].last < last ? l->ranges[i].last : last;
        n += b - a + 1;
    }
    return n;
}

/* -m HASH (superpmi's matchHash): the selection narrowed to the contexts whose stored identity
 * is hash (`stored(arg, number, hex)` gives it, false when none is stored), so only the units
 * holding them are read. Without stored identities nothing is narrowed (each unit's superpmi
 * still compares). */
static int hash_select(replay_plan *p, uint32_t first, uint64_t count,
                       bool (*stored)(const void *arg, uint32_t number, char hex[33]),
                       const void *arg)
{
    mcz_list keep = {NULL, 0};
    size_t cap = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t n = first + (uint32_t)i;
        char hex[33];
        if (!stored(arg, n, hex))
            return MCZ_OK; /* no identities: nothing to narrow by */
        if (tool_strcasecmp(hex, p->match_hash) != 0 || (p->selective &&
                                                      !mcz_list_contains(&p->selection, n)))
            continue;
        if (replay_grow(&keep.ranges, &cap, keep.count, sizeof *keep.ranges) != MCZ_OK) {
            free(keep.ranges);
            return MCZ_ENOMEM;
        }
        keep.ranges[keep.count++] = (mcz_range){n, n};
    }
    mcz_list_free(&p->selection);
    p->selection = keep;
    p->selective = true;
    return MCZ_OK;
}

static bool archive_identity(const void *arg, uint32_t number, char hex[33])
{
    mcz_hash128 h;
    if (mcz_reader_hashes(arg, number, &h, NULL) != MCZ_OK)
        return false;
    mcz_hash_hex(&h, hex);
    return true;
}

static bool toc_identity(const void *arg, uint32_t number, char hex[33])
{
    const replay_plan *p = arg;
    memcpy(hex, p->toc[number - 1].hash, 33);
    return true;
}

/* Keeps u when the selection touches it. */
static int unit_add(replay_plan *p, size_t *cap, replay_unit *u)
{
    u->selected = selected_between(p, u->first, u->first + u->count - 1);
    if (u->selected == 0)
        return MCZ_OK;
    p->selected += u->selected;
    return unit_push(p, cap, u);
}

/* Chunks in units of at least group_bytes (0: a unit per chunk), consecutive ones together. */
static int plan_archive(replay_plan *p, const mcz_reader *r, uint64_t group_bytes,
                        uint32_t min_units, mcz_diag *diag)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    p->first_number = info.first_number;
    p->contexts = info.contexts;
    p->raw_bytes = info.raw_bytes;
    if (p->match_hash) {
        int rc = hash_select(p, info.first_number, info.contexts, archive_identity, r);
        if (rc != MCZ_OK)
            return rc;
    }
    size_t cap = 0;
    replay_unit cur = {0};
    if (min_units && group_bytes > info.raw_bytes / min_units)
        group_bytes = info.raw_bytes / min_units;
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ci;
        int rc = mcz_reader_chunk(r, i, &ci);
        if (rc != MCZ_OK)
            return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "chunk %llu: %s",
                                (unsigned long long)i, mcz_error_name(rc));
        if (ci.count == 0)
            continue;
        if (cur.count == 0)
            cur = (replay_unit){.first = ci.first_number, .chunk = i};
        cur.chunks = i - cur.chunk + 1;
        cur.count += ci.count;
        cur.raw_bytes += ci.raw_size;
        cur.stored_bytes += ci.stored_size;
        if (cur.raw_bytes < group_bytes)
            continue;
        if ((rc = unit_add(p, &cap, &cur)) != MCZ_OK)
            return rc;
        cur.count = 0;
    }
    int rc = cur.count ? unit_add(p, &cap, &cur) : MCZ_OK;
    if (rc != MCZ_OK)
        return rc;
    for (uint64_t i = 0; i < info.contexts && p->keep_sizes; i++) {
        mcz_context_info ci;
        rc = mcz_reader_context_with(r, i, MCZ_CONTEXT_PLACE, &ci);
        if (rc != MCZ_OK)
            return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "context %llu of the index: %s", (unsigned long long)i + 1,
                                mcz_error_name(rc));
        if ((rc = size_push(p, ci.size)) != MCZ_OK)
            return rc;
    }
    return MCZ_OK;
}

/* Accumulates MCH contexts into runs of about unit_bytes. */
typedef struct run_builder {
    replay_plan *p;
    size_t cap;
    uint64_t unit_bytes;
    replay_unit cur;
} run_builder;

static int run_close(run_builder *b)
{
    if (b->cur.count == 0)
        return MCZ_OK;
    b->cur.stored_bytes = b->cur.raw_bytes;
    int rc = unit_add(b->p, &b->cap, &b->cur);
    memset(&b->cur, 0, sizeof b->cur);
    return rc;
}

static int run_add(run_builder *b, uint32_t number, uint64_t offset, uint64_t size)
{
    if (b->cur.count == 0) {
        b->cur.first = number;
        b->cur.offset = offset;
    }
    b->cur.count++;
    b->cur.raw_bytes += size;
    if (size_push(b->p, size) != MCZ_OK)
        return MCZ_ENOMEM;
    return b->cur.raw_bytes >= b->unit_bytes ? run_close(b) : MCZ_OK;
}

/* Reads and checks the .mct (MCZ_OK when there is none): a table is used only when it
 * describes the file exactly as SuperPMI numbers it (mcz_toc_check); d says what is wrong. */
static int toc_read(replay_plan *p, const char *toc_path, uint64_t file_size, mcz_diag *d)
{
    mcz_file f;
    int rc = mcz_file_map(toc_path, &f, d);
    if (rc != MCZ_OK)
        return rc;
    rc = mcz_toc_parse(f.data, f.size, true, &p->toc, &p->toc_count, d);
    mcz_file_unmap(&f);
    return rc == MCZ_OK ? mcz_toc_check(p->toc, p->toc_count, file_size, d) : rc;
}

static void toc_load(replay_plan *p, uint64_t file_size)
{
    char toc_path[4096];
    if (p->toc_input)
        snprintf(toc_path, sizeof toc_path, "%s", p->toc_input);
    else if (mcz_toc_find(p->path, toc_path, sizeof toc_path) != 1)
        return;
    mcz_diag d;
    mcz_diag_clear(&d);
    if (toc_read(p, toc_path, file_size, &d) != MCZ_OK) {
        char text[REPLAY_MESSAGE_MAX];
        tool_where at = {toc_path, -1, -1, -1};
        tool_warn("ignoring %s", tool_where_text(&at, &d, text, sizeof text));
        free(p->toc);
        p->toc = NULL;
        p->toc_count = 0;
    }
}

static int plan_mch_toc(replay_plan *p, run_builder *b, uint64_t file_size)
{
    for (uint32_t i = 0; i < p->toc_count; i++) {
        uint64_t end = i + 1 < p->toc_count ? (uint64_t)p->toc[i + 1].offset : file_size;
        int rc = run_add(b, i + 1, (uint64_t)p->toc[i].offset, end - (uint64_t)p->toc[i].offset);
        if (rc != MCZ_OK)
            return rc;
    }
    p->contexts = p->toc_count;
    return MCZ_OK;
}

static int plan_mch_scan(replay_plan *p, run_builder *b, const uint8_t *data, size_t size,
                         mcz_diag *diag)
{
    uint64_t pos = 0, dropped = 0;
    uint32_t number = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(data, size, &pos, &number, &mc, diag)) == 1) {
        if ((rc = run_add(b, mc.number, mc.offset, mc.size)) != MCZ_OK)
            return rc;
        mcz_input_drop_behind(p->input, &dropped, pos);
    }
    p->contexts = number;
    return rc;
}

static int plan_mch(replay_plan *p, uint64_t unit_bytes, mcz_diag *diag)
{
    run_builder b = {.p = p, .unit_bytes = unit_bytes ? unit_bytes : 1};
    const uint8_t *data;
    size_t size = (size_t)mcz_input_size(p->input);
    int rc = mcz_input_view(p->input, 0, size, &data, diag); /* a URL's: fetched whole */
    if (rc != MCZ_OK)
        return rc;
    p->first_number = 1;
    p->raw_bytes = size;
    toc_load(p, size);
    rc = p->toc && p->match_hash ? hash_select(p, 1, p->toc_count, toc_identity, p) : MCZ_OK;
    if (rc != MCZ_OK)
        return rc;
    rc = p->toc ? plan_mch_toc(p, &b, size) : plan_mch_scan(p, &b, data, size, diag);
    return rc == MCZ_OK ? run_close(&b) : rc;
}

static int hex_compare(const void *a, const void *b) { return strcmp(a, b); }

/* The .exc paired with the collection as SuperPMI finds it (NAME.exc, then NAME without its
 * suffix + .exc, whatever the suffix): whitespace-separated tokens; those of exactly 32
 * characters are identity hashes. */
static int exclusions_load(replay_plan *p)
{
    char name[4096];
    mcz_file f;
    if (mcz_paired_find(p->path, NULL, ".exc", name, sizeof name) != 1 ||
        mcz_file_map(name, &f, NULL) != MCZ_OK)
        return MCZ_OK; /* no exclusion file */
    size_t cap = f.size / 33 + 1;
    p->excluded = malloc(cap * sizeof *p->excluded);
    if (!p->excluded) {
        mcz_file_unmap(&f);
        return MCZ_ENOMEM;
    }
    for (size_t i = 0; i < f.size;) {
        size_t start = i;
        while (i < f.size && f.data[i] > ' ')
            i++;
        if (i - start == 32) {
            memcpy(p->excluded[p->excluded_count], f.data + start, 32);
            p->excluded[p->excluded_count++][32] = '\0';
        }
        while (i < f.size && f.data[i] <= ' ')
            i++;
    }
    mcz_file_unmap(&f);
    qsort(p->excluded, p->excluded_count, sizeof *p->excluded, hex_compare);
    return MCZ_OK;
}

static void warn_outside(const replay_plan *p)
{
    if (!p->selective || p->selection.count == 0)
        return;
    uint64_t last = (uint64_t)p->first_number + p->contexts - 1;
    if (p->contexts == 0 || p->selection.ranges[p->selection.count - 1].last > last ||
        p->selection.ranges[0].first < p->first_number)
        tool_warn("-c names contexts the collection does not hold (it holds %llu contexts from "
                  "number %u)",
                (unsigned long long)p->contexts, p->first_number);
}

/* Sets diag's location to at's (or, when it holds no failure, rc's name), for the caller to
 * print with mcz_diag_format; returns rc. */
static int plan_fail(int rc, mcz_diag *diag, const tool_where *at)
{
    if (diag->code == MCZ_OK)
        mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", mcz_error_name(rc));
    diag->context = at->context;
    diag->offset = at->offset;
    if (at->path)
        tool_diag_name(diag, at->path);
    return rc;
}

/* An archive, a file or a URL: planned from its index. */
static int plan_archive_input(replay_plan *p, uint64_t group_bytes, uint32_t min_units,
                              mcz_diag *diag, tool_where *at)
{
    p->archive = true;
    mcz_reader *r = mcz_reader_open_input(p->input, diag);
    if (!r)
        return plan_fail(diag->code ? diag->code : MCZ_ECORRUPT, diag, at);
    int rc = plan_archive(p, r, group_bytes, min_units, diag);
    mcz_reader_close(r);
    return rc == MCZ_OK ? MCZ_OK : plan_fail(rc, diag, at);
}

/* Whether the input is read as an archive: unless it starts like an MCH file (with a context,
 * 'm' 'c'), the archive reader then saying clearly what is wrong when it is not one. A remote
 * input is asked of the library's source first, which tells an archive by the footer its
 * opening fetched (no request for the first bytes) and fetches anything else whole. */
static int input_is_archive(replay_plan *p, bool *archive, mcz_diag *diag)
{
    *archive = true;
    if (mcz_input_remote(p->input)) {
        mcz_source *s = mcz_source_open_input(p->input, NULL);
        bool other = s && !mcz_source_archive(s);
        mcz_source_close(s);
        if (!other)
            return MCZ_OK;
    }
    const uint8_t *head = (const uint8_t *)"";
    int rc = mcz_input_size(p->input) >= 2 ? mcz_input_view(p->input, 0, 2, &head, diag) : MCZ_OK;
    *archive = !(rc == MCZ_OK && head[0] == 'm' && head[1] == 'c'); /* "" when under 2 bytes */
    return rc;
}

/* An archive's errors are located by its path alone: offsets and numbers in its diagnostics may
 * come from its damaged index. An MCH walk's are its own position and count. */
static int plan_collection(replay_plan *p, uint64_t unit_bytes, uint64_t group_bytes,
                           uint32_t min_units, mcz_diag *diag)
{
    tool_where at = {p->shown, -1, -1, -1};
    int rc = MCZ_OK;
    if (mcz_input_size(p->input) == 0)
        rc = mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                          "empty file: no method contexts");
    if (rc != MCZ_OK || (rc = input_is_archive(p, &p->archive, diag)) != MCZ_OK)
        return plan_fail(rc, diag, &at);
    if (p->archive)
        return plan_archive_input(p, group_bytes, min_units, diag, &at);
    rc = plan_mch(p, unit_bytes, diag);
    at.context = diag->context;
    at.offset = diag->offset;
    return rc == MCZ_OK ? MCZ_OK : plan_fail(rc, diag, &at);
}

/* SuperPMI takes an .mct named as input for the TOC of the .mch beside it (X.mct.mch, then
 * X.mch) and replays that; with no such .mch the name is read as the collection itself. */
static int toc_input_pair(replay_plan *p, const char *path)
{
    char mch[4096];
    if (mcz_paired_find(path, ".mct", ".mch", mch, sizeof mch) != 1)
        return MCZ_OK;
    p->toc_input = strdup(path);
    char *mch_copy = strdup(mch);
    if (!p->toc_input || !mch_copy) {
        free(mch_copy);
        return MCZ_ENOMEM;
    }
    p->mch_owned = mch_copy;
    p->path = p->shown = mch_copy;
    return MCZ_OK;
}

/* The version the collection is read as (replay_plan_build says which). */
static void plan_jit_ee(replay_plan *p, const mcz_jit_ee *forced)
{
    mcz_source *s = mcz_source_open_input(p->input, NULL);
    const mcz_reader *r = s ? mcz_source_archive(s) : NULL;
    uint32_t voted = 0;
    p->jit_ee = forced ? forced : mcz_source_jit_ee(s, NULL, &voted);
    if (!p->jit_ee) {
        p->jit_ee = mcz_jit_ee_newest();
        if (voted > 0)
            tool_warn("%s: its packets do not tell which JIT-EE version recorded it; reading it as "
                      "%s, the newest (--jit-ee chooses another)",
                      p->shown, mcz_jit_ee_name(p->jit_ee));
    }
    p->stored_jit_ee = r ? mcz_reader_hash_jit_ee(r) : p->jit_ee;
    mcz_source_close(s);
}

int replay_plan_open(replay_plan *p, const char *path, mcz_diag *diag)
{
    memset(p, 0, sizeof *p);
    p->path = p->shown = path;
    p->shard_k = p->shard_n = 1;
    mcz_diag_clear(diag);
    int rc;
    if ((rc = toc_input_pair(p, path)) != MCZ_OK)
        return plan_fail(rc, diag, &(tool_where){path, -1, -1, -1});
    p->input = mcz_input_open(p->path, diag);
    return p->input ? MCZ_OK
                    : plan_fail(diag->code ? diag->code : MCZ_EIO, diag,
                                &(tool_where){p->shown, -1, -1, -1});
}

int replay_plan_build(replay_plan *p, const char *select_arg, const char *match_hash,
                      uint64_t unit_bytes, uint64_t group_bytes, uint32_t min_units,
                      const mcz_jit_ee *forced, mcz_diag *diag)
{
    const char *path = p->path;
    p->match_hash = match_hash;
    mcz_diag_clear(diag);
    int rc;
    if (select_arg) {
        if ((rc = mcz_list_from_arg(select_arg, &p->selection, diag)) != MCZ_OK)
            return plan_fail(rc, diag, &(tool_where){"-c", -1, -1, -1});
        p->selective = true;
    }
    if ((rc = plan_collection(p, unit_bytes, group_bytes, min_units, diag)) != MCZ_OK)
        return rc;
    plan_jit_ee(p, forced);
    if ((rc = exclusions_load(p)) != MCZ_OK)
        return plan_fail(rc, diag, &(tool_where){path, -1, -1, -1});
    warn_outside(p);
    p->plan_selected = p->selected;
    /* the same for an .mch and its .mcz, so their shards merge */
    snprintf(p->fingerprint, sizeof p->fingerprint, "first=%u contexts=%llu raw=%llu selected=%llu",
             p->first_number, (unsigned long long)p->contexts, (unsigned long long)p->raw_bytes,
             (unsigned long long)p->selected);
    return MCZ_OK;
}

void replay_plan_free(replay_plan *p)
{
    if (!p)
        return;
    mcz_list_free(&p->selection);
    free(p->units);
    free(p->toc);
    free(p->excluded);
    free(p->sizes);
    free(p->toc_input);
    free(p->mch_owned);
    mcz_input_close(p->input);
    memset(p, 0, sizeof *p);
}

static bool selected_number(const replay_plan *p, uint32_t number)
{
    return !p->selective || mcz_list_contains(&p->selection, number);
}

/* The numbers of shard k of n: each selected context weighs its size + 1 and goes to the shard
 * its midpoint falls in. false when the shard holds none. */
static bool shard_range(const replay_plan *p, uint32_t k, uint32_t n, uint32_t *a, uint32_t *b)
{
    assert(p->keep_sizes);
    uint64_t total = 0;
    for (size_t i = 0; i < p->sizes_count; i++)
        if (selected_number(p, p->first_number + (uint32_t)i))
            total += (uint64_t)p->sizes[i] + 1;
    uint64_t per_shard = total / n + (total % n != 0), before = 0;
    bool any = false;
    for (size_t i = 0; i < p->sizes_count && per_shard; i++) {
        uint32_t number = p->first_number + (uint32_t)i;
        if (!selected_number(p, number))
            continue;
        uint64_t w = (uint64_t)p->sizes[i] + 1;
        uint64_t shard = (before + w / 2) / per_shard;
        before += w;
        if (shard + 1 != k)
            continue;
        if (!any)
            *a = number;
        *b = number;
        any = true;
    }
    return any;
}

/* The selection cut to [a, b] (or, any false, to nothing). */
static int selection_clip(replay_plan *p, bool any, uint32_t a, uint32_t b)
{
    mcz_list clipped = {NULL, 0};
    size_t cap = 0;
    const mcz_list *l = &p->selection;
    size_t ranges = p->selective ? l->count : 1;
    for (size_t i = 0; i < ranges && any; i++) {
        mcz_range r = p->selective ? l->ranges[i] : (mcz_range){a, b};
        r.first = r.first > a ? r.first : a;
        r.last = r.last < b ? r.last : b;
        if (r.first > r.last)
            continue;
        if (replay_grow(&clipped.ranges, &cap, clipped.count, sizeof *clipped.ranges) != MCZ_OK) {
            free(clipped.ranges);
            return MCZ_ENOMEM;
        }
        clipped.ranges[clipped.count++] = r;
    }
    mcz_list_free(&p->selection);
    p->selection = clipped;
    p->selective = true;
    return MCZ_OK;
}

int replay_plan_shard(replay_plan *p, uint32_t k, uint32_t n, mcz_diag *diag)
{
    if (n == 0 || k == 0 || k > n || n > 65535)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "--shard %u/%u: want K/N with 1 <= K <= N", k, n);
    uint32_t a = 0, b = 0;
    bool any = shard_range(p, k, n, &a, &b);
    if (selection_clip(p, any, a, b) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    size_t kept = 0;
    p->selected = 0;
    for (size_t i = 0; i < p->unit_count; i++) {
        replay_unit *u = &p->units[i];
        u->selected = selected_between(p, u->first, u->first + u->count - 1);
        if (u->selected == 0)
            continue;
        p->selected += u->selected;
        p->units[kept++] = *u;
    }
    p->unit_count = kept;
    p->shard_k = k;
    p->shard_n = n;
    return MCZ_OK;
}

void replay_plan_group_remote(replay_plan *p, uint32_t workers)
{
    uint64_t stored = 0;
    for (size_t i = 0; i < p->unit_count; i++)
        stored += p->units[i].stored_bytes;
    uint64_t target = workers ? stored / workers : stored;
    if (target > MCZ_HTTP_REQUEST_MAX)
        target = MCZ_HTTP_REQUEST_MAX;
    size_t kept = 0;
    for (size_t i = 0; i < p->unit_count; i++) {
        replay_unit *cur = kept ? &p->units[kept - 1] : NULL;
        const replay_unit *u = &p->units[i];
        uint64_t joined = cur ? cur->stored_bytes + u->stored_bytes : 0;
        /* joined while that brings the unit nearer the target than it is */
        if (cur && cur->chunk + cur->chunks == u->chunk && joined <= MCZ_HTTP_REQUEST_MAX &&
            cur->stored_bytes + joined <= 2 * target) {
            cur->chunks += u->chunks;
            cur->count += u->count;
            cur->selected += u->selected;
            cur->raw_bytes += u->raw_bytes;
            cur->stored_bytes += u->stored_bytes;
        } else {
            p->units[kept++] = *u;
        }
    }
    p->unit_count = kept;
}

bool replay_plan_wants(const replay_plan *p, replay_filter f, uint32_t number)
{
    if (f.stride && (number - p->first_number) % f.stride != f.slot)
        return false;
    return !p->selective || mcz_list_contains(&p->selection, number);
}

bool replay_plan_excluded(const replay_plan *p, const char *hex)
{
    return p->excluded_count && hex[0] &&
           bsearch(hex, p->excluded, p->excluded_count, sizeof *p->excluded, hex_compare);
}
