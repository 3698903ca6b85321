/*
 * program_win32.c - platform/program.h for Windows; platform/program_posix.c is POSIX's.
 * Paths are the C runtime's (as fopen's), but the program's own name, which comes as UTF-8.
 */
#include <windows.h>
#include <winioctl.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcz_common.h"
#include "os_win32.h"
#include "platform.h"
#include "program.h"

#define PATH_CHARS 32768 /* the longest path Windows has */

/* ---- Names ---- */

const char *mcz_os_program_suffix(void) { return ".exe"; }
char mcz_os_path_list_separator(void) { return ';'; }

static bool is_separator(char c) { return c == '\\' || c == '/'; }

bool mcz_os_path_is_absolute(const char *path)
{
    bool drive = isalpha((unsigned char)path[0]) && path[1] == ':' && is_separator(path[2]);
    return drive || (is_separator(path[0]) && is_separator(path[1]));
}

/* Where the last component of path starts. */
static size_t base_at(const char *path)
{
    size_t end = strlen(path);
    while (end > 0 && !is_separator(path[end - 1]))
        end--;
    return end;
}

const char *mcz_os_base_name(const char *path) { return path + base_at(path); }

char *mcz_os_dir_name(const char *path)
{
    size_t end = base_at(path);
    if (end == 0) {
        errno = EINVAL;
        return NULL;
    }
    /* "C:\dir\prog.exe" -> "C:\dir"; "C:\prog.exe" -> "C:\" (the root keeps its separator) */
    if (end > 1 && path[end - 2] != ':')
        end--;
    char *dir = malloc(end + 1);
    if (dir) {
        memcpy(dir, path, end);
        dir[end] = '\0';
    }
    return dir;
}

/* Core_Root's superpmi.exe is a copy (or a hard link), not a symbolic link: the name the
 * program was started by is where it was run from. */
char *mcz_os_started_path(void) { return mcz_os_self_path(); }

/* ---- Files ---- */

bool mcz_os_is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool mcz_os_name_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int mcz_os_open_to_read(const char *path) { return mcz_os_open(path, MCZ_OS_OPEN_READ, 0); }

int mcz_os_make_executable(int fd)
{
    (void)fd;
    return 0;
}

int mcz_os_create_sparse(const char *path, uint64_t size)
{
    int fd = mcz_os_open(path,
                         MCZ_OS_OPEN_READ_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_EXCLUSIVE,
                         0600);
    if (fd < 0)
        return -1;
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    DWORD unused;
    DeviceIoControl(h, FSCTL_SET_SPARSE, NULL, 0, NULL, 0, &unused, NULL);
    LARGE_INTEGER end;
    end.QuadPart = (LONGLONG)size;
    if (!SetFilePointerEx(h, end, NULL, FILE_BEGIN) || !SetEndOfFile(h)) {
        _close(fd);
        errno = ENOSPC;
        return -1;
    }
    return fd;
}

/* ---- Shared libraries ---- */

void *mcz_os_library_open(const char *path, char *why, size_t cap)
{
    /* a relative name is the user's file, never one of the system's search path */
    char full[PATH_CHARS];
    DWORD len = GetFullPathNameA(path, sizeof full, full, NULL);
    HMODULE lib = len > 0 && len < sizeof full ? LoadLibraryA(full) : NULL;
    if (!lib)
        snprintf(why, cap, "%s: Windows error %lu", path, (unsigned long)GetLastError());
    return (void *)lib;
}

void *mcz_os_library_symbol(void *lib, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *sym;
    memcpy(&sym, &f, sizeof sym); /* function to object pointer, as dlsym gives it */
    return sym;
}

void mcz_os_library_close(void *lib) { FreeLibrary((HMODULE)lib); }
