/*
 * dropin_stream_win32.c - the system's part of -streaming over an archive (dropin.h,
 * "-streaming over an archive"), for Windows. Empty on other systems, where
 * dropin_stream_posix.c does the same.
 */
#ifdef _WIN32
#include <windows.h>
#include <winioctl.h>

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"

/* Sparse where the file system has sparse files (NTFS); elsewhere the unwritten ranges read
 * as zeros all the same. */
int dropin_create_sparse(const char *path, uint64_t size)
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
        close(fd);
        errno = ENOSPC;
        return -1;
    }
    return fd;
}

int dropin_write_at(int fd, const void *bytes, size_t len, uint64_t at)
{
    OVERLAPPED where;
    memset(&where, 0, sizeof where);
    where.Offset = (DWORD)at;
    where.OffsetHigh = (DWORD)(at >> 32);
    DWORD wrote = 0;
    if (len > MAXDWORD ||
        !WriteFile((HANDLE)_get_osfhandle(fd), bytes, (DWORD)len, &wrote, &where) ||
        wrote != len) {
        errno = EIO;
        return -1;
    }
    return 0;
}

/* A console control event reaches superpmi too (it shares the console): the request loop ends
 * at its next line, the temporary files go, the exit is 128+N (Ctrl-C and Ctrl-Break as
 * SIGINT, the console closed, a log-off or a shutdown as SIGTERM). */
static volatile LONG stopped;

static BOOL WINAPI on_event(DWORD event)
{
    LONG sig = event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT ? SIGINT : SIGTERM;
    InterlockedCompareExchange(&stopped, sig, 0);
    return TRUE;
}

void dropin_catch_stops(void) { SetConsoleCtrlHandler(on_event, TRUE); }

int dropin_stopped(void) { return (int)InterlockedCompareExchange(&stopped, 0, 0); }
#endif /* _WIN32 */
