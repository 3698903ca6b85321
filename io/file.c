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
#include "../platform/posix_names.h"

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
            munmap(base, size);
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
        ssize_t got = read(fd, buf + len, cap - len);
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

/* The data extents of a mapped file, when it has holes. A file system without SEEK_DATA, or
 * any failure, leaves the whole image as data: the extents only save a scan work. */
static void find_extents(int fd, file_image *img)
{
#ifndef SEEK_DATA
    (void)fd, (void)img; /* Windows: no SEEK_DATA (FSCTL_QUERY_ALLOCATED_RANGES, later) */
#else
    off_t end = (off_t)img->size, data = lseek(fd, 0, SEEK_DATA);
    off_t hole = data < 0 ? -1 : lseek(fd, data, SEEK_HOLE);
    if (data < 0 ? errno != ENXIO : (data == 0 && (hole < 0 || hole >= end)))
        return; /* no holes, or they cannot be told */
    uint64_t *ext = malloc(2 * MAX_EXTENTS * sizeof *ext);
    if (!ext)
        return;
    size_t n = 0;
    while (data >= 0 && data < end && hole > data) {
        if (n == MAX_EXTENTS - 1)
            hole = end; /* the last extent runs to the end */
        ext[2 * n] = (uint64_t)data;
        ext[2 * n + 1] = (uint64_t)(hole < end ? hole : end);
        n++;
        data = hole < end ? lseek(fd, hole, SEEK_DATA) : -1;
        hole = data < 0 ? -1 : lseek(fd, data, SEEK_HOLE);
    }
    img->extents = ext;
    img->extent_count = n;
#endif
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
        ssize_t n = read(in, buf, COPY_BUFFER);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return w < 0 ? errno : EIO;
            done += w;
        }
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

static int map_regular(int fd, const struct stat *st, const char *path, mcz_file *out,
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
    struct stat st;
    if (!err && (fstat(tmp, &st) != 0 || lseek(tmp, 0, SEEK_SET) != 0)) /* read from its start,
                                                                      * should mapping fail */
        err = errno;
    int rc = err ? mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                               "cannot copy it to a temporary file: %s", strerror(err))
                 : map_regular(tmp, &st, path, out, diag);
    close(tmp);
    mark_spooled(out, rc);
    return rc;
}

static int map_fd(int fd, const char *path, mcz_file *out, mcz_diag *diag)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    if (S_ISDIR(st.st_mode))
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(EISDIR));
    if (!S_ISREG(st.st_mode))
        return map_stream(fd, path, out, diag);
    return map_regular(fd, &st, path, out, diag);
}

static int map_regular(int fd, const struct stat *st, const char *path, mcz_file *out,
                       mcz_diag *diag)
{
    if (st->st_size == 0) {
        out->data = empty_image;
        return MCZ_OK;
    }
    if ((uint64_t)st->st_size > SIZE_MAX)
        return mcz_fail_at(diag, path, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "too large to map");
    size_t size = (size_t)st->st_size;
    void *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
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
    int fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (std_in)
        mcz_os_stdin_binary(fd);
    if (fd < 0)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    int rc = map_fd(fd, path, out, diag);
    if (!std_in)
        close(fd);
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
            munmap(img->base, img->size);
        else
            free(img->base);
        free(img->extents);
        free(img);
    }
    f->data = empty_image;
    f->size = 0;
    f->impl_ = NULL;
}

#define DROP_BATCH (8u << 20) /* one madvise per 8 MiB walked */

/* Lets a read-only mapping's pages go from memory. MADV_DONTNEED where the system has it;
 * POSIX's own advice elsewhere (glibc ignores that one, hence not used there). */
static void drop_pages(void *at, size_t len)
{
#ifdef MADV_DONTNEED
    madvise(at, len, MADV_DONTNEED);
#else
    posix_madvise(at, len, POSIX_MADV_DONTNEED);
#endif
}

void mcz_file_drop_behind(const mcz_file *f, uint64_t *dropped, uint64_t pos)
{
    const file_image *img = f ? f->impl_ : NULL;
    if (pos < *dropped)
        *dropped = pos; /* the walk went back: a new one starts here */
    if (!img || !img->mapped || pos > img->size || pos - *dropped < DROP_BATCH)
        return;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t from = *dropped / page * page, to = pos / page * page; /* both behind pos */
    if (to > from)
        drop_pages((uint8_t *)img->base + from, (size_t)(to - from));
    *dropped = to;
}
