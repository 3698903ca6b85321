/*
 * file.c - read-only file images: mmap for regular files; anything else (pipes, FIFOs, character
 * devices, sockets) is copied once to an unlinked temporary file which is then mapped (read into
 * memory only when no temporary file can be made: io/source.h says why); a static empty image
 * for empty files (mmap of length 0 fails).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "../platform/platform.h"

/* What mcz_file_unmap must release. */
typedef struct file_image {
    void *base;
    size_t size;
    bool mapped;        /* munmap, else free */
    bool spooled;       /* a stream's bytes, copied (mcz_file_spooled) */
    uint64_t *extents;  /* a sparse file's data extents, [start, end) pairs; NULL: all data */
    size_t extent_count;
} file_image;

#define MAX_EXTENTS 4096

static const uint8_t empty_image[1];

static int set_image(mcz_file *out, void *base, size_t size, bool mapped)
{
    file_image *img = malloc(sizeof *img);
    if (!img) {
        if (mapped)
            mcz_os_unmap(base, size);
        else
            free(base);
        return MCZ_ENOMEM;
    }
    *img = (file_image){.base = base, .size = size, .mapped = mapped};
    out->data = base;
    out->size = size;
    out->impl_ = img;
    return MCZ_OK;
}

/* Reads a stream of unknown length to its end. */
static int read_all(int fd, const char *path, mcz_file *out, mcz_diag *diag)
{
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t grown_cap = cap ? cap * 2 : 65536;
            uint8_t *grown = grown_cap > cap ? realloc(buf, grown_cap) : NULL;
            if (!grown) {
                free(buf);
                return mcz_fail_at(diag, path, MCZ_ENOMEM, mcz_at_offset((int64_t)len),
                                   MCZ_NO_CONTEXT, "out of memory");
            }
            buf = grown;
            cap = grown_cap;
        }
        ptrdiff_t got = mcz_os_read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int err = errno;
            free(buf);
            return mcz_fail_at(diag, path, MCZ_EIO, mcz_at_offset((int64_t)len), MCZ_NO_CONTEXT,
                               "%s", strerror(err));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    if (len == 0) {
        free(buf);
        out->data = empty_image;
        return MCZ_OK;
    }
    return set_image(out, buf, len, false);
}

/* The data extents of a mapped file, when it has holes. A system that cannot tell them
 * (mcz_os_data_extent: no SEEK_DATA, Windows), or any failure, leaves the whole image as
 * data: the extents only save a scan work. */
static void find_extents(int fd, file_image *img)
{
    uint64_t end = img->size, data = 0, hole = 0;
    int found = mcz_os_data_extent(fd, 0, &data, &hole);
    if (found < 0 || (found == 1 && data == 0 && hole >= end))
        return; /* no holes, or they cannot be told */
    uint64_t *ext = malloc(2 * MAX_EXTENTS * sizeof *ext);
    if (!ext)
        return;
    size_t n = 0;
    while (found == 1 && data < end && hole > data) {
        if (n == MAX_EXTENTS - 1)
            hole = end; /* the last extent runs to the end */
        ext[2 * n] = data;
        ext[2 * n + 1] = hole < end ? hole : end;
        n++;
        found = hole < end ? mcz_os_data_extent(fd, hole, &data, &hole) : 0;
    }
    img->extents = ext;
    img->extent_count = n;
}

uint64_t mcz_file_data_end(const mcz_file *f, uint64_t *at)
{
    const file_image *img = f ? f->impl_ : NULL;
    uint64_t size = f ? f->size : 0;
    if (*at >= size)
        return *at = size;
    if (!img || !img->extents)
        return size;
    size_t lo = 0, hi = img->extent_count; /* first extent whose end is past *at */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->extents[2 * mid + 1] <= *at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == img->extent_count)
        return *at = size;
    if (*at < img->extents[2 * lo])
        *at = img->extents[2 * lo];
    return img->extents[2 * lo + 1];
}

/* An unlinked temporary file in $TMPDIR (or /tmp), open for reading and writing: -1 when none
 * can be made. */
static int temp_file(void)
{
    return mcz_os_temp_create(mcz_os_temp_dir(), "mcz-stdin");
}

#define COPY_BUFFER (1u << 16)

/* copy_stream with buf, COPY_BUFFER bytes. */
static int copy_through(int in, int out, uint8_t *buf)
{
    for (;;) {
        ptrdiff_t n = mcz_os_read(in, buf, COPY_BUFFER);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0;
        if (mcz_os_write_all(out, buf, (size_t)n) != MCZ_OK)
            return errno; /* EIO for a write that took nothing */
    }
}

/* Copies stream `in` to its end into `out`: 0, or the errno of the failure (EIO for a short
 * write). */
static int copy_stream(int in, int out)
{
    uint8_t *buf = malloc(COPY_BUFFER);
    if (!buf)
        return ENOMEM;
    int err = copy_through(in, out, buf);
    free(buf);
    return err;
}

static int map_regular(int fd, const mcz_os_file_info *st, const char *path, mcz_file *out,
                       mcz_diag *diag);

/* Notes that out's image holds a stream's bytes, when rc says it was made. Returns rc. */
static int mark_spooled(mcz_file *out, int rc)
{
    file_image *img = out->impl_;
    if (rc == MCZ_OK && img)
        img->spooled = true;
    return rc;
}

/* A stream: spooled to a temporary file and mapped, or read into memory when no temporary file
 * can be made. */
static int map_stream(int fd, const char *path, mcz_file *out, mcz_diag *diag)
{
    int tmp = temp_file();
    if (tmp < 0)
        return mark_spooled(out, read_all(fd, path, out, diag));
    int err = copy_stream(fd, tmp);
    mcz_os_file_info st;
    if (!err && (mcz_os_fstat(tmp, &st) != 0 || mcz_os_rewind(tmp) != 0)) /* read from its
                                                                         * start, should
                                                                         * mapping fail */
        err = errno;
    int rc = err ? mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                               "cannot copy it to a temporary file: %s", strerror(err))
                 : map_regular(tmp, &st, path, out, diag);
    mcz_os_close(tmp);
    mark_spooled(out, rc);
    return rc;
}

static int map_fd(int fd, const char *path, mcz_file *out, mcz_diag *diag)
{
    mcz_os_file_info st;
    if (mcz_os_fstat(fd, &st) != 0)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    if (st.type == MCZ_OS_FILE_DIRECTORY)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(EISDIR));
    if (st.type != MCZ_OS_FILE_REGULAR)
        return map_stream(fd, path, out, diag);
    return map_regular(fd, &st, path, out, diag);
}

static int map_regular(int fd, const mcz_os_file_info *st, const char *path, mcz_file *out,
                       mcz_diag *diag)
{
    if (st->size == 0) {
        out->data = empty_image;
        return MCZ_OK;
    }
    if (st->size > SIZE_MAX)
        return mcz_fail_at(diag, path, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "too large to map");
    size_t size = (size_t)st->size;
    void *base = mcz_os_map_file(fd, size);
    if (!base)
        return read_all(fd, path, out, diag);
    int rc = set_image(out, base, size, true);
    if (rc == MCZ_OK)
        find_extents(fd, out->impl_);
    return rc;
}

int mcz_file_map(const char *path, mcz_file *out, mcz_diag *diag)
{
    if (!path || !out)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_file_map: NULL argument");
    out->data = empty_image;
    out->size = 0;
    out->impl_ = NULL;
    bool std_in = strcmp(path, "-") == 0;
    int fd = std_in ? MCZ_OS_STDIN_FD : mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    if (std_in)
        mcz_os_stdin_binary(fd);
    if (fd < 0)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    int rc = map_fd(fd, path, out, diag);
    if (!std_in)
        mcz_os_close(fd);
    return rc;
}

bool mcz_file_spooled(const mcz_file *f)
{
    const file_image *img = f ? f->impl_ : NULL;
    return img && img->spooled;
}

void mcz_file_unmap(mcz_file *f)
{
    if (!f)
        return;
    file_image *img = f->impl_;
    if (img) {
        if (img->mapped)
            mcz_os_unmap(img->base, img->size);
        else
            free(img->base);
        free(img->extents);
        free(img);
    }
    f->data = empty_image;
    f->size = 0;
    f->impl_ = NULL;
}

#define DROP_BATCH (8u << 20) /* one drop (madvise) per 8 MiB walked */

void mcz_file_drop_behind(const mcz_file *f, uint64_t *dropped, uint64_t pos)
{
    const file_image *img = f ? f->impl_ : NULL;
    if (pos < *dropped)
        *dropped = pos; /* the walk went back: a new one starts here */
    if (!img || !img->mapped || pos > img->size || pos - *dropped < DROP_BATCH)
        return;
    uint64_t page = mcz_os_page_size();
    uint64_t from = *dropped / page * page, to = pos / page * page; /* both behind pos */
    if (to > from)
        mcz_os_map_drop((uint8_t *)img->base + from, (size_t)(to - from));
    *dropped = to;
}
