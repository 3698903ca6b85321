/*
 * outfile.c - output files that appear atomically. Data goes to ".NAME.tmp.XXXXXX" beside the
 * target (same directory, hence same file system, so rename() is atomic); commit flushes, fsyncs
 * and renames; abort unlinks. The temporary is created with mode 0666 so the umask applies to the
 * final file exactly as it would to a file opened directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcz_common.h"

struct mcz_outfile {
    char *path;
    char *tmp_path;
    FILE *fp;
    uint64_t written;
    mcz_diag error; /* sticky: the first failure, reported again by commit */
};

#define TMP_ATTEMPTS 100

/* tmp_path = dir/.base.tmp.XXXXXX with dir and base taken from path. */
static char *temp_name(const char *path, unsigned attempt)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    size_t cap = strlen(path) + 32;
    char *name = malloc(cap);
    if (!name)
        return NULL;
    unsigned long salt = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL) ^
                         ((unsigned long)attempt * 40503u) ^ (unsigned long)(uintptr_t)name;
    snprintf(name, cap, "%.*s.%s.tmp.%06lx", (int)dir_len, path, base, salt & 0xFFFFFFu);
    return name;
}

static int open_temp(mcz_outfile *f, mcz_diag *diag)
{
    for (unsigned attempt = 0; attempt < TMP_ATTEMPTS; attempt++) {
        char *name = temp_name(f->path, attempt);
        if (!name)
            return mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: out of memory", f->path);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            free(name);
            if (err == EEXIST)
                continue;
            return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: cannot create temporary file: %s",
                            f->path, strerror(err));
        }
        f->fp = fdopen(fd, "wb");
        if (!f->fp) {
            int err = errno;
            close(fd);
            unlink(name);
            free(name);
            return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: %s", f->path, strerror(err));
        }
        f->tmp_path = name;
        return MCZ_OK;
    }
    return mcz_fail(diag, MCZ_EIO, -1, -1, "%s: no free temporary name", f->path);
}

static void outfile_free(mcz_outfile *f)
{
    if (f->fp)
        fclose(f->fp);
    if (f->tmp_path)
        unlink(f->tmp_path);
    free(f->tmp_path);
    free(f->path);
    free(f);
}

mcz_outfile *mcz_outfile_open(const char *path, mcz_diag *diag)
{
    if (!path || !*path) {
        mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_outfile_open: empty path");
        return NULL;
    }
    mcz_outfile *f = calloc(1, sizeof *f);
    if (f)
        f->path = strdup(path);
    if (!f || !f->path) {
        free(f);
        mcz_fail(diag, MCZ_ENOMEM, -1, -1, "%s: out of memory", path);
        return NULL;
    }
    mcz_diag_clear(&f->error);
    if (open_temp(f, diag) != MCZ_OK) {
        outfile_free(f);
        return NULL;
    }
    return f;
}

/* Records the first failure; later ones are consequences of it. */
static int outfile_error(mcz_outfile *f, int code, const char *what, int err)
{
    if (f->error.code == MCZ_OK)
        mcz_fail(&f->error, code, (int64_t)f->written, -1, "%s: %s: %s", f->path, what,
                 strerror(err));
    return f->error.code;
}

int mcz_outfile_write(mcz_outfile *f, const void *data, size_t len)
{
    if (!f)
        return MCZ_EINVAL;
    if (f->error.code != MCZ_OK)
        return f->error.code;
    if (len == 0)
        return MCZ_OK;
    if (!data)
        return outfile_error(f, MCZ_EINVAL, "write", EINVAL);
    if (fwrite(data, 1, len, f->fp) != len)
        return outfile_error(f, MCZ_EIO, "write failed", errno);
    f->written += len;
    return MCZ_OK;
}

uint64_t mcz_outfile_tell(const mcz_outfile *f)
{
    return f ? f->written : 0;
}

/* Makes the data durable, then closes the stream (f->fp is NULL afterwards either way). */
static int flush_and_close(mcz_outfile *f)
{
    if (fflush(f->fp) != 0)
        outfile_error(f, MCZ_EIO, "flush failed", errno);
    else if (fsync(fileno(f->fp)) != 0 && errno != EINVAL)
        outfile_error(f, MCZ_EIO, "fsync failed", errno);
    if (fclose(f->fp) != 0)
        outfile_error(f, MCZ_EIO, "close failed", errno);
    f->fp = NULL;
    return f->error.code;
}

int mcz_outfile_commit(mcz_outfile *f, mcz_diag *diag)
{
    if (!f)
        return mcz_fail(diag, MCZ_EINVAL, -1, -1, "mcz_outfile_commit: NULL handle");
    if (f->error.code == MCZ_OK && flush_and_close(f) == MCZ_OK) {
        if (rename(f->tmp_path, f->path) != 0) {
            outfile_error(f, MCZ_EIO, "rename failed", errno);
        } else {
            free(f->tmp_path); /* renamed: nothing left to remove */
            f->tmp_path = NULL;
        }
    }
    int rc = f->error.code;
    if (rc != MCZ_OK)
        mcz_fail(diag, rc, f->error.offset, -1, "%s", f->error.message);
    outfile_free(f);
    return rc;
}

void mcz_outfile_abort(mcz_outfile *f)
{
    if (f)
        outfile_free(f);
}
