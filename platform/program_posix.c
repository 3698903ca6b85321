/*
 * program_posix.c - platform/program.h for POSIX systems; platform/program_win32.c is
 * Windows'.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcz_common.h"
#include "program.h"

/* ---- Names ---- */

const char *mcz_os_program_suffix(void) { return ""; }
char mcz_os_path_list_separator(void) { return ':'; }
bool mcz_os_path_is_absolute(const char *path) { return path[0] == '/'; }

const char *mcz_os_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *mcz_os_dir_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        errno = EINVAL;
        return NULL;
    }
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir) {
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    return dir;
}

char *mcz_os_started_path(void)
{
    errno = ENOTSUP;
    return NULL;
}

/* ---- Files ---- */

bool mcz_os_is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool mcz_os_name_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int mcz_os_open_to_read(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

int mcz_os_make_executable(int fd) { return fchmod(fd, 0755); }

int mcz_os_create_sparse(const char *path, uint64_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* ---- Shared libraries ---- */

void *mcz_os_library_open(const char *path, char *why, size_t cap)
{
    /* dlopen() searches the library path for a bare name */
    char local[4096];
    if (!strchr(path, '/')) {
        snprintf(local, sizeof local, "./%s", path);
        path = local;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        snprintf(why, cap, "%s", dlerror());
    return lib;
}

void *mcz_os_library_symbol(void *lib, const char *name) { return dlsym(lib, name); }

void mcz_os_library_close(void *lib) { dlclose(lib); }
