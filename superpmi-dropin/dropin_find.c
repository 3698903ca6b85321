/*
 * dropin_find.c - where the real superpmi and mcz-replay are.
 *
 * Not /proc/self/exe: the installed copy of mcz-superpmi sits in Core_Root beside
 * superpmi.real, and so does a symbolic link to an mcz-superpmi elsewhere, whose target's
 * directory holds no superpmi.real. The directory the program was run from is the one.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The PATH entry holding an executable name, as execvp searches (an empty entry is "."). */
static char *path_dir_of(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *dir = len ? strndup(p, len) : strdup(".");
        if (!dir) {
            tool_error("out of memory");
            exit(DROPIN_FATAL);
        }
        char *file = dropin_join(dir, name);
        bool found = is_executable_file(file);
        free(file);
        if (found)
            return dir;
        free(dir);
        if (!end)
            return NULL;
        p = end;
    }
}

char *dropin_run_dir(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    if (!slash)
        return path_dir_of(argv0);
    char *dir = slash == argv0 ? strdup("/") : strndup(argv0, (size_t)(slash - argv0));
    if (!dir) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    return dir;
}

/* Whether path is this program (the same file, a link to it, or a copy of it: the real
 * superpmi would then run itself for ever). Only a file of this program's size is read. */
static bool is_self(const char *path)
{
    struct stat a, b;
    if (stat(path, &a) != 0 || stat("/proc/self/exe", &b) != 0)
        return false;
    if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return true;
    return a.st_size == b.st_size && dropin_is_ours(path) == 1;
}

/* path made absolute against the working directory (no link resolved: a link's name is what
 * was asked for), so a command run elsewhere finds it too. Takes path; malloc'd. */
static char *absolute(char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return path;
    char *full = dropin_join(cwd, path);
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
        char *dir = dropin_run_dir(argv0);
        if (!dir) {
            tool_error("cannot tell which directory %s was run from (not on PATH): set "
                       "MCZ_SUPERPMI to the real superpmi", argv0);
            return -1;
        }
        real = dropin_join(dir, "superpmi.real");
        free(dir);
    }
    if (!real) {
        tool_error("out of memory");
        return -1;
    }
    const char *why = NULL;
    if (access(real, F_OK) != 0)
        why = "no such file (mcz-superpmi --install DIR puts the real superpmi there; or set "
              "MCZ_SUPERPMI)";
    else if (!is_executable_file(real))
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
    char *p = dropin_join(dir, "mcz-replay");
    if (is_executable_file(p))
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
    FILE *f = note ? fopen(note, "re") : NULL;
    free(note);
    if (!f)
        return NULL;
    char line[PATH_MAX + 2];
    char *found = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '/' && is_executable_file(line))
            found = strdup(line);
    }
    fclose(f);
    return found;
}

int dropin_find_replay(const char *argv0, char **path)
{
    const char *env = getenv("MCZ_REPLAY");
    if (env && *env) {
        if (!is_executable_file(env)) {
            tool_error("MCZ_REPLAY=%s: not an executable file", env);
            return -1;
        }
        *path = strdup(env);
        return *path ? 0 : -1;
    }
    char *dir = dropin_run_dir(argv0);
    char *found = replay_in(dir);
    if (!found) /* a copy installed in a Core_Root: the one recorded then */
        found = replay_recorded(dir);
    if (!found && dir) { /* a link to mcz-superpmi: beside its target */
        char *self = dropin_join(dir, strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0);
        char resolved[PATH_MAX];
        if (realpath(self, resolved)) {
            char *slash = strrchr(resolved, '/');
            *slash = '\0';
            found = replay_in(slash == resolved ? "/" : resolved);
        }
        free(self);
    }
    free(dir);
    if (!found) {
        char *on_path = path_dir_of("mcz-replay");
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
