/*
 * toc.c - SuperPMI's .mct table of contents (superpmi/SUPERPMI.md "The TOC (.mct)"):
 *   "INDX", u32 count, count x 48-byte TOCElement {i64 offset, i32 number, char hash[33], 3 pad},
 *   "INDX".
 * The pad bytes are uninitialised heap in files written by mcs: ignored on read, zero on write.
 * Also SuperPMI's paired-file lookup (CheckForPairedFile), by which it finds a .mct, .mch or .exc.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcz_common.h"
#include "toc.h"
#include "../platform/platform.h"

#define TOC_TAG "INDX"
#define TOC_TAG_SIZE 4u
#define TOC_HEADER_SIZE MCZ_TOC_HEADER_SIZE /* tag + count */
#define TOC_EL_OFFSET 0u
#define TOC_EL_NUMBER 8u
#define TOC_EL_HASH 12u
#define TOC_HASH_SIZE 33u

_Static_assert(TOC_TAG_SIZE == MCZ_TOC_TRAILER_SIZE, "the trailer is the tag");
_Static_assert(TOC_EL_HASH + TOC_HASH_SIZE + 3 == MCZ_TOC_ELEMENT_SIZE, "TOCElement is 48 bytes");
_Static_assert(sizeof(((mcz_toc_entry *)0)->hash) == TOC_HASH_SIZE, "hash field is 33 bytes");

/* Copies a hash field up to its NUL, zero-filling the rest, so equal hashes compare equal. */
static void hash_copy(char dst[TOC_HASH_SIZE], const char *src, size_t src_len)
{
    size_t n = 0;
    while (n < src_len && n < TOC_HASH_SIZE - 1 && src[n] != '\0')
        n++;
    memcpy(dst, src, n);
    memset(dst + n, 0, TOC_HASH_SIZE - n);
}

static int element_parse(const uint8_t *el, int64_t at, mcz_toc_entry *out, mcz_diag *diag)
{
    const char *hash = (const char *)el + TOC_EL_HASH;
    if (!memchr(hash, '\0', TOC_HASH_SIZE))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(at + TOC_EL_HASH), MCZ_NO_CONTEXT,
                            "TOC element hash is not NUL-terminated within 33 bytes");
    out->offset = (int64_t)mcz_get_le64(el + TOC_EL_OFFSET);
    out->number = (int32_t)mcz_get_le32(el + TOC_EL_NUMBER);
    hash_copy(out->hash, hash, TOC_HASH_SIZE);
    return MCZ_OK;
}

static int toc_frame_check(const uint8_t *buf, size_t len, uint32_t *count, mcz_diag *diag)
{
    if (len < TOC_HEADER_SIZE)
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)len), MCZ_NO_CONTEXT,
                            "TOC of %zu bytes is shorter than its 8-byte header", len);
    if (memcmp(buf, TOC_TAG, TOC_TAG_SIZE) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset(0), MCZ_NO_CONTEXT,
                            "TOC does not start with INDX");
    *count = mcz_get_le32(buf + TOC_TAG_SIZE);
    uint64_t body = (uint64_t)*count * MCZ_TOC_ELEMENT_SIZE; /* < 2^38: no overflow */
    if (!mcz_fits(len, TOC_HEADER_SIZE, body) ||
        !mcz_fits(len, TOC_HEADER_SIZE + body, TOC_TAG_SIZE))
        return mcz_diag_set(diag, MCZ_ETRUNCATED, mcz_at_offset((int64_t)len), MCZ_NO_CONTEXT,
                            "TOC claims %u elements (%llu bytes) but holds %zu bytes", *count,
                            (unsigned long long)(body + TOC_HEADER_SIZE + TOC_TAG_SIZE), len);
    size_t trailer = TOC_HEADER_SIZE + (size_t)body;
    if (memcmp(buf + trailer, TOC_TAG, TOC_TAG_SIZE) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)trailer), MCZ_NO_CONTEXT,
                            "TOC does not end with INDX");
    if (len - trailer != TOC_TAG_SIZE)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)(trailer + TOC_TAG_SIZE)),
                            MCZ_NO_CONTEXT, "%zu bytes after the TOC's closing INDX",
                            len - trailer - TOC_TAG_SIZE);
    return MCZ_OK;
}

static int numbers_check(const mcz_toc_entry *e, uint32_t count, mcz_diag *diag)
{
    for (uint32_t i = 1; i < count; i++) {
        if (e[i].number <= e[i - 1].number)
            return mcz_diag_set(diag, MCZ_ECORRUPT,
                                mcz_at_offset((int64_t)(TOC_HEADER_SIZE +
                                                        (uint64_t)i * MCZ_TOC_ELEMENT_SIZE +
                                                        TOC_EL_NUMBER)),
                                mcz_in_context(e[i].number),
                                "TOC numbers not increasing: %d after %d", e[i].number,
                                e[i - 1].number);
    }
    return MCZ_OK;
}

int mcz_toc_parse(const uint8_t *buf, size_t len, bool validate, mcz_toc_entry **entries,
                  uint32_t *count, mcz_diag *diag)
{
    if ((!buf && len) || !entries || !count)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_toc_parse: NULL argument");
    *entries = NULL;
    *count = 0;
    uint32_t n = 0;
    int rc = toc_frame_check(buf, len, &n, diag);
    if (rc != MCZ_OK)
        return rc;
    /* n * 48 bytes are in buf, so the allocation is bounded by the input's size. */
    mcz_toc_entry *e = n ? calloc(n, sizeof *e) : NULL;
    if (n && !e)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "out of memory for %u TOC entries", n);
    for (uint32_t i = 0; i < n && rc == MCZ_OK; i++) {
        size_t at = TOC_HEADER_SIZE + (size_t)i * MCZ_TOC_ELEMENT_SIZE;
        rc = element_parse(buf + at, (int64_t)at, &e[i], diag);
    }
    if (rc == MCZ_OK && validate)
        rc = numbers_check(e, n, diag);
    if (rc != MCZ_OK) {
        free(e);
        return rc;
    }
    *entries = e;
    *count = n;
    return MCZ_OK;
}

int mcz_toc_load(mcz_src *src, bool validate, mcz_toc_entry **entries, uint32_t *count,
                 mcz_diag *diag)
{
    const uint8_t *bytes;
    int rc = mcz_src_view(src, 0, mcz_src_size(src), &bytes, diag);
    return rc == MCZ_OK ? mcz_toc_parse(bytes, (size_t)mcz_src_size(src), validate, entries, count,
                                        diag)
                        : rc;
}

int mcz_toc_check(const mcz_toc_entry *e, uint32_t count, uint64_t file_size, mcz_diag *diag)
{
    if (count && !e)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_toc_check: NULL entries");
    if (count == 0)
        return file_size == 0 ? MCZ_OK
                              : mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                             "it lists no context");
    if (e[0].offset != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "it places context 1 at %lld, not at 0", (long long)e[0].offset);
    for (uint32_t i = 0; i < count; i++) {
        if (e[i].number != (int64_t)i + 1)
            return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "its entry %u is numbered %d: the numbers are not 1, 2, 3...",
                                i + 1, e[i].number);
        if (e[i].offset < 0 || file_size < MCZ_MC_OVERHEAD ||
            (uint64_t)e[i].offset > file_size - MCZ_MC_OVERHEAD)
            return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "it places context %u at %lld, outside the file (%llu bytes)",
                                i + 1, (long long)e[i].offset, (unsigned long long)file_size);
        if (i > 0 && e[i].offset - e[i - 1].offset < (int64_t)MCZ_MC_OVERHEAD)
            return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "it places context %u at %lld, not past context %u (at %lld)",
                                i + 1, (long long)e[i].offset, i, (long long)e[i - 1].offset);
    }
    return MCZ_OK;
}

void mcz_toc_header_encode(uint32_t count, uint8_t out[MCZ_TOC_HEADER_SIZE])
{
    memcpy(out, TOC_TAG, TOC_TAG_SIZE);
    mcz_put_le32(out + TOC_TAG_SIZE, count);
}

void mcz_toc_element_encode(const mcz_toc_entry *e, uint8_t out[MCZ_TOC_ELEMENT_SIZE])
{
    memset(out, 0, MCZ_TOC_ELEMENT_SIZE);
    mcz_put_le64(out + TOC_EL_OFFSET, (uint64_t)e->offset);
    mcz_put_le32(out + TOC_EL_NUMBER, (uint32_t)e->number);
    hash_copy((char *)out + TOC_EL_HASH, e->hash, TOC_HASH_SIZE);
}

void mcz_toc_trailer_encode(uint8_t out[MCZ_TOC_TRAILER_SIZE])
{
    memcpy(out, TOC_TAG, TOC_TAG_SIZE);
}

int mcz_toc_encode(const mcz_toc_entry *entries, uint32_t count, uint8_t **out, size_t *len)
{
    if ((!entries && count) || !out || !len)
        return MCZ_EINVAL;
    *out = NULL;
    *len = 0;
    uint64_t total = TOC_HEADER_SIZE + (uint64_t)count * MCZ_TOC_ELEMENT_SIZE + TOC_TAG_SIZE;
    if (total > SIZE_MAX)
        return MCZ_ELIMIT;
    uint8_t *buf = malloc((size_t)total);
    if (!buf)
        return MCZ_ENOMEM;
    mcz_toc_header_encode(count, buf);
    for (uint32_t i = 0; i < count; i++)
        mcz_toc_element_encode(&entries[i],
                               buf + TOC_HEADER_SIZE + (size_t)i * MCZ_TOC_ELEMENT_SIZE);
    mcz_toc_trailer_encode(buf + total - TOC_TAG_SIZE);
    *out = buf;
    *len = (size_t)total;
    return MCZ_OK;
}

/* Writes a + b into buf; false when it does not fit. */
static bool path_join(char *buf, size_t cap, const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    if (a_len >= cap || b_len >= cap - a_len)
        return false;
    memcpy(buf, a, a_len);
    memcpy(buf + a_len, b, b_len + 1);
    return true;
}

/* The suffix SuperPMI pairs by: from the last '.' anywhere in the path (a '.' in a directory
 * name counts), none when there is no '.' or it is the path's first character. */
static const char *pair_suffix(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && dot != path ? dot : NULL;
}

int mcz_paired_find(const char *path, const char *orig_suffix, const char *new_suffix, char *buf,
                    size_t cap)
{
    if (!path || !new_suffix || !buf || cap == 0)
        return MCZ_EINVAL;
    buf[0] = '\0';
    const char *suffix = pair_suffix(path);
    if (!suffix || (orig_suffix && strcasecmp(suffix, orig_suffix) != 0) ||
        !mcz_os_is_file(path))
        return 0;
    size_t len = strlen(path);
    if (!path_join(buf, cap, path, len, new_suffix))
        return MCZ_ELIMIT;
    if (mcz_os_is_file(buf))
        return 1;
    if (!path_join(buf, cap, path, (size_t)(suffix - path), new_suffix))
        return MCZ_ELIMIT;
    if (mcz_os_is_file(buf))
        return 1;
    buf[0] = '\0';
    return 0;
}

int mcz_toc_find(const char *mch_path, char *buf, size_t cap)
{
    return mcz_paired_find(mch_path, ".mch", ".mct", buf, cap);
}
