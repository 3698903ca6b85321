/*
 * proc_posix.c - platform/platform.h's programs and files (mcz_os_exec, mcz_os_self_path, ...)
 * for POSIX systems; platform/proc_win32.c is Windows'.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcz_common.h"
#include "platform.h"

int mcz_os_exec(const char *path, char *const argv[])
{
    fflush(NULL);
    execv(path, argv);
    return -1;
}

static pid_t spawned = -1; /* the program mcz_os_spawn_piped started */

int mcz_os_spawn_piped(const char *path, char *const argv[], int *to_child,
                       void (*cannot_run)(const char *path, int err))
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    spawned = fork();
    if (spawned == 0) {
        dup2(fds[0], 0);
        execv(path, argv);
        cannot_run(path, errno);
        _exit(255);
    }
    int saved = errno;
    close(fds[0]);
    if (spawned < 0) {
        close(fds[1]);
        errno = saved;
        return -1;
    }
    *to_child = fds[1];
    return 0;
}

int mcz_os_spawn_wait(int stop_signal)
{
    if (stop_signal)
        kill(spawned, stop_signal);
    int status = 0;
    while (waitpid(spawned, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status)     ? WEXITSTATUS(status)
           : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                 : 255;
}

char *mcz_os_self_path(void)
{
    return strdup("/proc/self/exe");
}

char *mcz_os_absolute_path(const char *path)
{
    return realpath(path, NULL);
}

int mcz_os_link(const char *from, const char *to)
{
    return link(from, to);
}
