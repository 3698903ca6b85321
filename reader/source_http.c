/*
 * source_http.c - an .mcz archive read over HTTP(S) with range requests (libcurl). The archive's
 * image is a sparse anonymous mapping of its full size: opening fetches the footer, then the
 * index, then the header and dictionary; a chunk is fetched the first time a cursor or
 * mcz_reader_chunk_frames needs it, alone: readers sharing an archive (replay workers given
 * chunks by a scheduler, shards) then download it once between them. A reader that knows
 * what it reads next says so (mcz_reader_prefetch; a source walking in order does, for the
 * next MCZ_HTTP_READAHEAD chunks) and adjacent chunks come in one request of at most
 * MCZ_HTTP_REQUEST_MAX. Every chunk is then checked exactly as a local one is. With
 * MCZ_CACHE_DIR set, every piece is looked for in the cache first and kept there once fetched
 * (http_cache.c).
 *
 * The server is hostile like the bytes: each answer must be 206 with the Content-Range asked
 * for (and the archive's total length) and exactly that many bytes; a 200 (ranges ignored), a
 * 416, another range, a short body or another ETag or Last-Modified than the footer's answer
 * gave (the archive replaced while read) is an error naming the URL. Connection failures, 5xx
 * and 429 answers are retried MCZ_HTTP_TRIES times with doubling pauses; redirects are
 * followed, at most MCZ_HTTP_REDIRECTS of them.
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mcz_common.h"
#include "reader_impl.h"

#define MCZ_HTTP_TRIES 4
#define MCZ_HTTP_PAUSE_MS 100
#define MCZ_HTTP_REDIRECTS 3

struct mcz_http {
    CURL *curl;
    char *url;
    uint8_t *image; /* size bytes, anonymous: pages never fetched stay zero and unbacked */
    size_t size;
    uint8_t *have;  /* per chunk: 1 once fetched */
    pthread_mutex_t lock; /* one transfer at a time; the reader is shared by threads */
    char etag[128];       /* the validators of the version opened, as the footer's answer gave */
    char modified[64];    /* them ("" when the server sends none) */
    mcz_http_cache *cache; /* MCZ_CACHE_DIR's pieces of this version; NULL without one */
};

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
} http_xfer;

int mcz_path_is_url(const char *path)
{
    return mcz_http_is_url(path);
}

bool mcz_http_is_url(const char *path)
{
    return path && (strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0);
}

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
        x->range[0] = x->etag[0] = x->modified[0] = '\0';
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
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The answer to bytes off..off+len-1 (the last len bytes when *total is 0: a suffix range) must
 * be 206 with exactly that Content-Range and body; *total is the archive's length, set from the
 * answer when 0. */
static int check_answer(const mcz_http *h, const http_xfer *x, long status, uint64_t off,
                        uint64_t len, uint64_t *total, mcz_diag *diag)
{
    if (status == 200)
        return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1,
                        "%s: the server ignores range requests (200 with the whole body)", h->url);
    if (status != 206)
        return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1, "%s: HTTP %ld for %" PRIu64 " bytes at %s",
                        h->url, status, len, *total ? "an offset" : "the end");
    unsigned long long a, b, t;
    bool parsed = sscanf(x->range, " bytes %llu-%llu/%llu", &a, &b, &t) == 3;
    if (parsed && *total == 0 && t >= len) /* the suffix: now the offsets are known */
        off = t - len;
    if (!parsed || a != off || b != off + len - 1 || (*total && t != *total))
        return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1,
                        "%s: asked for %" PRIu64 " bytes at %" PRIu64 ", the server sent range '%s'",
                        h->url, len, off, x->range);
    if (x->got != len)
        return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1,
                        "%s: bytes %" PRIu64 "-%llu: %" PRIu64 " bytes received", h->url, off, b,
                        x->got);
    /* pieces of two versions (an answer without the validator cannot tell) */
    if ((h->etag[0] && x->etag[0] && strcmp(x->etag, h->etag) != 0) ||
        (h->modified[0] && x->modified[0] && strcmp(x->modified, h->modified) != 0))
        return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1,
                        "%s: the archive changed while it was read (ETag '%s', was '%s')", h->url,
                        x->etag, h->etag);
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
        return mcz_fail(diag, MCZ_EIO, placed ? (int64_t)off : -1, -1,
                        "%s: HTTP %ld reading %s (%d tries)", h->url, status, what, tries);
    long os_errno = 0;
    curl_easy_getinfo(h->curl, CURLINFO_OS_ERRNO, &os_errno);
    const char *reason = os_errno ? strerror((int)os_errno) : curl_easy_strerror(cc);
    url_host(h, host, sizeof host);
    if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
        cc == CURLE_OPERATION_TIMEDOUT)
        return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: cannot connect to %s: %s (%d tries)", h->url,
                        host, cc == CURLE_COULDNT_RESOLVE_HOST ? "unknown host" : reason, tries);
    return mcz_fail(diag, MCZ_EIO, placed ? (int64_t)off : -1, -1,
                    "%s: reading %s from %s failed: %s (%d tries)", h->url, what, host, reason,
                    tries);
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
    long pause = MCZ_HTTP_PAUSE_MS;
    for (int attempt = 1;; attempt++, pause *= 2) {
        http_xfer x = {.curl = h->curl, .dst = dst, .want = len};
        curl_easy_setopt(h->curl, CURLOPT_RANGE, range);
        curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, &x);
        CURLcode cc = curl_easy_perform(h->curl);
        long status = 0;
        curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
        if (x.overflow && status == 206)
            return mcz_fail(diag, MCZ_EIO, (int64_t)off, -1,
                            "%s: more bytes than asked for %s", h->url, range);
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

void mcz_http_free(mcz_http *h)
{
    if (!h)
        return;
    if (h->curl)
        curl_easy_cleanup(h->curl);
    if (h->image && h->size)
        munmap(h->image, h->size);
    pthread_mutex_destroy(&h->lock);
    mcz_http_cache_free(h->cache);
    free(h->have);
    free(h->url);
    free(h);
}

static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static mcz_http *http_create(const char *url, mcz_diag *diag)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, curl_init_once);
    mcz_http *h = calloc(1, sizeof *h);
    if (!h || !(h->url = strdup(url)) || !(h->curl = curl_easy_init())) {
        if (h)
            free(h->url);
        free(h);
        mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: out of memory", url);
        return NULL;
    }
    pthread_mutex_init(&h->lock, NULL);
    curl_easy_setopt(h->curl, CURLOPT_URL, url);
    curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h->curl, CURLOPT_MAXREDIRS, (long)MCZ_HTTP_REDIRECTS);
    curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
    return h;
}

/* The sparse image of an archive of total bytes. */
static int image_map(mcz_http *h, uint64_t total, mcz_diag *diag)
{
    void *m = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: cannot map %" PRIu64 " bytes", h->url, total);
    h->image = m;
    h->size = (size_t)total;
    return MCZ_OK;
}

/* The probe: the footer, a suffix range that also tells the archive's length; then the sparse
 * image of that length, the footer at its end. */
static int http_probe(mcz_http *h, mcz_diag *diag)
{
    uint8_t footer[MCZ_ARC_FOOTER_SIZE];
    uint64_t total = 0;
    int rc = http_get(h, 0, sizeof footer, footer, &total, diag);
    if (rc == MCZ_OK && (total < MCZ_ARC_HEADER_SIZE + MCZ_ARC_FOOTER_SIZE || total > SIZE_MAX / 2))
        return mcz_fail(diag, MCZ_ECORRUPT, -1, -1, "%s: %" PRIu64 " bytes is no archive", h->url,
                        total);
    if (rc == MCZ_OK)
        rc = image_map(h, total, diag);
    if (rc == MCZ_OK)
        memcpy(h->image + h->size - sizeof footer, footer, sizeof footer);
    return rc;
}

/* Bytes [off, end) of the image, fetched. */
static int http_fill(mcz_http *h, uint64_t off, uint64_t end, mcz_diag *diag)
{
    if (off >= end)
        return MCZ_OK;
    uint64_t total = h->size;
    return http_get(h, off, end - off, h->image + off, &total, diag);
}

/* Opens MCZ_CACHE_DIR's pieces of the version the probe found: its key is the URL, the
 * length, the validators and the footer (which carries the index's checksum). */
static void cache_attach(mcz_http *h)
{
    const char *root = getenv("MCZ_CACHE_DIR");
    if (!root || !root[0])
        return;
    const uint8_t *footer = h->image + h->size - MCZ_ARC_FOOTER_SIZE;
    char key[8192], hex[2 * MCZ_ARC_FOOTER_SIZE + 1];
    for (unsigned i = 0; i < MCZ_ARC_FOOTER_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", footer[i]);
    int n = snprintf(key, sizeof key, "mcz http cache 1\nurl %s\nsize %zu\netag %s\nmodified %s\n"
                     "footer %s\n", h->url, h->size, h->etag, h->modified, hex);
    if (n > 0 && (size_t)n < sizeof key)
        h->cache = mcz_http_cache_open(root, key);
}

/* Bytes [off, end) of the image from the cache, else fetched (and then kept in the cache). */
static int piece_fill(mcz_http *h, uint64_t off, uint64_t end, mcz_diag *diag)
{
    if (off >= end || mcz_http_cache_load(h->cache, off, h->image + off, end - off))
        return MCZ_OK;
    int rc = http_fill(h, off, end, diag);
    if (rc == MCZ_OK)
        mcz_http_cache_store(h->cache, off, h->image + off, end - off);
    return rc;
}

/* The parts an open fetched, kept for the next open of the same URL in this process (a tool
 * opens a collection several times: to plan, to read its version, in each worker): reused once
 * the archive's length and its footer (which carries the index's checksum) are found the same,
 * so only the footer is fetched again. A process forked by the one that opened it (a replay
 * worker) takes the memo as it is, without even the footer: each answer it gets is still
 * checked against the length and validators of the version the memo holds, so a change of
 * the archive is an error there too. */
static struct {
    pthread_mutex_t lock;
    char *url;
    size_t size;
    uint8_t *head; /* [0, head_end) */
    uint64_t head_end;
    uint8_t *tail; /* [index_offset, size): index and footer */
    uint64_t index_offset;
    pid_t pid;     /* the process that last found it current */
    char etag[128], modified[64];
} memo = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Notes that this process found the memo current, with h's validators. Caller holds lock. */
static void memo_current(const mcz_http *h)
{
    memo.pid = getpid();
    memcpy(memo.etag, h->etag, sizeof memo.etag);
    memcpy(memo.modified, h->modified, sizeof memo.modified);
}

/* Opens h from a memo inherited through fork: true when it did. */
static bool memo_inherit(mcz_http *h)
{
    pthread_mutex_lock(&memo.lock);
    bool ok = memo.url && strcmp(memo.url, h->url) == 0 && memo.pid != getpid() &&
              image_map(h, memo.size, NULL) == MCZ_OK;
    if (ok) {
        memcpy(h->image, memo.head, memo.head_end);
        memcpy(h->image + memo.index_offset, memo.tail, h->size - memo.index_offset);
        memcpy(h->etag, memo.etag, sizeof h->etag);
        memcpy(h->modified, memo.modified, sizeof h->modified);
    }
    pthread_mutex_unlock(&memo.lock);
    return ok;
}

static void memo_keep(const mcz_http *h, uint64_t head_end, uint64_t index_offset)
{
    pthread_mutex_lock(&memo.lock);
    free(memo.url);
    free(memo.head);
    free(memo.tail);
    memo.url = strdup(h->url);
    memo.head = malloc(head_end ? head_end : 1);
    memo.tail = malloc(h->size - index_offset);
    if (memo.url && memo.head && memo.tail) {
        memcpy(memo.head, h->image, head_end);
        memcpy(memo.tail, h->image + index_offset, h->size - index_offset);
        memo.size = h->size;
        memo.head_end = head_end;
        memo.index_offset = index_offset;
        memo_current(h);
    } else {
        free(memo.url);
        memo.url = NULL;
    }
    pthread_mutex_unlock(&memo.lock);
}

/* Fills the image from the memo when it holds this archive unchanged (its footer just
 * fetched): true when it did. */
static bool memo_reuse(mcz_http *h)
{
    pthread_mutex_lock(&memo.lock);
    const uint8_t *footer = h->image + h->size - MCZ_ARC_FOOTER_SIZE;
    bool same = memo.url && strcmp(memo.url, h->url) == 0 && memo.size == h->size &&
                memcmp(memo.tail + (h->size - MCZ_ARC_FOOTER_SIZE - memo.index_offset), footer,
                       MCZ_ARC_FOOTER_SIZE) == 0;
    if (same) {
        memcpy(h->image, memo.head, memo.head_end);
        memcpy(h->image + memo.index_offset, memo.tail, h->size - memo.index_offset);
        memo_current(h);
    }
    pthread_mutex_unlock(&memo.lock);
    return same;
}

/* Footer, index, then everything before the first chunk (header, dictionary). */
static int http_open_parts(mcz_http *h, mcz_diag *diag)
{
    bool reused = memo_inherit(h);
    int rc = reused ? MCZ_OK : http_probe(h, diag);
    mcz_arc_footer footer;
    if (rc == MCZ_OK)
        rc = mcz_arc_footer_decode(h->image, h->size, &footer, diag);
    if (rc == MCZ_OK)
        cache_attach(h);
    reused = reused || (rc == MCZ_OK && memo_reuse(h));
    if (rc == MCZ_OK && !reused)
        rc = piece_fill(h, footer.index_offset, h->size - MCZ_ARC_FOOTER_SIZE, diag);
    mcz_arc_index idx;
    if (rc == MCZ_OK)
        rc = mcz_arc_index_decode(h->image, h->size, &footer, MCZ_ARC_HEADER_SIZE, &idx, diag);
    if (rc != MCZ_OK)
        return rc;
    uint64_t head_end = footer.index_offset;
    uint32_t chunks = idx.chunk_count;
    if (chunks) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(&idx, 0, &c);
        head_end = c.offset;
    }
    mcz_arc_index_free(&idx); /* the reader decodes the index again from the image */
    h->have = calloc(chunks ? chunks : 1, 1);
    if (!h->have)
        return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: out of memory", h->url);
    if (!reused)
        rc = piece_fill(h, 0, head_end, diag);
    if (rc == MCZ_OK && !reused)
        memo_keep(h, head_end, footer.index_offset);
    return rc;
}

mcz_reader *mcz_rd_open_http(const char *url, mcz_diag *diag)
{
    mcz_http *h = http_create(url, diag);
    if (!h)
        return NULL;
    mcz_reader *r = NULL;
    mcz_diag d;
    mcz_diag_clear(&d);
    if (http_open_parts(h, &d) == MCZ_OK)
        r = mcz_reader_open_image(h->image, h->size, &d);
    if (!r) {
        if (strstr(d.message, url)) /* already names the URL */
            mcz_fail(diag, d.code, d.offset, d.context, "%s", d.message);
        else
            mcz_fail(diag, d.code, d.offset, d.context, "%s: %s", url, d.message);
        mcz_http_free(h);
        return NULL;
    }
    r->http = h;
    return r;
}

/* Chunk i from the cache: true when it was there, whole and undamaged. */
static bool chunk_cached(const mcz_reader *r, mcz_http *h, uint64_t i)
{
    if (!h->cache)
        return false;
    mcz_chunk_info c;
    mcz_arc_index_chunk(&r->index, (uint32_t)i, &c);
    return mcz_http_cache_load(h->cache, c.offset, h->image + c.offset, c.stored_size);
}

/* Keeps chunks [first, last] in the cache, a piece each (a later read may want one alone). */
static void chunks_keep(const mcz_reader *r, mcz_http *h, uint64_t first, uint64_t last)
{
    for (uint64_t i = first; h->cache && i <= last; i++) {
        mcz_chunk_info c;
        mcz_arc_index_chunk(&r->index, (uint32_t)i, &c);
        mcz_http_cache_store(h->cache, c.offset, h->image + c.offset, c.stored_size);
    }
}

/* Fetches the unfetched chunks among [first, first+count), those in the cache from it, the
 * others in as few requests as their adjacency allows, each at most MCZ_HTTP_REQUEST_MAX
 * (or one chunk). Caller holds lock. */
static int http_fetch(const mcz_reader *r, mcz_http *h, uint64_t first, uint64_t count,
                      mcz_diag *diag)
{
    uint64_t stop = first + count < r->index.chunk_count ? first + count : r->index.chunk_count;
    for (uint64_t i = first; i < stop; i++)
        if (!h->have[i] && chunk_cached(r, h, i))
            h->have[i] = 1;
    for (uint64_t i = first; i < stop; i++) {
        if (h->have[i])
            continue;
        mcz_chunk_info c, n;
        mcz_arc_index_chunk(&r->index, (uint32_t)i, &c);
        uint64_t end = c.offset + c.stored_size, last = i;
        while (last + 1 < stop && !h->have[last + 1]) {
            mcz_arc_index_chunk(&r->index, (uint32_t)(last + 1), &n);
            if (n.offset != end || n.offset + n.stored_size - c.offset > MCZ_HTTP_REQUEST_MAX)
                break;
            end = n.offset + n.stored_size;
            last++;
        }
        int rc = http_fill(h, c.offset, end, diag);
        if (rc != MCZ_OK) {
            if (diag && diag->context < 0)
                diag->context = c.first_number;
            return rc;
        }
        chunks_keep(r, h, i, last);
        memset(h->have + i, 1, last - i + 1);
        i = last;
    }
    return MCZ_OK;
}

int mcz_rd_prefetch(const mcz_reader *r, uint64_t first, uint64_t count, mcz_diag *diag)
{
    mcz_http *h = r ? r->http : NULL;
    if (!h || first >= r->index.chunk_count)
        return MCZ_OK;
    pthread_mutex_lock(&h->lock);
    int rc = http_fetch(r, h, first, count, diag);
    pthread_mutex_unlock(&h->lock);
    return rc;
}

int mcz_rd_need(const mcz_reader *r, uint64_t index, mcz_diag *diag)
{
    return mcz_rd_prefetch(r, index, 1, diag);
}

int mcz_reader_prefetch(const mcz_reader *r, uint64_t first, uint64_t count, mcz_diag *diag)
{
    if (!r)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_reader_prefetch: NULL reader");
    return mcz_rd_prefetch(r, first, count, diag);
}
