/*
 * dropin_stream_posix.c - the system's part of -streaming over an archive (dropin.h, "-streaming
 * over an archive"), for POSIX systems. Empty on Windows, where dropin_stream_win32.c does the
 * same.
 */
#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dropin.h"

int dropin_create_sparse(const char *path, uint64_t size)
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

int dropin_write_at(int fd, const void *bytes, size_t len, uint64_t at)
{
    return pwrite(fd, bytes, len, (off_t)at) == (ssize_t)len ? 0 : -1;
}

/* A stop signal (Ctrl-C reaches superpmi too, in the same process group): the request loop
 * ends (the read is not restarted), the temporary files go, the exit is 128+N. */
static volatile sig_atomic_t stopped;

static void on_stop(int sig) { stopped = sig; }

void dropin_catch_stops(void)
{
    signal(SIGPIPE, SIG_IGN); /* superpmi gone: the write fails, its exit code says why */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int dropin_stopped(void) { return (int)stopped; }

#endif /* !_WIN32 */
