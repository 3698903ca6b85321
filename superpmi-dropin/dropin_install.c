/*
 * dropin_install.c - mcz-superpmi --install DIR / --uninstall DIR.
 *
 * Installing puts a copy of this program at DIR/superpmi and keeps the real one as
 * DIR/superpmi.real (on Windows superpmi.exe and superpmi.real.exe: dropin_program_in). The
 * real superpmi is never deleted and never missing: it gets its second name by a hard link
 * first, then the copy (written to a temporary name in DIR and synced) replaces DIR/superpmi
 * by rename, atomically. Every check is made before anything changes, and
 * a failure part-way undoes what was done.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

/* Found in every copy of mcz-superpmi, of any version; in no other program. Split so that the
 * marker's text appears nowhere else (a file that held this source would not match). */
__attribute__((used)) static const char marker[] = "mcz-superpmi:" "drop-in:" "9d41c6e2";

/* The largest superpmi read whole to look for the marker (a real one is a few MB). */
#define MARKER_SCAN_MAX (256u << 20)

/* Whether the marker is in buf[0, len). */
static bool holds_marker(const char *buf, size_t len)
{
    size_t mlen = sizeof marker - 1;
    for (size_t at = 0; at + mlen <= len; at++)
        if (buf[at] == marker[0] && memcmp(buf + at, marker, mlen) == 0)
            return true;
    return false;
}

int dropin_is_ours(const char *path)
{
    int fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    if (fd < 0)
        return -1;
    size_t mlen = sizeof marker - 1, have = 0, total = 0;
    char buf[65536 + sizeof marker];
    int found = 0;
    ptrdiff_t got;
    while (!found && total < MARKER_SCAN_MAX &&
           (got = mcz_os_read(fd, buf + have, sizeof buf - have)) > 0) {
        have += (size_t)got;
        total += (size_t)got;
        found = holds_marker(buf, have);
        if (have >= mlen) { /* keep a tail that may start the marker */
            memmove(buf, buf + have - (mlen - 1), mlen - 1);
            have = mlen - 1;
        }
    }
    int saved = errno;
    mcz_os_close(fd);
    errno = saved;
    return found;
}

/* The running program's bytes, malloc'd. */
static char *read_self(size_t *len)
{
    char *self = mcz_os_self_path();
    int fd = self ? mcz_os_open(self, MCZ_OS_OPEN_READ, 0) : -1;
    mcz_os_file_info st;
    if (fd < 0 || mcz_os_fstat(fd, &st) != 0) {
        tool_error("cannot read this program (%s): %s", self ? self : "its path",
                   strerror(errno));
        if (fd >= 0)
            mcz_os_close(fd);
        free(self);
        return NULL;
    }
    char *bytes = malloc((size_t)st.size + 1);
    size_t have = 0;
    ptrdiff_t got = 1;
    while (bytes && have < (size_t)st.size &&
           (got = mcz_os_read(fd, bytes + have, (size_t)st.size - have)) > 0)
        have += (size_t)got;
    mcz_os_close(fd);
    if (!bytes || have != (size_t)st.size) {
        tool_error("cannot read this program (%s): %s", self,
                   bytes ? "short read" : "out of memory");
        free(bytes);
        free(self);
        return NULL;
    }
    free(self);
    *len = have;
    return bytes;
}

/* A copy of this program under a temporary name in dir, executable and synced: its malloc'd
 * name, or NULL after saying why. */
static char *write_copy(const char *dir)
{
    size_t len;
    char *bytes = read_self(&len);
    if (!bytes)
        return NULL;
    char *tmp = dropin_join(dir, ".superpmi.mcz-XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tool_error("%s: cannot create a file there: %s", dir, strerror(errno));
        free(bytes);
        free(tmp);
        return NULL;
    }
    int rc = mcz_os_write_all(fd, bytes, len);
    rc = rc == 0 ? mcz_os_make_executable(fd) : rc;
    rc = rc == 0 ? mcz_os_fsync(fd) : rc;
    int saved = errno;
    rc = mcz_os_close(fd) == 0 ? rc : -1;
    free(bytes);
    if (rc != 0) {
        tool_error("%s: %s", tmp, strerror(saved ? saved : errno));
        mcz_os_unlink(tmp);
        free(tmp);
        return NULL;
    }
    return tmp;
}

/* dir must be a directory holding superpmi. */
static int check_dir(const char *dir, const char *spmi)
{
    mcz_os_file_info st;
    if (mcz_os_stat(dir, &st) != 0) {
        tool_error("%s: %s", dir, strerror(errno));
        return -1;
    }
    if (st.type != MCZ_OS_FILE_DIRECTORY) {
        tool_error("%s: not a directory", dir);
        return -1;
    }
    if (!mcz_os_name_exists(spmi)) {
        tool_error("%s: %s (DIR must be the directory holding superpmi, e.g. Core_Root)", spmi,
                   strerror(errno));
        return -1;
    }
    return 0;
}

static int ours_or_say(const char *spmi)
{
    int ours = dropin_is_ours(spmi);
    if (ours < 0)
        tool_error("%s: cannot read it: %s", spmi, strerror(errno));
    return ours;
}

/* The real superpmi gets its second name: a hard link, or where the file system has none, a
 * rename (superpmi is then missing until the copy takes its place). 1: linked, 0: renamed. */
static int keep_real(const char *spmi, const char *real)
{
    if (mcz_os_link(spmi, real) == 0)
        return 1;
    if (errno == EEXIST || (errno != EPERM && errno != ENOTSUP && errno != EMLINK &&
                            errno != EXDEV)) {
        tool_error("%s: %s", real, strerror(errno));
        return -1;
    }
    if (rename(spmi, real) == 0)
        return 0;
    tool_error("%s: %s", real, strerror(errno));
    return -1;
}

static int place_copy(const char *dir, const char *spmi, const char *real, bool keep)
{
    char *tmp = write_copy(dir);
    if (!tmp)
        return DROPIN_FATAL;
    int linked = keep ? keep_real(spmi, real) : 1;
    if (linked < 0) {
        mcz_os_unlink(tmp);
        free(tmp);
        return DROPIN_FATAL;
    }
    if (mcz_os_rename(tmp, spmi) != 0) {
        tool_error("%s: %s", spmi, strerror(errno));
        if (keep && linked)
            mcz_os_unlink(real); /* the second name only: superpmi is untouched */
        else if (keep && rename(real, spmi) != 0)
            tool_error("%s: could not be put back: the real superpmi is %s", spmi, real);
        mcz_os_unlink(tmp);
        free(tmp);
        return DROPIN_FATAL;
    }
    free(tmp);
    return 0;
}

/* Records in DIR the absolute path of the mcz-replay the installing program runs; a failure
 * is said (the copy then needs mcz-replay on PATH or MCZ_REPLAY) but does not undo the install. */
static void record_replay(const char *dir, const char *argv0)
{
    char *replay = NULL, *resolved = NULL;
    char *note = dropin_join(dir, DROPIN_REPLAY_NOTE);
    FILE *f = NULL;
    if (dropin_find_replay(argv0, &replay) == 0 && (resolved = mcz_os_absolute_path(replay)) &&
        (f = dropin_fopen_create(note)) && fprintf(f, "%s\n", resolved) > 0 && fclose(f) == 0) {
        f = NULL;
        printf("%s: runs %s\n", note, resolved);
    } else {
        tool_warn("%s: cannot record where mcz-replay is (%s): the installed copy will look "
                  "for it on PATH or in MCZ_REPLAY", note, strerror(errno));
    }
    if (f)
        fclose(f);
    free(resolved);
    free(replay);
    free(note);
}

int dropin_install(const char *dir, const char *argv0)
{
    char *spmi = dropin_program_in(dir, "superpmi");
    char *real = dropin_program_in(dir, "superpmi.real");
    int rc = DROPIN_FATAL, ours = -1;
    bool has_real = mcz_os_name_exists(real);
    if (check_dir(dir, spmi) != 0 || (ours = ours_or_say(spmi)) < 0)
        goto out;
    if (ours && !has_real) {
        tool_error("%s is mcz-superpmi but %s is missing: put the real superpmi there", spmi,
                   real);
    } else if (!ours && has_real) {
        tool_error("%s exists and %s is not mcz-superpmi (a new superpmi over an installed "
                   "one?): move one of them away, then install again", real, spmi);
    } else {
        rc = place_copy(dir, spmi, real, !ours);
        if (rc == 0) {
            printf("%s: mcz-superpmi %s; the real superpmi is %s\n", spmi,
                   ours ? "updated" : "installed", real);
            record_replay(dir, argv0);
        }
    }
out:
    free(spmi);
    free(real);
    return rc;
}

int dropin_uninstall(const char *dir)
{
    char *spmi = dropin_program_in(dir, "superpmi");
    char *real = dropin_program_in(dir, "superpmi.real");
    int rc = DROPIN_FATAL, ours = -1;
    if (check_dir(dir, spmi) != 0 || (ours = ours_or_say(spmi)) < 0)
        goto out;
    if (!ours)
        tool_error("%s is not mcz-superpmi: nothing to uninstall", spmi);
    else if (!mcz_os_name_exists(real))
        tool_error("%s: %s: the real superpmi is not there to restore", real, strerror(errno));
    else if (mcz_os_rename(real, spmi) != 0)
        tool_error("%s: %s", spmi, strerror(errno));
    else {
        printf("%s: the real superpmi restored\n", spmi);
        char *note = dropin_join(dir, DROPIN_REPLAY_NOTE);
        if (mcz_os_unlink(note) != 0 && errno != ENOENT)
            tool_warn("%s: %s", note, strerror(errno));
        free(note);
        rc = 0;
    }
out:
    free(spmi);
    free(real);
    return rc;
}
