/*
 * meta.c - what a collection is for, recorded as its producer gave it (FORMAT.md §2a): the
 * JIT-EE version GUID and the target OS and architecture, their canonical texts, and the
 * metadata frame that stores them. Pure byte work, every read bounds-checked.
 */
#include <assert.h>
#include <ctype.h>
#include <string.h>

#include "archive.h"
#include "mcz_common.h"

#define META_PAYLOAD (MCZ_ARC_META_SIZE - MCZ_ARC_FRAME_HEAD)
#define META_HAS_GUID 1u
#define META_HAS_OS 2u
#define META_HAS_ARCH 4u
#define META_FLAGS_KNOWN (META_HAS_GUID | META_HAS_OS | META_HAS_ARCH)
/* Field offsets in the frame. */
#define META_AT_FLAGS 12u
#define META_AT_GUID 16u
#define META_AT_OS 52u
#define META_AT_ARCH 68u
#define META_AT_SUM 84u

_Static_assert(MCZ_ARC_META_SIZE == META_AT_SUM + 8, "metadata frame size");
_Static_assert(META_AT_OS - META_AT_GUID == MCZ_GUID_TEXT_SIZE - 1, "GUID field");
_Static_assert(META_AT_ARCH - META_AT_OS == MCZ_TARGET_TEXT_SIZE - 1, "OS field");
_Static_assert(META_AT_SUM - META_AT_ARCH == MCZ_TARGET_TEXT_SIZE - 1, "architecture field");

int mcz_guid_canonical(const char *text, char out[MCZ_GUID_TEXT_SIZE])
{
    out[0] = '\0';
    if (!text || strlen(text) != MCZ_GUID_TEXT_SIZE - 1)
        return MCZ_EINVAL;
    char canon[MCZ_GUID_TEXT_SIZE];
    for (size_t i = 0; i < MCZ_GUID_TEXT_SIZE - 1; i++) {
        unsigned char c = (unsigned char)text[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !isxdigit(c))
            return MCZ_EINVAL;
        canon[i] = (char)tolower(c);
    }
    canon[MCZ_GUID_TEXT_SIZE - 1] = '\0';
    memcpy(out, canon, sizeof canon);
    return MCZ_OK;
}

int mcz_target_canonical(const char *text, char out[MCZ_TARGET_TEXT_SIZE])
{
    out[0] = '\0';
    size_t len = text ? strlen(text) : 0;
    if (len == 0 || len > MCZ_TARGET_TEXT_SIZE - 1)
        return MCZ_EINVAL;
    char canon[MCZ_TARGET_TEXT_SIZE];
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!isalnum(c) && c != '_')
            return MCZ_EINVAL;
        canon[i] = (char)tolower(c);
    }
    canon[len] = '\0';
    memcpy(out, canon, len + 1);
    return MCZ_OK;
}

bool mcz_arc_meta_empty(const mcz_arc_meta *m)
{
    return !m->guid[0] && !m->os[0] && !m->arch[0];
}

int mcz_arc_meta_from_text(const char *guid, const char *os, const char *arch, mcz_arc_meta *m,
                           mcz_diag *diag)
{
    memset(m, 0, sizeof *m);
    if (guid && mcz_guid_canonical(guid, m->guid) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "JIT-EE GUID '%.64s' is not 8-4-4-4-12 hex digits", guid);
    if (os && mcz_target_canonical(os, m->os) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "target OS '%.64s' is not 1 to 16 letters, digits or '_'", os);
    if (arch && mcz_target_canonical(arch, m->arch) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "target architecture '%.64s' is not 1 to 16 letters, digits or '_'",
                            arch);
    return MCZ_OK;
}

/* Copies text into a zero-padded field of width bytes (text fits: it is canonical). */
static void put_text(uint8_t *field, size_t width, const char *text)
{
    size_t len = strlen(text);
    assert(len <= width);
    memset(field, 0, width);
    memcpy(field, text, len);
}

void mcz_arc_meta_encode(const mcz_arc_meta *m, uint8_t out[MCZ_ARC_META_SIZE])
{
    uint32_t flags = (m->guid[0] ? META_HAS_GUID : 0) | (m->os[0] ? META_HAS_OS : 0) |
                     (m->arch[0] ? META_HAS_ARCH : 0);
    mcz_put_le32(out, MCZ_ARC_SKIP_MAGIC);
    mcz_put_le32(out + 4, META_PAYLOAD);
    mcz_put_le32(out + 8, MCZ_ARC_TAG_META);
    mcz_put_le32(out + META_AT_FLAGS, flags);
    put_text(out + META_AT_GUID, META_AT_OS - META_AT_GUID, m->guid);
    put_text(out + META_AT_OS, META_AT_ARCH - META_AT_OS, m->os);
    put_text(out + META_AT_ARCH, META_AT_SUM - META_AT_ARCH, m->arch);
    mcz_put_le64(out + META_AT_SUM, mcz_arc_xxh3(out, META_AT_SUM));
}

typedef int (*canonical_fn)(const char *text, char *out);

/*
 * One text field of width bytes into out (width + 1 bytes): present, its text followed by zeros
 * only, and already canonical (canon gives it back unchanged); absent, zeros only.
 */
static bool take_text(const uint8_t *field, size_t width, bool present, canonical_fn canon,
                      char *out)
{
    size_t len = 0;
    while (len < width && field[len])
        len++;
    for (size_t i = len; i < width; i++)
        if (field[i])
            return false;
    if (!present) {
        out[0] = '\0';
        return len == 0;
    }
    char text[MCZ_GUID_TEXT_SIZE]; /* the widest field, plus its NUL */
    memcpy(text, field, len);
    text[len] = '\0';
    return canon(text, out) == MCZ_OK && strcmp(text, out) == 0;
}

int mcz_arc_meta_decode(const uint8_t *file, size_t size, uint64_t off, uint64_t index_offset,
                        mcz_arc_meta *out, uint64_t *frame_size, mcz_diag *diag)
{
    memset(out, 0, sizeof *out);
    *frame_size = 0;
    if (!mcz_fits(size, off, MCZ_ARC_FRAME_HEAD + 4))
        return MCZ_OK;
    bool magic = mcz_get_le32(file + off) == MCZ_ARC_SKIP_MAGIC;
    uint32_t tag = mcz_get_le32(file + off + 8);
    if (tag != MCZ_ARC_TAG_META) {
        bool index = tag == MCZ_ARC_TAG_INDEX && off == index_offset;
        if (!magic || mcz_arc_is_chunk_tag(tag) || index)
            return MCZ_OK; /* the first chunk, the index, a hole a rolling writer punched */
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                            "metadata: an mcz frame of unknown tag where the metadata or the first "
                            "chunk belongs");
    }
    uint32_t payload;
    int rc = mcz_arc_frame_check(file, size, off, MCZ_ARC_TAG_META, 4, "metadata", &payload, diag);
    if (rc != MCZ_OK)
        return rc;
    if (payload != META_PAYLOAD)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + 4), MCZ_NO_CONTEXT,
                            "metadata: frame of %u bytes, expected %u", payload, META_PAYLOAD);
    const uint8_t *p = file + off;
    if (mcz_get_le64(p + META_AT_SUM) != mcz_arc_xxh3(p, META_AT_SUM))
        return mcz_diag_set(diag, MCZ_ECHECKSUM, mcz_at_offset((int64_t)off + META_AT_SUM),
                            MCZ_NO_CONTEXT, "metadata: checksum mismatch");
    uint32_t flags = mcz_get_le32(p + META_AT_FLAGS);
    if (flags == 0 || (flags & ~META_FLAGS_KNOWN) != 0)
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + META_AT_FLAGS),
                            MCZ_NO_CONTEXT, "metadata: bad flags 0x%x", flags);
    if (!take_text(p + META_AT_GUID, META_AT_OS - META_AT_GUID, flags & META_HAS_GUID,
                   mcz_guid_canonical, out->guid))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + META_AT_GUID),
                            MCZ_NO_CONTEXT,
                            "metadata: the JIT-EE GUID field is not a lower-case GUID");
    if (!take_text(p + META_AT_OS, META_AT_ARCH - META_AT_OS, flags & META_HAS_OS,
                   mcz_target_canonical, out->os) ||
        !take_text(p + META_AT_ARCH, META_AT_SUM - META_AT_ARCH, flags & META_HAS_ARCH,
                   mcz_target_canonical, out->arch))
        return mcz_diag_set(diag, MCZ_ECORRUPT, mcz_at_offset((int64_t)off + META_AT_OS),
                            MCZ_NO_CONTEXT, "metadata: a target field is not a lower-case name");
    *frame_size = MCZ_ARC_META_SIZE;
    return MCZ_OK;
}
