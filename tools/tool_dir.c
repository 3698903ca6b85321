/* tool_dir.c - a directory's names, sorted and filtered by a wildcard (tool_dir_list), and a
 * directory tree removed (tool_remove_tree); the reading itself is the platform layer's
 * (mcz_os_dir_*). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const char *glob, const char *name)
{
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    return !glob || mcz_os_glob_match(glob, name);
}

/* Appends a copy of name to *names: 0, or -1 (out of memory). */
static int add_name(char ***names, size_t *count, size_t *cap, const char *name)
{
    if (*count == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 64;
        char **grown = realloc(*names, grown_cap * sizeof *grown);
        if (!grown)
            return -1;
        *names = grown;
        *cap = grown_cap;
    }
    if (!((*names)[*count] = strdup(name)))
        return -1;
    ++*count;
    return 0;
}

int tool_dir_list(const char *dir, const char *glob, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    mcz_os_dir *d = mcz_os_dir_open(dir);
    if (!d)
        return -1;
    size_t cap = 0;
    const char *name;
    int rc = 0;
    while (rc == 0 && (name = mcz_os_dir_next(d)) != NULL)
        if (wanted(glob, name) && add_name(names, count, &cap, name) != 0) {
            errno = ENOMEM;
            rc = -1;
        }
    int err = rc == 0 ? errno : ENOMEM; /* 0 at the end of the directory */
    mcz_os_dir_close(d);
    if (rc == 0 && err != 0)
        rc = -1;
    if (rc != 0) {
        tool_dir_list_free(*names, *count);
        *names = NULL;
        *count = 0;
        errno = err;
        return -1;
    }
    if (*count > 1)
        qsort(*names, *count, sizeof **names, by_name);
    return 0;
}

void tool_dir_list_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* errno of the first failure, kept in *first (0: none yet). */
static void note_failure(int rc, int *first)
{
    if (rc != 0 && *first == 0)
        *first = errno ? errno : EIO;
}

/* Removes what dir holds, then dir: depth first, a link removed as a file. */
static void remove_tree(const char *dir, int *first)
{
    char **names = NULL;
    size_t count = 0;
    note_failure(tool_dir_list(dir, NULL, &names, &count), first);
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(dir) + 1 + strlen(names[i]) + 1;
        char *path = malloc(len);
        if (!path) {
            errno = ENOMEM;
            note_failure(-1, first);
            continue;
        }
        snprintf(path, len, "%s/%s", dir, names[i]);
        if (mcz_os_is_directory_not_link(path))
            remove_tree(path, first);
        else
            note_failure(remove(path), first);
        free(path);
    }
    tool_dir_list_free(names, count);
    note_failure(mcz_os_rmdir(dir), first);
}

int tool_remove_tree(const char *path)
{
    int first = 0;
    remove_tree(path, &first);
    errno = first;
    return first ? -1 : 0;
}
