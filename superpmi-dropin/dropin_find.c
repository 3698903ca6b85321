/*
 * dropin_find.c - where the real superpmi and mcz-replay are.
 *
 * Not /proc/self/exe: the installed copy of mcz-superpmi sits in Core_Root beside
 * superpmi.real, and so does a symbolic link to an mcz-superpmi elsewhere, whose target's
 * directory holds no superpmi.real. The directory the program was run from is the one
 * (run_dir). Program files are named with the system's suffix (mcz_os_program_suffix).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

char *dropin_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *p = malloc(len);
    if (!p) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    snprintf(p, len, "%s/%s", dir, name);
    return p;
}

/* path opened as mcz_os_open opens it (how), as a stream of mode. */
static FILE *open_stream(const char *path, int how, const char *mode)
{
    int fd = mcz_os_open(path, how, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, mode) : NULL;
    if (!f && fd >= 0) {
        int saved = errno;
        mcz_os_close(fd);
        errno = saved;
    }
    return f;
}

FILE *dropin_fopen_read(const char *path) { return open_stream(path, MCZ_OS_OPEN_READ, "rb"); }

FILE *dropin_fopen_create(const char *path)
{
    return open_stream(path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_TRUNCATE, "wb");
}

char *dropin_program_in(const char *dir, const char *name)
{
    size_t len = strlen(name) + strlen(mcz_os_program_suffix()) + 1;
    char *file = malloc(len);
    if (!file) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    snprintf(file, len, "%s%s", name, mcz_os_program_suffix());
    char *path = dropin_join(dir, file);
    free(file);
    return path;
}

char *dropin_path_dir_of(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    for (const char *p = path;; p++) {
        const char *end = strchr(p, mcz_os_path_list_separator());
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *dir = len ? tool_strndup(p, len) : strdup(".");
        if (!dir) {
            tool_error("out of memory");
            exit(DROPIN_FATAL);
        }
        char *file = dropin_program_in(dir, name);
        bool found = mcz_os_is_executable_file(file);
        free(file);
        if (found)
            return dir;
        free(dir);
        if (!end)
            return NULL;
        p = end;
    }
}

/* The directory the program was run from, the one the installed copy and a link to
 * mcz-superpmi alike sit in (Core_Root), not a link's target's: that of the name the system
 * says the program was started by (Windows), else argv0's when it names a directory, else the
 * PATH entry execvp would have taken it from. Malloc'd; NULL when none tells. */
static char *run_dir(const char *argv0)
{
    char *started = mcz_os_started_path();
    if (started) {
        char *dir = mcz_os_dir_name(started);
        free(started);
        return dir;
    }
    if (mcz_os_base_name(argv0) == argv0)
        return dropin_path_dir_of(argv0);
    char *dir = mcz_os_dir_name(argv0);
    if (!dir) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    return dir;
}

/* When the program was run through a symbolic link named dir/base(argv0): the directory of
 * the link's target, malloc'd; else NULL (also where the system names the program's own file,
 * whose directory run_dir already is). */
static char *target_dir(const char *dir, const char *argv0)
{
    char *self = dropin_join(dir, mcz_os_base_name(argv0));
    char *resolved = mcz_os_absolute_path(self);
    char *target = resolved ? mcz_os_dir_name(resolved) : NULL;
    free(self);
    free(resolved);
    if (target && strcmp(target, dir) == 0) {
        free(target);
        target = NULL;
    }
    return target;
}

/* Whether path is this program (the same file, a link to it, or a copy of it: the real
 * superpmi would then run itself for ever). Only a file of this program's size is read. */
static bool is_self(const char *path)
{
    char *self = mcz_os_self_path();
    mcz_os_file_info a, b;
    mcz_os_file_id ia, ib;
    bool known = self && mcz_os_stat(path, &a) == 0 && mcz_os_stat(self, &b) == 0;
    bool same = known && mcz_os_file_id_of(path, &ia) == 0 && mcz_os_file_id_of(self, &ib) == 0 &&
                tool_file_id_equal(&ia, &ib);
    free(self);
    return same || (known && a.size == b.size && dropin_is_ours(path) == 1);
}

/* path made absolute against the working directory (no link resolved: a link's name is what
 * was asked for), so a command run elsewhere finds it too. Takes path; malloc'd. */
static char *absolute(char *path)
{
    char *cwd = mcz_os_path_is_absolute(path) ? NULL : mcz_os_getcwd();
    if (!cwd)
        return path;
    char *full = dropin_join(cwd, path);
    free(cwd);
    free(path);
    return full;
}

int dropin_find_real(const char *argv0, char **path)
{
    const char *env = getenv("MCZ_SUPERPMI");
    char *real = NULL;
    if (env && *env) {
        real = strdup(env);
    } else {
        char *dir = run_dir(argv0);
        if (!dir) {
            tool_error("cannot tell which directory %s was run from (not on PATH): set "
                       "MCZ_SUPERPMI to the real superpmi", argv0);
            return -1;
        }
        real = dropin_program_in(dir, "superpmi.real");
        free(dir);
    }
    if (!real) {
        tool_error("out of memory");
        return -1;
    }
    const char *why = NULL;
    if (!mcz_os_exists(real))
        why = "no such file (mcz-superpmi --install DIR puts the real superpmi there; or set "
              "MCZ_SUPERPMI)";
    else if (!mcz_os_is_executable_file(real))
        why = "not an executable file";
    else if (is_self(real))
        why = "that is mcz-superpmi itself, not the real superpmi";
    if (why) {
        tool_error("the real superpmi %s: %s", real, why);
        free(real);
        return -1;
    }
    *path = absolute(real);
    return 0;
}

/* dir/mcz-replay when it is an executable file: malloc'd, else NULL. */
static char *replay_in(const char *dir)
{
    if (!dir)
        return NULL;
    char *p = dropin_program_in(dir, "mcz-replay");
    if (mcz_os_is_executable_file(p))
        return p;
    free(p);
    return NULL;
}

/* The mcz-replay that --install recorded in DIR/superpmi.mcz-replay (its absolute path, one
 * line), when it is still an executable file. */
static char *replay_recorded(const char *dir)
{
    if (!dir)
        return NULL;
    char *note = dropin_join(dir, DROPIN_REPLAY_NOTE);
    FILE *f = dropin_fopen_read(note);
    free(note);
    if (!f)
        return NULL;
    char line[PATH_MAX + 2];
    char *found = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (mcz_os_path_is_absolute(line) && mcz_os_is_executable_file(line))
            found = strdup(line);
    }
    fclose(f);
    return found;
}

int dropin_find_replay(const char *argv0, char **path)
{
    const char *env = getenv("MCZ_REPLAY");
    if (env && *env) {
        if (!mcz_os_is_executable_file(env)) {
            tool_error("MCZ_REPLAY=%s: not an executable file", env);
            return -1;
        }
        *path = strdup(env);
        return *path ? 0 : -1;
    }
    char *dir = run_dir(argv0);
    char *found = replay_in(dir);
    if (!found) /* a copy installed in a Core_Root: the one recorded then */
        found = replay_recorded(dir);
    if (!found && dir) { /* a link to mcz-superpmi: beside its target */
        char *target = target_dir(dir, argv0);
        found = replay_in(target);
        free(target);
    }
    free(dir);
    if (!found) {
        char *on_path = dropin_path_dir_of("mcz-replay");
        found = replay_in(on_path);
        free(on_path);
    }
    if (!found) {
        tool_error("mcz-replay not found (beside %s, nor on PATH): set MCZ_REPLAY", argv0);
        return -1;
    }
    *path = found;
    return 0;
}
