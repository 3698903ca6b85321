/*
 * tool_proc_win32.c - tool.h's programs and files (tool_exec, tool_self_path, ...) for
 * Windows. Empty on other systems, where tool_proc_posix.c implements the same functions.
 * Paths are UTF-8, as everywhere in mcz: they reach Windows as wide characters.
 */
#ifdef _WIN32
#include <windows.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define PATH_CHARS 32768 /* the longest path Windows has */

/* A UTF-8 string as wide characters (malloc'd), or NULL with errno set. */
static wchar_t *to_wide(const char *text)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (!w || MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, w, n) != n) {
        free(w);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return w;
}

/* Wide characters as UTF-8 (malloc'd), or NULL with errno set. */
static char *to_utf8(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (!s || WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) != n) {
        free(s);
        errno = n > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    return s;
}

/* errno for the last Windows error of a file or process call. */
static int errno_of_last_error(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION: return EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS: return EEXIST;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_TOO_MANY_LINKS: return EMLINK;
    case ERROR_INVALID_FUNCTION:
    case ERROR_NOT_SUPPORTED: return ENOTSUP;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: return ENOMEM;
    case ERROR_BAD_EXE_FORMAT: return ENOEXEC;
    default: return EIO;
    }
}

/* ---- tool_exec ---- */

/* The program shares this process's console, so a console control event reaches it too: it
 * decides what the event means, and this process waits on to pass its exit code on. For the
 * console closed, a log-off or a shutdown Windows ends this process after the handler returns;
 * the job then ends the program. */
static BOOL WINAPI while_waiting(DWORD event)
{
    (void)event;
    return TRUE;
}

/* A job that ends its processes when its last handle, this process's, closes; NULL when none
 * can be made (the program then runs outside one). */
static HANDLE job_create(void)
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

int tool_exec(const char *path, char *const argv[])
{
    char *line = tool_command_line(argv);
    wchar_t *wpath = to_wide(path), *wline = line ? to_wide(line) : NULL;
    free(line);
    if (!wpath || !wline) {
        free(wpath);
        free(wline);
        return -1;
    }
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    share_std_handles(&si);
    PROCESS_INFORMATION pi;
    HANDLE job = job_create();
    fflush(NULL);
    /* suspended until it is in the job: nothing it starts escapes the job */
    BOOL started = CreateProcessW(wpath, wline, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
                                  &si, &pi);
    int saved = errno_of_last_error();
    free(wpath);
    free(wline);
    if (!started) {
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

/* ---- Files ---- */

char *tool_self_path(void)
{
    wchar_t *w = malloc(PATH_CHARS * sizeof *w);
    DWORD n = w ? GetModuleFileNameW(NULL, w, PATH_CHARS) : 0;
    char *path = n > 0 && n < PATH_CHARS ? to_utf8(w) : NULL;
    if (!path && w)
        errno = n == 0 ? errno_of_last_error() : ENAMETOOLONG;
    free(w);
    return path;
}

char *tool_absolute_path(const char *path)
{
    wchar_t *wpath = to_wide(path), *full = malloc(PATH_CHARS * sizeof *full);
    DWORD n = wpath && full ? GetFullPathNameW(wpath, PATH_CHARS, full, NULL) : 0;
    char *abs = n > 0 && n < PATH_CHARS ? to_utf8(full) : NULL;
    if (!abs && wpath && full)
        errno = n == 0 ? errno_of_last_error() : ENAMETOOLONG;
    free(wpath);
    free(full);
    return abs;
}

int tool_link(const char *from, const char *to)
{
    wchar_t *wfrom = to_wide(from), *wto = to_wide(to);
    BOOL ok = wfrom && wto && CreateHardLinkW(wto, wfrom, NULL);
    if (!ok && wfrom && wto)
        errno = errno_of_last_error();
    free(wfrom);
    free(wto);
    return ok ? 0 : -1;
}

int tool_rename_over(const char *from, const char *to)
{
    wchar_t *wfrom = to_wide(from), *wto = to_wide(to);
    BOOL ok = wfrom && wto &&
              MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    if (!ok && wfrom && wto)
        errno = errno_of_last_error();
    free(wfrom);
    free(wto);
    return ok ? 0 : -1;
}
#endif /* _WIN32 */
