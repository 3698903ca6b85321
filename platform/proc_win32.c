/*
 * proc_win32.c - platform/platform.h's programs and files (mcz_os_exec, mcz_os_self_path, ...)
 * for Windows; platform/proc_posix.c is POSIX's.
 * Paths are UTF-8, as everywhere in mcz: they reach Windows as wide characters.
 */
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "os_win32.h"
#include "platform.h"

#define PATH_CHARS 32768 /* the longest path Windows has */

/* ---- mcz_os_exec ---- */

/* The program shares this process's console, so a console control event reaches it too: it
 * decides what the event means, and this process waits on to pass its exit code on. For the
 * console closed, a log-off or a shutdown Windows ends this process after the handler returns;
 * the job then ends the program. */
static BOOL WINAPI while_waiting(DWORD event)
{
    (void)event;
    return TRUE;
}

void *mcz_os_job_kill_on_close(void)
{
    HANDLE job = CreateJobObjectW(NULL, NULL);
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limit;
    memset(&limit, 0, sizeof limit);
    limit.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (job && !SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limit,
                                        sizeof limit)) {
        CloseHandle(job);
        job = NULL;
    }
    return job;
}

/* The program gets this process's standard handles: they must be inheritable for that. */
static void share_std_handles(STARTUPINFOW *si)
{
    const DWORD which[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
    HANDLE *slot[3] = {&si->hStdInput, &si->hStdOutput, &si->hStdError};
    for (int i = 0; i < 3; i++) {
        HANDLE h = GetStdHandle(which[i]);
        if (h && h != INVALID_HANDLE_VALUE)
            SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
        *slot[i] = h;
    }
    si->dwFlags |= STARTF_USESTDHANDLES;
}

/* Starts path with argv and the standard handles of si, suspended when flags say so. 0, or -1
 * with errno set. */
static int start(const char *path, char *const argv[], STARTUPINFOW *si, DWORD flags,
                 PROCESS_INFORMATION *pi)
{
    char *line = mcz_os_command_line(argv);
    wchar_t *wpath = mcz_os_wide(path), *wline = line ? mcz_os_wide(line) : NULL;
    free(line);
    BOOL started = wpath && wline &&
                   CreateProcessW(wpath, wline, NULL, NULL, TRUE, flags, NULL, NULL, si, pi);
    int saved = wpath && wline ? mcz_os_errno_of_win32(GetLastError()) : ENOMEM;
    free(wpath);
    free(wline);
    if (started)
        return 0;
    errno = saved;
    return -1;
}

int mcz_os_exec(const char *path, char *const argv[])
{
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    share_std_handles(&si);
    PROCESS_INFORMATION pi;
    HANDLE job = mcz_os_job_kill_on_close(); /* NULL: the program runs outside one */
    fflush(NULL);
    /* suspended until it is in the job: nothing it starts escapes the job */
    if (start(path, argv, &si, CREATE_SUSPENDED, &pi) != 0) {
        int saved = errno;
        if (job)
            CloseHandle(job);
        errno = saved;
        return -1;
    }
    SetConsoleCtrlHandler(while_waiting, TRUE);
    if (job)
        AssignProcessToJobObject(job, pi.hProcess); /* refused inside some jobs: run outside */
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    DWORD code = 255;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    exit((int)code); /* the job's handle closes with the process */
}

static HANDLE spawned; /* the program mcz_os_spawn_piped started */

int mcz_os_spawn_piped(const char *path, char *const argv[], int *to_child,
                       void (*cannot_run)(const char *path, int err))
{
    (void)cannot_run; /* CreateProcessW fails in this process instead: -1 and errno */
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE rd, wr;
    if (!CreatePipe(&rd, &wr, &sa, 0)) {
        errno = mcz_os_errno_of_win32(GetLastError());
        return -1;
    }
    SetHandleInformation(wr, HANDLE_FLAG_INHERIT, 0); /* the program gets the read end only */
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    share_std_handles(&si);
    si.hStdInput = rd;
    PROCESS_INFORMATION pi;
    fflush(NULL);
    int rc = start(path, argv, &si, 0, &pi);
    int saved = errno;
    CloseHandle(rd);
    int fd = rc == 0 ? _open_osfhandle((intptr_t)wr, _O_WRONLY | _O_BINARY) : -1;
    if (fd < 0) {
        CloseHandle(wr);
        if (rc == 0) {
            TerminateProcess(pi.hProcess, 255);
            CloseHandle(pi.hProcess);
            CloseHandle(pi.hThread);
        }
        errno = rc == 0 ? EMFILE : saved;
        return -1;
    }
    CloseHandle(pi.hThread);
    spawned = pi.hProcess;
    *to_child = fd;
    return 0;
}

int mcz_os_spawn_wait(int stop_signal)
{
    if (stop_signal)
        TerminateProcess(spawned, (UINT)(128 + stop_signal));
    DWORD code = 255;
    WaitForSingleObject(spawned, INFINITE);
    GetExitCodeProcess(spawned, &code);
    CloseHandle(spawned);
    spawned = NULL;
    return (int)code;
}

/* ---- Files ---- */

char *mcz_os_self_path(void)
{
    wchar_t *w = malloc(PATH_CHARS * sizeof *w);
    DWORD n = w ? GetModuleFileNameW(NULL, w, PATH_CHARS) : 0;
    char *path = n > 0 && n < PATH_CHARS ? mcz_os_utf8(w) : NULL;
    if (!path && w)
        errno = n == 0 ? mcz_os_errno_of_win32(GetLastError()) : ENAMETOOLONG;
    free(w);
    return path;
}

char *mcz_os_absolute_path(const char *path)
{
    wchar_t *wpath = mcz_os_wide(path), *full = malloc(PATH_CHARS * sizeof *full);
    DWORD n = wpath && full ? GetFullPathNameW(wpath, PATH_CHARS, full, NULL) : 0;
    char *abs = n > 0 && n < PATH_CHARS ? mcz_os_utf8(full) : NULL;
    if (!abs && wpath && full)
        errno = n == 0 ? mcz_os_errno_of_win32(GetLastError()) : ENAMETOOLONG;
    free(wpath);
    free(full);
    return abs;
}

int mcz_os_link(const char *from, const char *to)
{
    wchar_t *wfrom = mcz_os_wide(from), *wto = mcz_os_wide(to);
    BOOL ok = wfrom && wto && CreateHardLinkW(wto, wfrom, NULL);
    if (!ok && wfrom && wto)
        errno = mcz_os_errno_of_win32(GetLastError());
    free(wfrom);
    free(wto);
    return ok ? 0 : -1;
}
