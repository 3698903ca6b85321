/*
 * outfile.c - output files a user can trust.
 *
 * A regular file (or a name that does not exist yet) appears atomically: data goes to
 * ".NAME.mcz-tmp.PID.XXXXXX" beside the target (same directory, hence same file system, so
 * rename() is atomic); commit flushes, fsyncs and renames; abort unlinks. A symbolic link is
 * followed: its final target is what gets replaced, the link stays. An existing file keeps its
 * permission bits (and, for root, its owner); a new one gets 0666 less the umask, exactly as a
 * file opened directly would.
 *
 * Anything else that exists (a character device, a FIFO, a socket, a terminal) and "-",
 * /dev/stdout, /dev/fd/N or /proc/self/fd/N is written in place as a stream: never renamed over,
 * never removed. A directory is refused.
 *
 * From a signal handler, mcz_outfile_raw_open and _commit (platform/platform.h) do the same with
 * async-signal-safe calls only, on a temporary name the caller prepared.
 *
 * Temporaries are listed in a fixed table that mcz_remove_temporaries() walks from a signal
 * handler. The PID in a temporary's name lets a later open beside it recognise one left by a
 * process that was killed outright (SIGKILL, power loss) and remove it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcz_common.h"
#include "../platform/platform.h"

#define TMP_TAG ".mcz-tmp."
#define TMP_ATTEMPTS 100
#define LINK_HOPS_MAX 40

struct mcz_outfile {
    char *path;     /* the name the user gave, for messages */
    char *target;   /* what a commit replaces: path with its symbolic links resolved */
    char *tmp_path; /* NULL for a stream */
    int slot;       /* in the temporaries table, or -1 */
    int fd;
    FILE *fp;
    uint64_t written;
    mcz_diag error; /* sticky: the first failure, reported again by commit */
};

/* ============================================================================================ */
/* Temporaries a signal handler can remove                                                      */
/* ============================================================================================ */

#define TMP_SLOTS 32

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static struct {
    atomic_int state;
    char path[PATH_MAX];
} tmp_slots[TMP_SLOTS];

/* Returns the slot now listing path, or -1 when the table is full or the path too long (the
 * temporary then still works; only a signal would leave it behind). */
static int slot_take(const char *path)
{
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return -1;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&tmp_slots[i].state, &expect, SLOT_BUSY)) {
            memcpy(tmp_slots[i].path, path, len + 1);
            atomic_store(&tmp_slots[i].state, SLOT_LIVE);
            return i;
        }
    }
    return -1;
}

static void slot_release(int slot)
{
    if (slot >= 0)
        atomic_store(&tmp_slots[slot].state, SLOT_FREE);
}

unsigned mcz_remove_temporaries(void)
{
    unsigned removed = 0;
    for (int i = 0; i < TMP_SLOTS; i++) {
        int expect = SLOT_LIVE;
        if (atomic_compare_exchange_strong(&tmp_slots[i].state, &expect, SLOT_BUSY)) {
            mcz_os_unlink(tmp_slots[i].path); /* async-signal-safe */
            removed++;
        }
    }
    return removed;
}

/* ============================================================================================ */
/* Names                                                                                        */
/* ============================================================================================ */

/* path with its symbolic links followed to the final name (which need not exist yet); NULL
 * with errno set on a loop or out of memory. */
static char *resolve_links(const char *path)
{
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < LINK_HOPS_MAX; hop++) {
        if (!mcz_os_is_link(cur))
            return cur;
        char link[PATH_MAX];
        ptrdiff_t n = mcz_os_readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        size_t dir_len = link[0] == '/' ? 0 : mcz_os_dir_length(cur);
        char *next = malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir_len);
            memcpy(next + dir_len, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    }
    return NULL;
}

/* The descriptor a name stands for ("-" is 1), or -1 when it names no descriptor. */
static int named_descriptor(const char *path)
{
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *digits = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        digits = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        digits = path + 14;
    if (!digits || !*digits)
        return -1;
    char *end;
    long fd = strtol(digits, &end, 10);
    return *end == '\0' && fd >= 0 && fd < INT_MAX ? (int)fd : -1;
}

static void temp_name(const char *target, unsigned attempt, char *out, size_t cap)
{
    size_t dir_len = mcz_os_dir_length(target);
    long pid = mcz_os_process_id();
    unsigned long salt = (unsigned long)pid * 2654435761u ^ (unsigned long)time(NULL) ^
                         ((unsigned long)attempt * 40503u) ^ (unsigned long)clock();
    snprintf(out, cap, "%.*s.%s" TMP_TAG "%ld.%06lx", (int)dir_len, target, target + dir_len, pid,
             salt & 0xFFFFFFu);
}

/* PID of the process that made temporary `name` (a directory entry), or 0 when name is not one
 * of ours: ".BASE.mcz-tmp.PID.XXXXXX". */
static long temp_owner(const char *name)
{
    if (name[0] != '.')
        return 0;
    const char *tag = strstr(name, TMP_TAG);
    const char *last;
    while (tag && (last = strstr(tag + 1, TMP_TAG)) != NULL)
        tag = last;
    if (!tag)
        return 0;
    char *end;
    long pid = strtol(tag + strlen(TMP_TAG), &end, 10);
    if (pid <= 0 || *end != '.' || strlen(end + 1) != 6)
        return 0;
    return strspn(end + 1, "0123456789abcdef") == 6 ? pid : 0;
}

/* Removes the temporaries in target's directory whose process is gone (killed before it could
 * clean up). A PID is only meaningful on this machine: a directory shared with another machine
 * running mcz at the same moment could lose that machine's temporary. */
static void remove_stale_temporaries(const char *target)
{
    size_t dir_len = mcz_os_dir_length(target);
    char dir[PATH_MAX];
    if (dir_len >= sizeof dir)
        return;
    snprintf(dir, sizeof dir, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? target : ".");
    mcz_os_dir *d = mcz_os_dir_open(dir);
    if (!d)
        return;
    const char *name;
    while ((name = mcz_os_dir_next(d)) != NULL) {
        long pid = temp_owner(name);
        if (pid > 0 && pid != mcz_os_process_id() && mcz_os_process_gone(pid))
            mcz_os_remove_in(d, dir, name);
    }
    mcz_os_dir_close(d);
}

/* ============================================================================================ */
/* Opening                                                                                      */
/* ============================================================================================ */

static int open_stream(mcz_outfile *f, int named_fd, mcz_diag *diag)
{
    f->fd = named_fd >= 0 ? mcz_os_dup(named_fd)
                          : mcz_os_open(f->target, MCZ_OS_OPEN_WRITE, 0);
    if (f->fd < 0)
        return mcz_fail_at(diag, f->path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    return MCZ_OK;
}

/* exists: the temporary gets the mode (and, when we may, the owner) of the file it will
 * replace. */
static int open_temp(mcz_outfile *f, bool exists, mcz_diag *diag)
{
    char name[PATH_MAX + 64];
    for (unsigned attempt = 0; attempt < TMP_ATTEMPTS; attempt++) {
        temp_name(f->target, attempt, name, sizeof name);
        f->slot = slot_take(name); /* before the file exists: a signal cannot miss it */
        f->fd = mcz_os_open(name, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_EXCLUSIVE,
                            0666);
        if (f->fd >= 0)
            break;
        int err = errno;
        slot_release(f->slot);
        f->slot = -1;
        if (err != EEXIST)
            return mcz_fail_at(diag, f->path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                               "cannot create a file in its directory: %s", strerror(err));
    }
    if (f->fd < 0)
        return mcz_fail_at(diag, f->path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "no free temporary name");
    f->tmp_path = strdup(name);
    if (!f->tmp_path)
        return mcz_fail_at(diag, f->path, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "out of memory");
    if (exists)
        (void)mcz_os_copy_attributes(f->fd, f->target);
    return MCZ_OK;
}

static void outfile_free(mcz_outfile *f)
{
    if (f->fp)
        fclose(f->fp);
    else if (f->fd >= 0)
        mcz_os_close(f->fd);
    if (f->tmp_path)
        mcz_os_unlink(f->tmp_path);
    slot_release(f->slot);
    free(f->tmp_path);
    free(f->target);
    free(f->path);
    free(f);
}

/* A new file in target's directory needs it to exist and be writable. */
static int check_directory(const char *path, const char *target, mcz_diag *diag)
{
    size_t dir_len = mcz_os_dir_length(target);
    char dir[PATH_MAX];
    if (dir_len >= sizeof dir)
        return mcz_fail_at(diag, path, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "name too long");
    if (dir_len > 1)
        dir_len--; /* "a/b/x" lies in "a/b", "/x" in "/" */
    snprintf(dir, sizeof dir, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? target : ".");
    mcz_os_file_info st;
    int err = mcz_os_stat(dir, &st) != 0 ? errno : 0;
    if (err == ENOTDIR || (!err && st.type != MCZ_OS_FILE_DIRECTORY))
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "%s is not a directory", dir);
    if (err)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "directory %s: %s",
                           dir, strerror(err));
    if (mcz_os_may_write_in(dir) != 0)
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                           "cannot write in directory %s: %s", dir, strerror(errno));
    return MCZ_OK;
}

/* What opening path would do: *named_fd >= 0 for a descriptor's name, else *target (malloc'd)
 * with *st filled when it exists (*exists). Fails on a directory or an unwritable place. */
static int classify(const char *path, int *named_fd, char **target, mcz_os_file_info *st,
                    bool *exists, mcz_diag *diag)
{
    *target = NULL;
    *exists = false;
    if ((*named_fd = named_descriptor(path)) >= 0)
        return MCZ_OK;
    if (!(*target = resolve_links(path)))
        return mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s",
                           strerror(errno));
    *exists = mcz_os_stat(*target, st) == 0;
    size_t len = strlen(*target);
    if ((*exists && st->type == MCZ_OS_FILE_DIRECTORY) || (*target)[len - 1] == '/')
        return mcz_fail_at(diag, path, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "is a directory");
    if (*exists && st->type != MCZ_OS_FILE_REGULAR)
        return MCZ_OK;
    return check_directory(path, *target, diag);
}

int mcz_outfile_check(const char *path, bool *stream, mcz_diag *diag)
{
    if (!path || !*path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_outfile_check: empty path");
    int named_fd;
    char *target;
    mcz_os_file_info st;
    bool exists;
    int rc = classify(path, &named_fd, &target, &st, &exists, diag);
    if (stream)
        *stream = named_fd >= 0 || (exists && st.type != MCZ_OS_FILE_REGULAR);
    free(target);
    return rc;
}

static int open_output(mcz_outfile *f, mcz_diag *diag)
{
    int named_fd;
    mcz_os_file_info st;
    bool exists;
    int rc = classify(f->path, &named_fd, &f->target, &st, &exists, diag);
    if (rc != MCZ_OK)
        return rc;
    if (named_fd >= 0 || (exists && st.type != MCZ_OS_FILE_REGULAR))
        return open_stream(f, named_fd, diag);
    remove_stale_temporaries(f->target);
    return open_temp(f, exists, diag);
}

mcz_outfile *mcz_outfile_open(const char *path, mcz_diag *diag)
{
    if (!path || !*path) {
        mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "mcz_outfile_open: empty path");
        return NULL;
    }
    mcz_outfile *f = calloc(1, sizeof *f);
    if (f) {
        f->fd = -1;
        f->slot = -1;
        f->path = strdup(path);
    }
    if (!f || !f->path) {
        free(f);
        mcz_fail_at(diag, path, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    mcz_diag_clear(&f->error);
    if (open_output(f, diag) != MCZ_OK || !(f->fp = mcz_os_fdopen(f->fd, "wb"))) {
        if (!f->fp && diag && diag->code == MCZ_OK)
            mcz_fail_at(diag, path, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", strerror(errno));
        outfile_free(f);
        return NULL;
    }
    return f;
}

bool mcz_outfile_is_stream(const mcz_outfile *f)
{
    return f && !f->tmp_path;
}

/* ============================================================================================ */
/* Writing and committing                                                                       */
/* ============================================================================================ */

/* Records the first failure; later ones are consequences of it. */
static int outfile_error(mcz_outfile *f, int code, const char *what, int err)
{
    if (f->error.code == MCZ_OK)
        mcz_fail_at(&f->error, f->path, code, mcz_at_offset((int64_t)f->written), MCZ_NO_CONTEXT,
                    "%s: %s", what, strerror(err));
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

int mcz_outfile_patch(mcz_outfile *f, uint64_t at, const void *data, size_t len)
{
    if (!f)
        return MCZ_EINVAL;
    if (f->error.code != MCZ_OK)
        return f->error.code;
    if (!f->tmp_path || !data || at > f->written || len > f->written - at)
        return outfile_error(f, MCZ_EINVAL, "patch", EINVAL); /* a stream cannot go back */
    if (fflush(f->fp) != 0)
        return outfile_error(f, MCZ_EIO, "write failed", errno);
    if (mcz_os_pwrite_all(f->fd, data, len, at) != MCZ_OK)
        return outfile_error(f, MCZ_EIO, "write failed", errno);
    return MCZ_OK;
}

uint64_t mcz_outfile_tell(const mcz_outfile *f)
{
    return f ? f->written : 0;
}

/* Makes the data durable, then closes the stream (f->fp is NULL afterwards either way). A
 * stream that cannot be synced (a pipe, a terminal) is not an error. */
static int flush_and_close(mcz_outfile *f)
{
    if (fflush(f->fp) != 0)
        outfile_error(f, MCZ_EIO, "write failed", errno);
    else if (mcz_os_fsync(f->fd) != 0 && errno != EROFS) /* EINVAL: a stream, no error */
        outfile_error(f, MCZ_EIO, "fsync failed", errno);
    if (fclose(f->fp) != 0)
        outfile_error(f, MCZ_EIO, "close failed", errno);
    f->fp = NULL;
    f->fd = -1;
    return f->error.code;
}

int mcz_outfile_commit(mcz_outfile *f, mcz_diag *diag)
{
    if (!f)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_outfile_commit: NULL handle");
    if (f->error.code == MCZ_OK && flush_and_close(f) == MCZ_OK && f->tmp_path) {
        if (mcz_os_rename(f->tmp_path, f->target) != 0) {
            outfile_error(f, MCZ_EIO, "rename failed", errno);
        } else {
            free(f->tmp_path); /* renamed: nothing left to remove */
            f->tmp_path = NULL;
        }
    }
    int rc = f->error.code;
    if (rc != MCZ_OK && diag)
        *diag = f->error; /* the sticky error, its subject included */
    outfile_free(f);
    return rc;
}

void mcz_outfile_abort(mcz_outfile *f)
{
    if (f)
        outfile_free(f);
}

/* ============================================================================================ */
/* From a signal handler (platform/platform.h)                                                    */
/* ============================================================================================ */

int mcz_outfile_raw_open(const char *tmp_path)
{
    return mcz_os_create(tmp_path, MCZ_OS_WRITE_ONLY);
}

int mcz_outfile_raw_commit(int fd, const char *tmp_path, const char *path)
{
    int rc = mcz_os_fsync(fd) == 0 ? MCZ_OK : MCZ_EIO;
    if (mcz_os_close(fd) != 0)
        rc = MCZ_EIO;
    if (rc == MCZ_OK && mcz_os_rename(tmp_path, path) != 0)
        rc = MCZ_EIO;
    return rc;
}
