/*
 * tool_zip.c - a collection inside a zip file, as superpmi.py's store holds it (one member
 * <name>.mch, deflated by Python's zipfile), read in order through libzip without unpacking it
 * anywhere: the member's bytes are inflated as they are asked for, its CRC-32 checked by libzip
 * when the read reaches its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "tool.h"

struct tool_zip {
    const char *path;
    zip_t *archive;
    zip_file_t *member;
    char *name;            /* the member's name */
    uint64_t size;         /* its uncompressed size, as the zip states it */
    uint64_t stored;       /* its compressed size */
    int32_t method;        /* ZIP_CM_* */
    uint64_t read;         /* bytes read so far */
};

bool tool_is_zip(const char *path)
{
    mcz_os_file_info st;
    if (mcz_os_stat(path, &st) != 0 || st.type != MCZ_OS_FILE_REGULAR)
        return false;
    int fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    if (fd < 0)
        return false;
    unsigned char magic[4];
    bool zip = mcz_os_read(fd, magic, sizeof magic) == (ptrdiff_t)sizeof magic && magic[0] == 'P' &&
               magic[1] == 'K' && ((magic[2] == 3 && magic[3] == 4) || /* a local header */
                                   (magic[2] == 5 && magic[3] == 6));  /* an empty zip */
    mcz_os_close(fd);
    return zip;
}

/* The one member whose name ends in .mch (any case; directories excluded): its index, or -1
 * after writing why into err (none, several). */
static int64_t find_mch(zip_t *za, const char *path, char err[TOOL_ERROR_SIZE])
{
    zip_int64_t n = zip_get_num_entries(za, 0), found = -1, count = 0;
    char names[512] = "";
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        size_t len = name ? strlen(name) : 0;
        if (len < 4 || name[len - 1] == '/' || tool_strcasecmp(name + len - 4, ".mch") != 0)
            continue;
        if (count++ == 0)
            found = i;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
    }
    if (count == 1)
        return found;
    if (count == 0)
        snprintf(err, TOOL_ERROR_SIZE, "%s: the zip holds no .mch member (%lld members)", path,
                 (long long)n);
    else
        snprintf(err, TOOL_ERROR_SIZE, "%s: the zip holds %lld .mch members (%s): one is expected",
                 path, (long long)count, names);
    return -1;
}

/* Opens member index of z's archive for reading: its size, method and encryption checked. */
static int open_member(tool_zip *z, zip_uint64_t index, char err[TOOL_ERROR_SIZE])
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z->archive, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
        !(st.valid & ZIP_STAT_NAME)) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: cannot read the zip's directory: %s", z->path,
                 zip_strerror(z->archive));
        return -1;
    }
    z->name = strdup(st.name);
    z->size = st.size;
    z->stored = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    z->method = (st.valid & ZIP_STAT_COMP_METHOD) ? st.comp_method : ZIP_CM_STORE;
    if (!z->name) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: out of memory", z->path);
        return -1;
    }
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: member %s is encrypted", z->path, z->name);
        return -1;
    }
    if ((st.valid & ZIP_STAT_COMP_METHOD) && !zip_compression_method_supported(st.comp_method, 0)) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: member %s: compression method %u is not supported "
                 "(stored and deflate are)", z->path, z->name, (unsigned)st.comp_method);
        return -1;
    }
    z->member = zip_fopen_index(z->archive, index, 0);
    if (!z->member) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: member %s: %s", z->path, z->name,
                 zip_strerror(z->archive));
        return -1;
    }
    return 0;
}

tool_zip *tool_zip_open(const char *path, char err[TOOL_ERROR_SIZE])
{
    tool_zip *z = calloc(1, sizeof *z);
    if (!z) {
        snprintf(err, TOOL_ERROR_SIZE, "%s: out of memory", path);
        return NULL;
    }
    z->path = path;
    int code = 0;
    /* ZIP_CHECKCONS: the central directory must agree with the local headers (a damaged zip
     * fails here rather than later). */
    z->archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!z->archive) {
        zip_error_t e;
        zip_error_init_with_code(&e, code);
        snprintf(err, TOOL_ERROR_SIZE, "%s: not a readable zip: %s%s", path,
                 zip_error_strerror(&e),
                 code == ZIP_ER_NOZIP ? " (no central directory: cut short?)" : "");
        zip_error_fini(&e);
        free(z);
        return NULL;
    }
    int64_t index = find_mch(z->archive, path, err);
    if (index < 0 || open_member(z, (zip_uint64_t)index, err) != 0) {
        tool_zip_close(z);
        return NULL;
    }
    return z;
}

const char *tool_zip_member(const tool_zip *z)
{
    return z->name;
}

uint64_t tool_zip_size(const tool_zip *z)
{
    return z->size;
}

uint64_t tool_zip_stored_size(const tool_zip *z)
{
    return z->stored;
}

const char *tool_zip_method(const tool_zip *z)
{
    switch (z->method) {
    case ZIP_CM_STORE: return "stored";
    case ZIP_CM_DEFLATE: return "deflate";
    case ZIP_CM_BZIP2: return "bzip2";
    case ZIP_CM_XZ: return "xz";
    default: return "another method";
    }
}

int64_t tool_zip_read(tool_zip *z, void *buf, size_t len, char err[TOOL_ERROR_SIZE])
{
    size_t got = 0;
    while (got < len) {
        zip_int64_t n = zip_fread(z->member, (char *)buf + got, len - got);
        if (n < 0) {
            snprintf(err, TOOL_ERROR_SIZE, "%s: member %s: at offset %llu of it: %s", z->path,
                     z->name, (unsigned long long)(z->read + got),
                     zip_error_strerror(zip_file_get_error(z->member)));
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    z->read += got;
    return (int64_t)got;
}

void tool_zip_close(tool_zip *z)
{
    if (!z)
        return;
    if (z->member)
        zip_fclose(z->member);
    if (z->archive)
        zip_discard(z->archive); /* read only: nothing to write back */
    free(z->name);
    free(z);
}
