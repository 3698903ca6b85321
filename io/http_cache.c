/*
 * http_cache.c - the optional cache of an archive read over HTTP (MCZ_CACHE_DIR): the pieces a
 * reader fetched (header and dictionary, index, each chunk) kept as files, so a later run, or
 * another process, reads them from disk instead of the server.
 *
 * A remote archive's pieces live in DIR/<key>/, key the XXH3-128 of the URL, the archive's
 * length, its ETag and Last-Modified, and its footer (which carries the index's checksum): an
 * archive changed at the same URL gets another directory, never the old bytes. DIR/<key>/key
 * holds the key's text, compared at open, so a hash collision cannot mix two archives either.
 * A piece is the file <offset>+<length> (hex): the bytes, then the XXH3-64 of them (8 bytes,
 * little-endian). A piece whose length or checksum is wrong is damaged: not used, fetched again
 * and rewritten. Every file is written as the library writes any output (mcz_outfile: a
 * temporary name renamed, listed for removal should a signal end the process), so a reader
 * never sees half a piece and no temporary outlives the process. Nothing here is trusted further: chunks read from the cache are checked
 * by their checksums when decoded, as fetched ones are.
 *
 * A cache that cannot be created or written is a warning (once per process, on stderr) and the
 * archive is read without it. Nothing is ever removed: delete the directory to reclaim space.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "mcz_xxhash.h"
#include "source.h"
#include "../platform/platform.h"

#define CACHE_TRAILER 8u /* XXH3-64 of the piece */

struct mcz_http_cache {
    char dir[4096]; /* DIR/<key> */
    bool writable;  /* false after the first failed write: read-only from then on */
};

/* Says once per process that the cache is not used as it should be, and why. */
static void cache_warn(const char *what, const char *path, const char *why)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
        fprintf(stderr, "mcz: warning: cache %s: %s: %s; reading without it\n", path, what, why);
}

/* Writes a then b to path through mcz_outfile: "" when done, else why not (in why). */
static const char *write_atomic(const char *path, const uint8_t *a, size_t alen,
                                const uint8_t *b, size_t blen, mcz_diag *why)
{
    mcz_diag_clear(why);
    mcz_outfile *f = mcz_outfile_open(path, why);
    if (!f)
        return why->message;
    if (mcz_outfile_write(f, a, alen) == MCZ_OK && blen)
        (void)mcz_outfile_write(f, b, blen); /* a failed write is reported by the commit */
    int rc = mcz_outfile_commit(f, why);
    return rc == MCZ_OK ? "" : why->message;
}

/* The whole of a small file into buf (NUL-terminated): its length, or -1. */
static ptrdiff_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    if (fd < 0)
        return -1;
    ptrdiff_t n = mcz_os_read(fd, buf, cap - 1);
    mcz_os_close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

mcz_http_cache *mcz_http_cache_open(const char *root, const char *key)
{
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, XXH3_128bits(key, strlen(key)));
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", canon.digest[i]);
    mcz_http_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if ((size_t)snprintf(c->dir, sizeof c->dir, "%s/%s", root, hex) >= sizeof c->dir) {
        cache_warn("name too long", root, strerror(ENAMETOOLONG));
        free(c);
        return NULL;
    }
    char key_path[4200], held[8192];
    snprintf(key_path, sizeof key_path, "%s/key", c->dir);
    if (strlen(key) >= sizeof held - 1) { /* a key file that long could not be compared */
        cache_warn("URL too long for a key", root, strerror(ENAMETOOLONG));
        free(c);
        return NULL;
    }
    ptrdiff_t n = read_small(key_path, held, sizeof held);
    if (n >= 0 && strcmp(held, key) != 0) { /* another archive's pieces under this name */
        cache_warn("holds another archive under the same key", c->dir, strerror(EEXIST));
        free(c);
        return NULL;
    }
    c->writable = true;
    if (n >= 0)
        return c;
    const char *why = "";
    mcz_diag d;
    if ((mcz_os_mkdir(root) != 0 && errno != EEXIST) ||
        (mcz_os_mkdir(c->dir) != 0 && errno != EEXIST))
        why = strerror(errno);
    else
        why = write_atomic(key_path, (const uint8_t *)key, strlen(key), NULL, 0, &d);
    if (*why) {
        cache_warn("cannot be written", c->dir, why);
        c->writable = false;
    }
    return c;
}

void mcz_http_cache_free(mcz_http_cache *c)
{
    free(c);
}

bool mcz_http_cache_writable(const mcz_http_cache *c)
{
    return c && c->writable;
}

void mcz_http_cache_piece_path(const mcz_http_cache *c, uint64_t off, uint64_t len, char *out,
                               size_t cap)
{
    snprintf(out, cap, "%s/%" PRIx64 "+%" PRIx64, c->dir, off, len);
}

bool mcz_http_cache_load(const mcz_http_cache *c, uint64_t off, uint8_t *dst, uint64_t len)
{
    if (!c)
        return false;
    char path[4200];
    mcz_http_cache_piece_path(c, off, len, path, sizeof path);
    int fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    if (fd < 0)
        return false;
    mcz_os_file_info st;
    uint8_t trailer[CACHE_TRAILER];
    bool ok = mcz_os_fstat(fd, &st) == 0 && st.type == MCZ_OS_FILE_REGULAR &&
              st.size == len + CACHE_TRAILER;
    for (uint64_t done = 0; ok && done < len;) {
        int64_t n = mcz_os_pread(fd, dst + done, (size_t)(len - done), done);
        if (n > 0)
            done += (uint64_t)n;
        else
            ok = false; /* mcz_os_pread retried an interrupted read itself */
    }
    ok = ok && mcz_os_pread(fd, trailer, sizeof trailer, len) == (int64_t)sizeof trailer &&
         mcz_get_le64(trailer) == XXH3_64bits(dst, len);
    mcz_os_close(fd);
    return ok; /* a damaged piece: the caller fetches it and stores it again */
}

void mcz_http_cache_store(mcz_http_cache *c, uint64_t off, const uint8_t *src, uint64_t len)
{
    if (!c || !c->writable)
        return;
    char path[4200];
    mcz_http_cache_piece_path(c, off, len, path, sizeof path);
    uint8_t trailer[CACHE_TRAILER];
    mcz_put_le64(trailer, XXH3_64bits(src, len));
    mcz_diag d;
    const char *why = write_atomic(path, src, len, trailer, sizeof trailer, &d);
    if (*why) {
        cache_warn("cannot be written", c->dir, why);
        c->writable = false;
    }
}
