/*
 * dropin_os_posix.c - dropin.h's section "The system" for POSIX systems. Empty on Windows,
 * where dropin_os_win32.c implements the same.
 */
#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dropin.h"

const char dropin_exe[] = "";
const char dropin_path_sep = ':';

char *dropin_run_dir(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    if (!slash)
        return dropin_path_dir_of(argv0);
    char *dir = slash == argv0 ? strdup("/") : tool_strndup(argv0, (size_t)(slash - argv0));
    if (!dir) {
        tool_error("out of memory");
        exit(DROPIN_FATAL);
    }
    return dir;
}

char *dropin_target_dir(const char *dir, const char *argv0)
{
    char *self = dropin_join(dir, strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0);
    char resolved[PATH_MAX], *target = NULL;
    if (realpath(self, resolved)) {
        char *slash = strrchr(resolved, '/');
        *slash = '\0';
        target = strdup(slash == resolved ? "/" : resolved);
    }
    free(self);
    return target;
}

bool dropin_is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool dropin_is_absolute(const char *path)
{
    return path[0] == '/';
}

bool dropin_name_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int dropin_open_to_read(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

int dropin_make_executable(int fd)
{
    return fchmod(fd, 0755);
}
#endif /* !_WIN32 */
