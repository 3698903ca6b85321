/*
 * dropin_os_win32.c - dropin.h's section "The system" for Windows. Empty on other systems,
 * where dropin_os_posix.c implements the same.
 *
 * The program's directory is its file's (GetModuleFileNameW): Core_Root's superpmi.exe is a
 * copy (or a hard link), not a symbolic link, so the name it was started by is in Core_Root.
 */
#ifdef _WIN32
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dropin.h"

const char dropin_exe[] = ".exe";
const char dropin_path_sep = ';';

static bool is_separator(char c) { return c == '\\' || c == '/'; }

char *dropin_run_dir(const char *argv0)
{
    (void)argv0;
    char *self = mcz_os_self_path();
    if (!self)
        return NULL;
    size_t end = strlen(self);
    while (end > 0 && !is_separator(self[end - 1]))
        end--;
    /* "C:\dir\prog.exe" -> "C:\dir"; "C:\prog.exe" -> "C:\" (the root keeps its separator) */
    if (end > 1 && self[end - 2] != ':')
        end--;
    self[end] = '\0';
    return end ? self : (free(self), NULL);
}

char *dropin_target_dir(const char *dir, const char *argv0)
{
    (void)dir;
    (void)argv0;
    return NULL;
}

bool dropin_is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dropin_is_absolute(const char *path)
{
    bool drive = isalpha((unsigned char)path[0]) && path[1] == ':' && is_separator(path[2]);
    return drive || (is_separator(path[0]) && is_separator(path[1]));
}

bool dropin_name_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int dropin_open_to_read(const char *path)
{
    return mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
}

int dropin_make_executable(int fd)
{
    (void)fd;
    return 0;
}
#endif /* _WIN32 */
