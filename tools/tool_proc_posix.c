/*
 * tool_proc_posix.c - tool.h's programs and files (tool_exec, tool_self_path, ...) for POSIX
 * systems. Empty on Windows, where tool_proc_win32.c implements the same functions.
 */
#ifndef _WIN32
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

int tool_exec(const char *path, char *const argv[])
{
    fflush(NULL);
    execv(path, argv);
    return -1;
}

char *tool_self_path(void)
{
    return strdup("/proc/self/exe");
}

char *tool_absolute_path(const char *path)
{
    return realpath(path, NULL);
}

int tool_link(const char *from, const char *to)
{
    return link(from, to);
}

int tool_rename_over(const char *from, const char *to)
{
    return rename(from, to);
}
#endif /* !_WIN32 */
