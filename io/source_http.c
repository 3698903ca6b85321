/*
 * source_http.c - the HTTP(S) backend of sources (source.h): a file read with range requests
 * (libcurl). Its image is a sparse anonymous mapping of the file's length: opening fetches the
 * last `probe` bytes (a suffix range, which also tells the length); every other byte is fetched
 * the first time a view or a prefetch asks for it, and only then: readers sharing a file (replay
 * workers given chunks by a scheduler, shards) download it once between them. A prefetch's
 * adjacent ranges come in one request of at most MCZ_HTTP_REQUEST_MAX. The present ranges are
 * kept as a sorted list of extents. With MCZ_CACHE_DIR set, every piece (a range a reader asked
 * for, or a part of it at most MCZ_HTTP_REQUEST_MAX long) is looked for in the cache first and
 * kept there once fetched (http_cache.c).
 *
 * A server that ignores ranges answers the probe with 200: the whole body then goes to the cache
 * once and the image maps it (whole_open, below). Otherwise the server is hostile like the
 * bytes: each answer must be 206 with the Content-Range asked for (and the file's total length)
 * and exactly that many bytes; a 200 after the probe, a 416, another range, a short body or
 * another ETag or Last-Modified than the probe's answer gave (the file replaced while read) is
 * an error naming the URL. Connection failures, 5xx
 * and 429 answers are retried MCZ_HTTP_TRIES times with doubling pauses; redirects are
 * followed, at most MCZ_HTTP_REDIRECTS of them.
 */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcz_xxhash.h"
#include "source.h"
#include "../platform/platform.h"
#include "../platform/threads.h"

#define MCZ_HTTP_TRIES 4
#define MCZ_HTTP_PAUSE_MS 100
#define MCZ_HTTP_REDIRECTS 3

typedef struct mcz_http {
    CURL *curl;           /* owner's: a process forked after the open makes its own (own_handle) */
    long owner;           /* the process id of the handle's owner */
    const char *url;
    uint8_t *image; /* size bytes, anonymous: pages never fetched stay zero and unbacked */
    size_t size;
    uint32_t probe;       /* the trailer fetched first, [size - probe, size) */
    bool from_memo;       /* opened from the memo: nothing to keep again */
    mcz_src_range *present; /* sorted, disjoint, not adjacent: the bytes fetched */
    size_t present_count, present_cap;
    mcz_mutex lock;       /* one transfer at a time; the source is shared by threads */
    char etag[128];       /* the validators of the version opened, as the probe's answer gave */
    char modified[64];    /* them ("" when the server sends none) */
    mcz_http_cache *cache; /* MCZ_CACHE_DIR's pieces of this version; NULL without one */
    bool ignores_ranges;  /* the probe was answered 200: the image is the cached whole body */
    size_t mapped;        /* that file's mapping (body and trailer); 0 for the sparse image */
} mcz_http;

/* What one transfer received: the body into dst[0, want), the status line and Content-Range. */
typedef struct http_xfer {
    CURL *curl;
    uint8_t *dst;
    uint64_t want;
    uint64_t got;
    bool overflow;
    char range[128];
    char etag[128];
    char modified[64];
    char length[32]; /* Content-Length, "" when not sent */
} http_xfer;

static bool transient(CURLcode cc, long status);

static size_t on_body(char *p, size_t one, size_t n, void *arg)
{
    http_xfer *x = arg;
    size_t len = one * n;
    long status = 0;
    curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 206 && status != 200) /* an error page: its status tells, its body is skipped */
        return len;
    if (len > x->want - x->got) { /* more than asked: the server ignores the range */
        x->overflow = true;
        return 0;
    }
    memcpy(x->dst + x->got, p, len);
    x->got += len;
    return len;
}

/* Keeps the value of header line p[0, len) into out when the line is `name: value`, without
 * the spaces around the value and the line end. */
static void header_value(const char *p, size_t len, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(p, name, nl) != 0)
        return;
    p += nl, len -= nl;
    while (len && (*p == ' ' || *p == '\t'))
        p++, len--;
    while (len && (p[len - 1] == '\r' || p[len - 1] == '\n' || p[len - 1] == ' '))
        len--;
    size_t k = len < cap - 1 ? len : cap - 1;
    memcpy(out, p, k);
    out[k] = '\0';
}

static size_t on_header(char *p, size_t one, size_t n, void *arg)
{
    http_xfer *x = arg;
    size_t len = one * n;
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) /* a redirect's headers are not the answer's */
        x->range[0] = x->etag[0] = x->modified[0] = x->length[0] = '\0';
    header_value(p, len, "content-length:", x->length, sizeof x->length);
    header_value(p, len, "content-range:", x->range, sizeof x->range);
    header_value(p, len, "etag:", x->etag, sizeof x->etag);
    header_value(p, len, "last-modified:", x->modified, sizeof x->modified);
    return len;
}

static bool transient(CURLcode cc, long status)
{
    if (cc == CURLE_OK)
        return status >= 500 || status == 429;
    return cc == CURLE_COULDNT_CONNECT || cc == CURLE_OPERATION_TIMEDOUT ||
           cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
           cc == CURLE_PARTIAL_FILE || cc == CURLE_COULDNT_RESOLVE_HOST;
}

static void pause_ms(long ms)
{
    mcz_os_nap(ms * 1000000L);
}

/* The reason phrase of an HTTP status, for messages. */
static const char *status_text(long status)
{
    static const struct { long status; const char *text; } texts[] = {
        {400, "bad request"}, {401, "unauthorized"}, {403, "forbidden"}, {404, "not found"},
        {405, "method not allowed"}, {410, "gone"}, {416, "range not satisfiable"},
        {429, "too many requests"}, {500, "server error"}, {502, "bad gateway"},
        {503, "service unavailable"}, {504, "gateway timeout"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].status == status)
            return texts[i].text;
    return status >= 500 ? "server error" : status >= 400 ? "client error" : "unexpected";
}

/* The answer to bytes off..off+len-1 (the last len bytes when *total is 0: a suffix range) must
 * be 206 with exactly that Content-Range and body; *total is the archive's length, set from the
 * answer when 0. */
static int check_answer(const mcz_http *h, const http_xfer *x, long status, uint64_t off,
                        uint64_t len, uint64_t *total, mcz_diag *diag)
{
    if (status == 200)
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "the server ignores range requests (200 with the whole body)");
    if (status != 206 && *total == 0) /* the opening request: the file itself is refused */
        return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "HTTP %ld (%s) when opening it%s", status, status_text(status),
                           status == 404 || status == 410 ? ": check the URL's path" : "");
    if (status != 206)
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "HTTP %ld (%s) for %" PRIu64 " bytes at offset %" PRIu64, status,
                           status_text(status), len, off);
    unsigned long long a, b, t;
    bool parsed = sscanf(x->range, " bytes %llu-%llu/%llu", &a, &b, &t) == 3;
    if (parsed && *total == 0 && t < len && a == 0 && b + 1 == t)
        len = t; /* the probe of a file shorter than the suffix asked for: all of it */
    if (parsed && *total == 0 && t >= len) /* the suffix: now the offsets are known */
        off = t - len;
    if (!parsed || a != off || b != off + len - 1 || (*total && t != *total))
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "asked for %" PRIu64 " bytes at %" PRIu64 ", the server sent range '%s'",
                           len, off, x->range);
    if (x->got != len)
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "bytes %" PRIu64 "-%llu: %" PRIu64 " bytes received", off, b, x->got);
    /* pieces of two versions (an answer without the validator cannot tell) */
    if ((h->etag[0] && x->etag[0] && strcmp(x->etag, h->etag) != 0) ||
        (h->modified[0] && x->modified[0] && strcmp(x->modified, h->modified) != 0))
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "the archive changed while it was read (ETag '%s', was '%s')", x->etag,
                           h->etag);
    *total = t;
    return MCZ_OK;
}

/* The host of h's URL ("example.com:8080"), for messages. */
static void url_host(const mcz_http *h, char *buf, size_t cap)
{
    const char *p = strstr(h->url, "://");
    p = p ? p + 3 : h->url;
    snprintf(buf, cap, "%.*s", (int)strcspn(p, "/?#"), p);
}

/* Why a transfer failed, in words: what could not be read (the footer, or bytes at an offset),
 * and the reason, the system's (errno) when it gave one. Returns MCZ_EIO. */
static int transfer_failed(const mcz_http *h, CURLcode cc, long status, uint64_t off,
                           uint64_t len, bool placed, int tries, mcz_diag *diag)
{
    char what[96], host[256];
    if (placed)
        snprintf(what, sizeof what, "%" PRIu64 " bytes at offset %" PRIu64, len, off);
    else
        snprintf(what, sizeof what, "its footer (the last %" PRIu64 " bytes)", len);
    if (cc == CURLE_OK)
        return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset(placed ? (int64_t)off : -1),
                           MCZ_NO_CONTEXT, "HTTP %ld (%s) reading %s (%d tries)", status,
                           status_text(status), what, tries);
    long os_errno = 0;
    curl_easy_getinfo(h->curl, CURLINFO_OS_ERRNO, &os_errno);
    const char *reason = os_errno ? strerror((int)os_errno) : curl_easy_strerror(cc);
    url_host(h, host, sizeof host);
    if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
        cc == CURLE_OPERATION_TIMEDOUT)
        return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "cannot connect to %s: %s (%d tries)", host,
                           cc == CURLE_COULDNT_RESOLVE_HOST ? "unknown host" : reason, tries);
    return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset(placed ? (int64_t)off : -1),
                       MCZ_NO_CONTEXT, "reading %s from %s failed: %s (%d tries)", what, host,
                       reason, tries);
}

static int own_handle(mcz_http *h, mcz_diag *diag);

/* The probe answered 200 (the server ignores ranges): the file's length from Content-Length
 * (or the whole body, when it fit), and the version's validators; the image is then the whole
 * body, fetched once into the cache (whole_open). */
static int ranges_ignored(mcz_http *h, const http_xfer *x, uint64_t *total, mcz_diag *diag)
{
    char *end = NULL;
    unsigned long long length = x->length[0] ? strtoull(x->length, &end, 10) : x->got;
    if (x->overflow && (!x->length[0] || *end))
        return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "the server ignores range requests and sends no Content-Length: "
                           "serve it from a server that honours ranges (nginx, for one)");
    h->ignores_ranges = true;
    memcpy(h->etag, x->etag, sizeof h->etag);
    memcpy(h->modified, x->modified, sizeof h->modified);
    *total = length;
    return MCZ_OK;
}

/* Fetches bytes [off, off+len) into dst (the last len bytes when *total is 0, which learns the
 * length). Retries transient failures with doubling pauses. */
static int http_get(mcz_http *h, uint64_t off, uint64_t len, uint8_t *dst, uint64_t *total,
                    mcz_diag *diag)
{
    char range[64];
    if (*total)
        snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, off, off + len - 1);
    else
        snprintf(range, sizeof range, "-%" PRIu64, len);
    int owned = own_handle(h, diag);
    if (owned != MCZ_OK)
        return owned;
    long pause = MCZ_HTTP_PAUSE_MS;
    for (int attempt = 1;; attempt++, pause *= 2) {
        http_xfer x = {.curl = h->curl, .dst = dst, .want = len};
        curl_easy_setopt(h->curl, CURLOPT_RANGE, range);
        curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, &x);
        CURLcode cc = curl_easy_perform(h->curl);
        long status = 0;
        curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status == 200 && !h->image && (x.overflow || cc == CURLE_OK))
            return ranges_ignored(h, &x, total, diag);
        if (x.overflow && status == 206)
            return mcz_fail_at(diag, h->url, MCZ_EIO, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                               "more bytes than asked for %s", range);
        if (x.overflow || (cc == CURLE_OK && !transient(cc, status))) {
            int rc = check_answer(h, &x, status, off, len, total, diag);
            if (rc == MCZ_OK && !h->image) { /* the probe: the version every piece must be of */
                memcpy(h->etag, x.etag, sizeof h->etag);
                memcpy(h->modified, x.modified, sizeof h->modified);
            }
            return rc;
        }
        if (!transient(cc, status) || attempt == MCZ_HTTP_TRIES)
            return transfer_failed(h, cc, status, off, len, *total != 0, attempt, diag);
        pause_ms(pause);
    }
}

static void http_free(mcz_http *h)
{
    if (!h)
        return;
    if (h->curl && h->owner == mcz_os_process_id()) /* an inherited handle is the parent's */
        curl_easy_cleanup(h->curl);
    if (h->image && h->size)
        mcz_os_unmap(h->image, h->mapped ? h->mapped : h->size);
    mcz_mutex_destroy(&h->lock);
    mcz_http_cache_free(h->cache);
    free(h->present);
    free(h);
}

static void memo_init(void);

/* What a process does once, before its first source: libcurl's global state, the memo's
 * lock. */
static void init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    memo_init();
}

static void configure(mcz_http *h)
{
    curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h->curl, CURLOPT_MAXREDIRS, (long)MCZ_HTTP_REDIRECTS);
    curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
}

static mcz_http *http_create(const char *url, mcz_diag *diag)
{
    static mcz_once once = MCZ_ONCE_INIT;
    mcz_once_run(&once, init_once);
    mcz_http *h = calloc(1, sizeof *h);
    if (!h || !(h->curl = curl_easy_init())) {
        free(h);
        mcz_fail_at(diag, url, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    h->url = url;
    h->owner = mcz_os_process_id();
    mcz_mutex_init(&h->lock);
    configure(h);
    return h;
}

/* The transfer handle of this process (lock held). A source opened before fork() is the child's
 * too, and so would be its handle and the connection it keeps: children fetching at once would
 * mix their answers on one socket. A process that did not open the source therefore makes a
 * handle of its own, the first time it fetches, and leaves the inherited one alone (cleaning it
 * up would end the parent's TLS session on their shared socket). */
static int own_handle(mcz_http *h, mcz_diag *diag)
{
    long me = mcz_os_process_id();
    if (h->owner == me)
        return MCZ_OK;
    CURL *fresh = curl_easy_init();
    if (!fresh)
        return mcz_fail_at(diag, h->url, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "out of memory");
    h->curl = fresh;
    h->owner = me;
    configure(h);
    return MCZ_OK;
}

/* ---- The present extents ---- */

/* Room in *a (capacity *cap) for `need` ranges: MCZ_OK or MCZ_ENOMEM (*a unchanged). */
static int ranges_reserve(mcz_src_range **a, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MCZ_OK;
    size_t grown_cap = *cap ? 2 * *cap : 64;
    mcz_src_range *grown = realloc(*a, grown_cap * sizeof *grown);
    if (!grown)
        return MCZ_ENOMEM;
    *a = grown;
    *cap = grown_cap;
    return MCZ_OK;
}

/* Index of the first extent whose end is past off. */
static size_t extent_at(const mcz_http *h, uint64_t off)
{
    size_t lo = 0, hi = h->present_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->present[mid].off + h->present[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first absent byte of [off, end) and the end of the absence from there: false when all
 * of it is present. */
static bool next_gap(const mcz_http *h, uint64_t off, uint64_t end, uint64_t *gap, uint64_t *gap_end)
{
    size_t i = extent_at(h, off);
    while (off < end && i < h->present_count && h->present[i].off <= off) {
        off = h->present[i].off + h->present[i].len;
        i++;
    }
    if (off >= end)
        return false;
    *gap = off;
    *gap_end = i < h->present_count && h->present[i].off < end ? h->present[i].off : end;
    return true;
}

/* Notes [off, off+len) present, merging it with the extents it touches. */
static int mark_present(mcz_http *h, uint64_t off, uint64_t len)
{
    uint64_t end = off + len;
    size_t i = extent_at(h, off > 0 ? off - 1 : 0), j = i;
    while (j < h->present_count && h->present[j].off <= end) {
        uint64_t e = h->present[j].off + h->present[j].len;
        off = h->present[j].off < off ? h->present[j].off : off;
        end = e > end ? e : end;
        j++;
    }
    if (i == j && ranges_reserve(&h->present, &h->present_cap, h->present_count + 1) != MCZ_OK)
        return MCZ_ENOMEM;
    if (j != i + 1) /* make room for one where j - i were */
        memmove(h->present + i + 1, h->present + j, (h->present_count - j) * sizeof *h->present);
    h->present_count = h->present_count + 1 - (j - i);
    h->present[i] = (mcz_src_range){off, end - off};
    return MCZ_OK;
}

/* ---- Opening ---- */

/* The sparse image of a file of total bytes: anonymous memory whose pages are made only when
 * written (mcz_os_map_zeroed). */
static int image_map(mcz_http *h, uint64_t total, mcz_diag *diag)
{
    void *m = total ? mcz_os_map_zeroed((size_t)total) : NULL;
    if (!m)
        return mcz_fail_at(diag, h->url, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "cannot map %" PRIu64 " bytes", total);
    h->image = m;
    h->size = (size_t)total;
    return MCZ_OK;
}

static int whole_open(mcz_http *h, uint64_t total, mcz_diag *diag);

/* The probe: the trailer, a suffix range that also tells the file's length; then the sparse
 * image of that length, the trailer at its end. */
static int http_probe(mcz_http *h, mcz_diag *diag)
{
    uint8_t tail[4096];
    uint64_t total = 0;
    if (h->probe > sizeof tail)
        h->probe = sizeof tail;
    int rc = http_get(h, 0, h->probe, tail, &total, diag);
    if (rc == MCZ_OK && h->ignores_ranges)
        return whole_open(h, total, diag);
    if (rc == MCZ_OK && total > SIZE_MAX / 2)
        return mcz_fail_at(diag, h->url, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "%" PRIu64 " bytes is too large", total);
    if (rc == MCZ_OK && total < h->probe)
        h->probe = (uint32_t)total;
    if (rc == MCZ_OK)
        rc = image_map(h, total, diag);
    if (rc == MCZ_OK)
        memcpy(h->image + h->size - h->probe, tail, h->probe);
    return rc == MCZ_OK ? mark_present(h, h->size - h->probe, h->probe) : rc;
}

/* Opens MCZ_CACHE_DIR's pieces of the version the probe found: its key is the URL, the
 * length, the validators and the probe's bytes (for an archive, the footer, which carries the
 * index's checksum). */
static void cache_attach(mcz_http *h)
{
    const char *root = getenv("MCZ_CACHE_DIR");
    if (!root || !root[0])
        return;
    const uint8_t *tail = h->image + h->size - h->probe;
    char key[16384], hex[2 * 4096 + 1];
    for (unsigned i = 0; i < h->probe; i++)
        snprintf(hex + 2 * i, 3, "%02x", tail[i]);
    int n = snprintf(key, sizeof key, "mcz http cache 1\nurl %s\nsize %zu\netag %s\nmodified %s\n"
                     "footer %s\n", h->url, h->size, h->etag, h->modified, hex);
    if (n > 0 && (size_t)n < sizeof key)
        h->cache = mcz_http_cache_open(root, key);
}

/* ---- A server that ignores ranges ----
 * Such a server (`python3 -m http.server`, nginx with max_ranges 0) answers the probe with the
 * whole body. The body is then fetched once into the cache, as the piece 0+length of the cache
 * of that version (URL, length, validators), and the image maps that file: every later open,
 * in this process or another, maps it again after a probe that reads only the answer's headers.
 * Where no cache can be written, the refusal names both ways forward. */

/* The cache root for a whole body: MCZ_CACHE_DIR, else the user's cache directory
 * ($XDG_CACHE_HOME/mcz, else ~/.cache/mcz); "" when there is none. */
static void whole_root(char *buf, size_t cap)
{
    const char *dir = getenv("MCZ_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (dir && dir[0])
        snprintf(buf, cap, "%s", dir);
    else if (xdg && xdg[0])
        snprintf(buf, cap, "%s/mcz", xdg);
    else if (home && home[0])
        snprintf(buf, cap, "%s/.cache/mcz", home);
    else
        buf[0] = '\0';
}

/* mkdir -p path: NULL when it is a writable directory, else why not. */
static const char *whole_root_ready(char *path)
{
    if (!path[0])
        return "HOME unset";
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mcz_os_mkdir(path);
            *p = '/';
        }
    if ((mcz_os_mkdir(path) != 0 && errno != EEXIST) || mcz_os_may_write_in(path) != 0)
        return strerror(errno);
    return NULL;
}

/* The refusal names both ways forward first; the cache's path and why it failed come last, so
 * that a long path is what a full message line loses. */
static int whole_refused(const mcz_http *h, const char *root, const char *why, mcz_diag *diag)
{
    return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                       "the server ignores ranges and no cache can hold the whole body: set "
                       "MCZ_CACHE_DIR to a writable directory to fetch it once, or serve the file "
                       "with ranges (nginx, for one) to fetch only what is read (cache %s: %s)",
                       root[0] ? root : "none", why);
}

/* Maps the cached body at path when it is whole and its checksum holds: true when it did. */
static bool whole_map(mcz_http *h, const char *path)
{
    int fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    mcz_os_file_info st;
    if (fd < 0)
        return false;
    bool fits = mcz_os_fstat(fd, &st) == 0 && st.size == (uint64_t)h->size + 8;
    /* read only: every byte is present, so nothing is ever written into this image */
    void *m = fits ? mcz_os_map_file(fd, h->size + 8) : NULL;
    mcz_os_close(fd);
    if (!m)
        return false;
    if (mcz_get_le64((uint8_t *)m + h->size) != XXH3_64bits(m, h->size)) {
        mcz_os_unmap(m, h->size + 8);
        return false;
    }
    h->image = m;
    h->mapped = h->size + 8;
    return true;
}

/* The body as it arrives: into the cache's file, hashed for its trailer. */
typedef struct whole_xfer {
    CURL *curl;
    mcz_outfile *f;
    XXH3_state_t *xxh;
    uint64_t got, want;
} whole_xfer;

static size_t on_whole(char *p, size_t one, size_t n, void *arg)
{
    whole_xfer *w = arg;
    size_t len = one * n;
    long status = 0;
    curl_easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) /* an error page: its status tells */
        return len;
    if (len > w->want - w->got || mcz_outfile_write(w->f, p, len) != MCZ_OK)
        return 0;
    XXH3_64bits_update(w->xxh, p, len);
    w->got += len;
    return len;
}

/* One GET of the whole body into path (atomically: all of it, of the probe's version, or
 * nothing). */
static int whole_fetch(mcz_http *h, const char *path, mcz_diag *diag)
{
    mcz_outfile *f = mcz_outfile_open(path, diag);
    if (!f)
        return diag->code;
    XXH3_state_t xxh; /* on the stack: mcz_xxhash.h */
    XXH3_64bits_reset(&xxh);
    whole_xfer w = {.curl = h->curl, .f = f, .xxh = &xxh, .want = h->size};
    http_xfer x = {.curl = h->curl};
    curl_easy_setopt(h->curl, CURLOPT_RANGE, NULL);
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_whole);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &w);
    curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, &x);
    CURLcode cc = curl_easy_perform(h->curl);
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
    long status = 0;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
    uint8_t trailer[8];
    mcz_put_le64(trailer, XXH3_64bits_digest(&xxh));
    bool same = strcmp(x.etag, h->etag) == 0 && strcmp(x.modified, h->modified) == 0;
    if (cc == CURLE_OK && status == 200 && w.got == h->size && same &&
        mcz_outfile_write(f, trailer, sizeof trailer) == MCZ_OK)
        return mcz_outfile_commit(f, diag);
    mcz_outfile_abort(f);
    if (!same)
        return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "the file changed while it was read (ETag '%s', was '%s')", x.etag,
                           h->etag);
    return mcz_fail_at(diag, h->url, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                       "fetching its whole body (%zu bytes; the server ignores ranges): %s, "
                       "HTTP %ld, %" PRIu64 " bytes received", h->size,
                       cc == CURLE_OK ? "done" : curl_easy_strerror(cc), status, w.got);
}

/* The image of a file whose server ignores ranges: its whole body from the cache, fetched
 * there first when it is not, with a note saying so. */
static int whole_open(mcz_http *h, uint64_t total, mcz_diag *diag)
{
    char root[4096], key[8192], path[4400];
    if (total == 0 || total > SIZE_MAX / 2)
        return mcz_fail_at(diag, h->url, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "the server sends %" PRIu64 " bytes", total);
    whole_root(root, sizeof root);
    const char *why = whole_root_ready(root);
    if (why)
        return whole_refused(h, root, why, diag);
    h->size = (size_t)total;
    if (h->probe > total)
        h->probe = (uint32_t)total;
    snprintf(key, sizeof key, "mcz http cache 1\nurl %s\nsize %zu\netag %s\nmodified %s\nwhole\n",
             h->url, h->size, h->etag, h->modified);
    mcz_http_cache *c = mcz_http_cache_open(root, key);
    if (c)
        mcz_http_cache_piece_path(c, 0, total, path, sizeof path);
    bool writable = mcz_http_cache_writable(c);
    mcz_http_cache_free(c);
    if (c && whole_map(h, path))
        return mark_present(h, 0, h->size);
    if (!writable)
        return whole_refused(h, root, c ? "cannot be written" : "cannot be opened", diag);
    int rc = whole_fetch(h, path, diag);
    if (rc == MCZ_OK && !whole_map(h, path))
        rc = mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                         "the body just fetched into the cache cannot be mapped");
    if (rc == MCZ_OK)
        fprintf(stderr, "mcz: note: %s: the server ignores range requests, so its whole body "
                "(%zu bytes) was fetched once into the cache %s; a server that honours ranges "
                "(nginx, for one) sends only what is read\n", h->url, h->size, root);
    return rc == MCZ_OK ? mark_present(h, 0, h->size) : rc;
}

/*
 * The memo: the ranges an open asked to keep (mcz_src_keep: for an archive its header,
 * dictionary, index and footer), for the next open of the same URL in this process (a tool
 * opens a collection several times: to plan, to read its version, in each worker): reused once
 * the file's length and its probed trailer (an archive's footer carries the index's checksum)
 * are found the same, so only the trailer is fetched again. A process forked by the one that
 * kept it (a replay worker) takes the memo as it is, without even the trailer. That stays safe
 * because every answer the child gets is still checked against the length and the validators
 * of the version the memo holds, so a change of the file is an error there too, and the kept
 * bytes are checked by their reader as fetched ones are. One memo per process (the last URL
 * kept): workers open one collection.
 */
static struct {
    mcz_mutex lock; /* made by init_once, before the first source */
    char *url;
    size_t size;
    uint32_t probe;
    mcz_src_range *ranges; /* each with its bytes, at bytes + the sum of the lengths before */
    size_t count;
    uint8_t *bytes;
    long pid; /* the process that last found it current */
    char etag[128], modified[64];
} memo;

static void memo_init(void)
{
    mcz_mutex_init(&memo.lock);
}

/* Copies the memo's ranges into h's image, present. Caller holds memo.lock. */
static bool memo_fill(mcz_http *h)
{
    const uint8_t *p = memo.bytes;
    for (size_t i = 0; i < memo.count; i++) {
        memcpy(h->image + memo.ranges[i].off, p, memo.ranges[i].len);
        if (mark_present(h, memo.ranges[i].off, memo.ranges[i].len) != MCZ_OK)
            return false;
        p += memo.ranges[i].len;
    }
    h->from_memo = true;
    memo.pid = mcz_os_process_id();
    return true;
}

/* Opens h from a memo inherited through fork: true when it did. */
static bool memo_inherit(mcz_http *h)
{
    mcz_mutex_lock(&memo.lock);
    bool ok = memo.url && strcmp(memo.url, h->url) == 0 && memo.pid != mcz_os_process_id() &&
              image_map(h, memo.size, NULL) == MCZ_OK;
    if (ok) {
        h->probe = memo.probe;
        memcpy(h->etag, memo.etag, sizeof h->etag);
        memcpy(h->modified, memo.modified, sizeof h->modified);
        ok = memo_fill(h);
    }
    mcz_mutex_unlock(&memo.lock);
    return ok;
}

/* Fills the image from the memo when it holds this file unchanged (its trailer just fetched,
 * the last of the memo's ranges): true when it did. */
static bool memo_reuse(mcz_http *h)
{
    mcz_mutex_lock(&memo.lock);
    const uint8_t *tail = h->image + h->size - h->probe;
    size_t total = 0;
    for (size_t i = 0; i < memo.count; i++)
        total += memo.ranges[i].len;
    bool same = memo.url && strcmp(memo.url, h->url) == 0 && memo.size == h->size &&
                memo.probe == h->probe && memo.count &&
                memo.ranges[memo.count - 1].off + memo.ranges[memo.count - 1].len == h->size &&
                memo.ranges[memo.count - 1].len >= h->probe &&
                memcmp(memo.bytes + total - h->probe, tail, h->probe) == 0;
    if (same) {
        same = memo_fill(h);
        memcpy(memo.etag, h->etag, sizeof memo.etag);
        memcpy(memo.modified, h->modified, sizeof memo.modified);
    }
    mcz_mutex_unlock(&memo.lock);
    return same;
}

static void memo_clear(void)
{
    free(memo.url);
    free(memo.ranges);
    free(memo.bytes);
    memo.url = NULL;
    memo.ranges = NULL;
    memo.bytes = NULL;
    memo.count = 0;
}

/* mcz_src_keep: ranges (sorted, present) and the trailer become the memo. */
static void http_keep(mcz_src *s, const mcz_src_range *ranges, size_t n)
{
    mcz_http *h = s->impl;
    if (h->from_memo || h->ignores_ranges) /* the whole body is in the cache already */
        return;
    mcz_mutex_lock(&memo.lock);
    memo_clear();
    size_t total = h->probe;
    for (size_t i = 0; i < n; i++)
        total += ranges[i].len;
    memo.url = strdup(h->url);
    memo.ranges = malloc((n + 1) * sizeof *memo.ranges);
    memo.bytes = malloc(total ? total : 1);
    if (memo.url && memo.ranges && memo.bytes) {
        uint8_t *p = memo.bytes;
        for (size_t i = 0; i < n; i++) {
            memo.ranges[i] = ranges[i];
            memcpy(p, h->image + ranges[i].off, ranges[i].len);
            p += ranges[i].len;
        }
        memo.ranges[n] = (mcz_src_range){h->size - h->probe, h->probe};
        memcpy(p, h->image + h->size - h->probe, h->probe);
        memo.count = n + 1;
        memo.size = h->size;
        memo.probe = h->probe;
        memo.pid = mcz_os_process_id();
        memcpy(memo.etag, h->etag, sizeof memo.etag);
        memcpy(memo.modified, h->modified, sizeof memo.modified);
    } else {
        memo_clear();
    }
    mcz_mutex_unlock(&memo.lock);
}

/* ---- Fetching ---- */

/* Bytes [off, end) from the cache, else fetched (and then kept in the cache, a piece each of
 * pieces[0, n), which tile [off, end)). Caller holds lock. */
static int fill(mcz_http *h, const mcz_src_range *pieces, size_t n, mcz_diag *diag)
{
    uint64_t off = pieces[0].off, end = pieces[n - 1].off + pieces[n - 1].len, total = h->size;
    int rc = http_get(h, off, end - off, h->image + off, &total, diag);
    for (size_t i = 0; rc == MCZ_OK && i < n; i++)
        mcz_http_cache_store(h->cache, pieces[i].off, h->image + pieces[i].off, pieces[i].len);
    return rc == MCZ_OK ? mark_present(h, off, end - off) : rc;
}

/* The absent parts of ranges[0, n), as pieces of at most MCZ_HTTP_REQUEST_MAX, into *out. */
static int absent_pieces(const mcz_http *h, const mcz_src_range *ranges, size_t n,
                         mcz_src_range **out, size_t *count)
{
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t at = ranges[i].off, end = at + ranges[i].len, gap, gap_end;
        while (next_gap(h, at, end, &gap, &gap_end)) {
            for (at = gap; at < gap_end;) {
                uint64_t len = gap_end - at < MCZ_HTTP_REQUEST_MAX ? gap_end - at : MCZ_HTTP_REQUEST_MAX;
                if (ranges_reserve(out, &cap, *count + 1) != MCZ_OK)
                    return MCZ_ENOMEM;
                (*out)[(*count)++] = (mcz_src_range){at, len};
                at += len;
            }
        }
    }
    return MCZ_OK;
}

/* Fetches the absent parts of ranges[0, n) (sorted): those in the cache from it, the others in
 * as few requests as their adjacency allows, each at most MCZ_HTTP_REQUEST_MAX. Caller holds
 * lock. */
static int fetch_locked(mcz_http *h, const mcz_src_range *ranges, size_t n, mcz_diag *diag)
{
    mcz_src_range *p;
    size_t count, kept = 0;
    int rc = absent_pieces(h, ranges, n, &p, &count);
    for (size_t i = 0; rc == MCZ_OK && i < count; i++) {
        if (mcz_http_cache_load(h->cache, p[i].off, h->image + p[i].off, p[i].len))
            rc = mark_present(h, p[i].off, p[i].len);
        else
            p[kept++] = p[i];
    }
    for (size_t i = 0; rc == MCZ_OK && i < kept;) {
        size_t last = i;
        while (last + 1 < kept && p[last + 1].off == p[last].off + p[last].len &&
               p[last + 1].off + p[last + 1].len - p[i].off <= MCZ_HTTP_REQUEST_MAX)
            last++;
        rc = fill(h, p + i, last - i + 1, diag);
        i = last + 1;
    }
    free(p);
    return rc == MCZ_ENOMEM ? mcz_fail_at(diag, h->url, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                          "out of memory") : rc;
}

static int http_fetch(mcz_src *s, const mcz_src_range *ranges, size_t n, mcz_diag *diag)
{
    mcz_http *h = s->impl;
    mcz_mutex_lock(&h->lock);
    int rc = MCZ_OK;
    if (n != 1 || next_gap(h, ranges[0].off, ranges[0].off + ranges[0].len, &(uint64_t){0},
                           &(uint64_t){0}))
        rc = fetch_locked(h, ranges, n, diag);
    mcz_mutex_unlock(&h->lock);
    return rc;
}

static void http_close(mcz_src *s)
{
    http_free(s->impl);
}

static const mcz_src_backend http_backend = {
    .fetch = http_fetch,
    .keep = http_keep,
    .close = http_close,
};

mcz_src *mcz_src_open_http(const char *url, uint32_t probe, mcz_diag *diag)
{
    mcz_src *s = mcz_src_new(&http_backend, url, NULL);
    mcz_http *h = s ? http_create(s->name, diag) : NULL;
    if (!h) {
        if (!s)
            mcz_fail_at(diag, url, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        mcz_src_close(s);
        return NULL;
    }
    s->impl = h;
    h->probe = probe;
    int rc = memo_inherit(h) ? MCZ_OK : http_probe(h, diag);
    if (rc == MCZ_OK && !h->ignores_ranges)
        cache_attach(h);
    if (rc == MCZ_OK && !h->from_memo && !h->ignores_ranges)
        memo_reuse(h);
    if (rc != MCZ_OK) {
        mcz_src_close(s);
        return NULL;
    }
    s->image = h->image;
    s->size = h->size;
    s->remote = true;
    return s;
}
