/*
 * worker_win32.c - platform/worker.h for Windows: a worker is this program started again, in a
 * job object of its own; platform/worker_posix.c is POSIX's.
 *
 * What a worker inherits, named in its environment (MCZ_WORKER: "SLOT REQ MSG SHARED NOTE",
 * NOTE "-" for none):
 *   requests     an anonymous pipe the worker reads (a CRT descriptor over its handle)
 *   wake-ups     an anonymous pipe the worker writes; its end says the worker is gone
 *   output       the worker's stdout and stderr (its standard handles)
 *   shared       a section of the paging file (CreateFileMapping) both map
 */
#include <windows.h>

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_common.h"
#include "os_win32.h"
#include "platform.h"
#include "worker.h"

#define WORKER_ENV "MCZ_WORKER"
#define PIPE_BYTES 65536
#define IDLE_MS 1            /* the wait's pause while no worker has anything */
#define KILLED_STATUS 137    /* a killed worker's exit code: 128 + SIGKILL, as a shell says */
#define FAULT_STATUS (128 + 11) /* an exception: a death by a fault, as SIGSEGV is on POSIX */
#define PATH_CHARS 32768     /* the longest path Windows has */

struct mcz_os_worker {
    HANDLE process, job;
    HANDLE req, msg, out; /* the parent's ends; NULL: closed */
    void *shared;
    bool killed;
};

/* What this process was told when its parent started it as a worker. */
static struct {
    bool read, worker;
    size_t slot;
    HANDLE req, msg, shared;
    char note[4096]; /* "": none */
} self;

static double workers_cpu;

static void close_handle(HANDLE *h)
{
    if (*h && *h != INVALID_HANDLE_VALUE)
        CloseHandle(*h);
    *h = NULL;
}

/* ---- Stop signals watched ---- */

static volatile LONG stop_signal;
static bool stop_reported; /* the worker wait returned for it */
static HANDLE stop_event;  /* set by the handler: the worker wait wakes at once */

/* Runs on a thread the system starts for the event. */
static BOOL WINAPI on_console_event(DWORD event)
{
    InterlockedExchange(&stop_signal,
                        event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT ? SIGINT : SIGTERM);
    if (stop_event)
        SetEvent(stop_event);
    return TRUE;
}

void mcz_os_stop_watch_begin(void)
{
    stop_signal = 0;
    stop_reported = false;
    if (!stop_event)
        stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

void mcz_os_stop_watch_end(void)
{
    SetConsoleCtrlHandler(on_console_event, FALSE);
    close_handle(&stop_event);
}

int mcz_os_stop_watched(void) { return (int)InterlockedCompareExchange(&stop_signal, 0, 0); }

/* ---- The worker's side ---- */

static HANDLE handle_of(unsigned long long value) { return (HANDLE)(uintptr_t)value; }

static void worker_env_read(void)
{
    if (self.read)
        return;
    self.read = true;
    char text[4300];
    DWORD n = GetEnvironmentVariableA(WORKER_ENV, text, sizeof text);
    if (n == 0 || n >= sizeof text)
        return;
    SetEnvironmentVariableA(WORKER_ENV, NULL); /* not for the commands the worker runs */
    unsigned long long slot, req, msg, shared;
    int used = 0;
    if (sscanf(text, "%llu %llu %llu %llu %n", &slot, &req, &msg, &shared, &used) != 4 || !used)
        return;
    const char *note = text + used;
    snprintf(self.note, sizeof self.note, "%s", strcmp(note, "-") == 0 ? "" : note);
    self.slot = (size_t)slot;
    self.req = handle_of(req);
    self.msg = handle_of(msg);
    self.shared = handle_of(shared);
    self.worker = true;
}

bool mcz_os_workers_fork(void) { return false; }

bool mcz_os_worker_started_again(void)
{
    worker_env_read();
    return self.worker;
}

const char *mcz_os_worker_note(void)
{
    worker_env_read();
    return self.worker && self.note[0] ? self.note : NULL;
}

/* An exception nothing handled ends the worker at once, its code the exit code: no error
 * dialog, no debugger (Wine starts one otherwise). */
static LONG WINAPI on_unhandled_exception(EXCEPTION_POINTERS *e)
{
    (void)e;
    return EXCEPTION_EXECUTE_HANDLER;
}

bool mcz_os_worker_attach(mcz_os_worker_self *me)
{
    worker_env_read();
    if (!self.worker)
        return false;
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
    SetUnhandledExceptionFilter(on_unhandled_exception);
    HANDLE inherited[] = {self.req, self.msg, self.shared};
    for (size_t i = 0; i < sizeof inherited / sizeof *inherited; i++)
        SetHandleInformation(inherited[i], HANDLE_FLAG_INHERIT, 0);
    void *shared = MapViewOfFile(self.shared, FILE_MAP_ALL_ACCESS, 0, 0, 0); /* all of it */
    int in = _open_osfhandle((intptr_t)self.req, _O_RDONLY | _O_BINARY);
    int wake = _open_osfhandle((intptr_t)self.msg, _O_WRONLY | _O_BINARY);
    if (!shared || in < 0 || wake < 0)
        _exit(255);
    CloseHandle(self.shared); /* the view keeps the section */
    /* unbuffered: what the worker printed before a crash reaches the parent (msvcrt has no
     * line buffering) */
    setvbuf(stdout, NULL, _IONBF, 0);
    *me = (mcz_os_worker_self){self.slot, in, wake, shared};
    return true;
}

/* ---- Exit codes ---- */

static const struct {
    DWORD code;
    const char *name;
} exceptions[] = {
    {0xC0000005, "access violation"},     {0xC0000006, "in-page error"},
    {0xC000001D, "illegal instruction"},  {0xC000008E, "float division by zero"},
    {0xC0000094, "integer division by zero"}, {0xC0000095, "integer overflow"},
    {0xC0000096, "privileged instruction"}, {0xC00000FD, "stack overflow"},
    {0xC000013A, "console control event"}, {0xC0000374, "heap corruption"},
    {0xC0000409, "stack buffer overrun"}, {0x80000003, "breakpoint"},
};

static bool is_exception(DWORD code) { return code >= 0xC0000000u || code == 0x80000003u; }

/* An exit code as a POSIX shell's status: exit(-N) as 256 - N (superpmi's -1 and -2 are 255
 * and 254 there too), an exception or any other large code 255. */
static int shell_status(DWORD code)
{
    if (code <= 255)
        return (int)code;
    if (code >= 0xFFFFFF00u)
        return (int)(code & 0xFF);
    return 255;
}

static void describe_exit(DWORD code, bool killed, char *buf, size_t cap)
{
    if (killed) {
        snprintf(buf, cap, "killed");
        return;
    }
    if (!is_exception(code)) {
        snprintf(buf, cap, "exited with status %d", shell_status(code));
        return;
    }
    const char *name = "unknown exception";
    for (size_t i = 0; i < sizeof exceptions / sizeof *exceptions; i++)
        if (exceptions[i].code == code)
            name = exceptions[i].name;
    snprintf(buf, cap, "died of exception 0x%08lX (%s)", (unsigned long)code, name);
}

/* ---- The parent's side ---- */

void *mcz_os_worker_shared(const mcz_os_worker *w) { return w->shared; }

unsigned mcz_os_worker_events(const mcz_os_worker *w)
{
    (void)w;
    return MCZ_OS_WORKER_OUTPUT | MCZ_OS_WORKER_WAKE; /* a pipe cannot say which woke the wait */
}

bool mcz_os_worker_output_open(const mcz_os_worker *w) { return w->out != NULL; }

/* The handles a new worker inherits: its ends of the pipes, its region, its standard input. */
typedef struct worker_handles {
    HANDLE req, msg, out, shared, in;
} worker_handles;

static void worker_handles_close(worker_handles *h)
{
    close_handle(&h->req);
    close_handle(&h->msg);
    close_handle(&h->out);
    close_handle(&h->shared);
    close_handle(&h->in);
}

/* This program started again as the worker of slot, suspended until it is in its job. The
 * handles are inheritable only during the call: no other worker gets them. */
static bool launch(mcz_os_worker *w, size_t slot, const char *note, const worker_handles *h)
{
    static wchar_t exe[PATH_CHARS];
    DWORD len = GetModuleFileNameW(NULL, exe, PATH_CHARS);
    wchar_t *line = _wcsdup(GetCommandLineW()); /* CreateProcessW may write to it */
    char env[4300];
    snprintf(env, sizeof env, "%zu %llu %llu %llu %s", slot,
             (unsigned long long)(uintptr_t)h->req, (unsigned long long)(uintptr_t)h->msg,
             (unsigned long long)(uintptr_t)h->shared, note ? note : "-");
    HANDLE inherit[] = {h->req, h->msg, h->out, h->shared, h->in};
    for (size_t i = 0; i < sizeof inherit / sizeof *inherit; i++)
        SetHandleInformation(inherit[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = h->in;
    si.hStdOutput = si.hStdError = h->out;
    PROCESS_INFORMATION pi;
    bool ok = len > 0 && len < PATH_CHARS && line && SetEnvironmentVariableA(WORKER_ENV, env) &&
              CreateProcessW(exe, line, NULL, NULL, TRUE,
                             CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
    DWORD error = line ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY;
    SetEnvironmentVariableA(WORKER_ENV, NULL);
    free(line);
    if (!ok) {
        errno = mcz_os_errno_of_win32(error);
        return false;
    }
    w->process = pi.hProcess;
    w->job = mcz_os_job_kill_on_close();
    if (!w->job || !AssignProcessToJobObject(w->job, pi.hProcess)) {
        error = GetLastError();
        TerminateProcess(pi.hProcess, KILLED_STATUS);
        CloseHandle(pi.hThread);
        errno = mcz_os_errno_of_win32(error);
        return false;
    }
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    return true;
}

static void worker_close(mcz_os_worker *w)
{
    close_handle(&w->req);
    close_handle(&w->msg);
    close_handle(&w->out);
    if (w->shared)
        UnmapViewOfFile(w->shared);
    w->shared = NULL;
    close_handle(&w->process);
    close_handle(&w->job); /* kills whatever the worker left running in it */
}

mcz_os_worker *mcz_os_worker_start(size_t slot, size_t shared_bytes, const char *note,
                                   mcz_os_worker_fn fn, void *arg)
{
    (void)fn, (void)arg; /* the program started again reaches mcz_os_worker_attach */
    mcz_os_worker *w = calloc(1, sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, FALSE};
    worker_handles h = {NULL, NULL, NULL, NULL, NULL};
    bool ok = CreatePipe(&h.req, &w->req, &sa, PIPE_BYTES) &&
              CreatePipe(&w->msg, &h.msg, &sa, PIPE_BYTES) &&
              CreatePipe(&w->out, &h.out, &sa, PIPE_BYTES) &&
              (h.shared = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE,
                                             (DWORD)((uint64_t)shared_bytes >> 32),
                                             (DWORD)shared_bytes, NULL)) != NULL &&
              (w->shared = MapViewOfFile(h.shared, FILE_MAP_ALL_ACCESS, 0, 0, shared_bytes)) !=
                  NULL &&
              (h.in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                                  OPEN_EXISTING, 0, NULL)) != INVALID_HANDLE_VALUE;
    if (!ok)
        errno = mcz_os_errno_of_win32(GetLastError());
    fflush(NULL);
    ok = ok && launch(w, slot, note, &h);
    int err = errno;
    worker_handles_close(&h);
    if (!ok) {
        worker_close(w);
        free(w);
        errno = err;
        return NULL;
    }
    return w;
}

/* Bytes waiting in the pipe; *gone when it ended (its writer closed it, and it is empty). */
static DWORD pipe_waiting(HANDLE h, bool *gone)
{
    DWORD avail = 0;
    if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
        *gone = true;
    return avail;
}

static bool ended(const mcz_os_worker *w)
{
    return WaitForSingleObject(w->process, 0) == WAIT_OBJECT_0;
}

/* Something for the parent: a wake-up, output, an end of either, the worker's end. */
static bool has_news(const mcz_os_worker *w)
{
    bool gone = false;
    if (pipe_waiting(w->msg, &gone) > 0 || gone)
        return true;
    if (w->out && (pipe_waiting(w->out, &gone) > 0 || gone))
        return true;
    return ended(w);
}

int mcz_os_worker_wait(mcz_os_worker *const *workers, size_t n, int timeout_ms)
{
    uint64_t until = mcz_os_monotonic_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
    /* IDLE_MS pauses while nothing is there: a stop event cuts one short */
    for (;;) {
        for (size_t i = 0; i < n; i++)
            if (workers[i] && has_news(workers[i]))
                return 0;
        if (mcz_os_stop_watched() && !stop_reported) {
            stop_reported = true;
            return 0;
        }
        uint64_t now = mcz_os_monotonic_ns();
        if (timeout_ms >= 0 && now >= until)
            return 0;
        uint64_t left_ms = timeout_ms < 0 ? IDLE_MS : (until - now + 999999u) / 1000000u;
        DWORD nap_ms = left_ms < IDLE_MS ? (DWORD)left_ms : IDLE_MS;
        if (stop_event)
            WaitForSingleObject(stop_event, nap_ms);
        else
            Sleep(nap_ms);
    }
}

bool mcz_os_worker_wakeups(mcz_os_worker *w)
{
    for (;;) {
        bool gone = false;
        DWORD avail = pipe_waiting(w->msg, &gone);
        if (gone)
            return false;
        if (avail == 0)
            return !ended(w);
        uint8_t bytes[256];
        DWORD got;
        if (!ReadFile(w->msg, bytes, avail < sizeof bytes ? avail : sizeof bytes, &got, NULL))
            return false;
    }
}

long mcz_os_worker_output(mcz_os_worker *w, char *buf, size_t cap)
{
    assert(cap > 0);
    bool gone = false;
    DWORD avail = pipe_waiting(w->out, &gone);
    if (!gone && avail == 0)
        return -1; /* a command the worker left may still hold the pipe: never wait for it */
    DWORD got = 0;
    if (gone || !ReadFile(w->out, buf, avail < cap ? avail : (DWORD)cap, &got, NULL) || !got) {
        close_handle(&w->out);
        return 0;
    }
    return (long)got;
}

int mcz_os_worker_send(mcz_os_worker *w, const void *buf, size_t len)
{
    DWORD put = 0;
    if (!w->req || !WriteFile(w->req, buf, (DWORD)len, &put, NULL) || put != len)
        return -1;
    return 0;
}

void mcz_os_worker_close_input(mcz_os_worker *w) { close_handle(&w->req); }

void mcz_os_worker_kill(mcz_os_worker *w)
{
    w->killed = true;
    TerminateJobObject(w->job, KILLED_STATUS);
}

static double cpu_seconds_of(HANDLE process)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(process, &created, &exited, &kernel, &user))
        return 0;
    uint64_t ticks = ((uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime) +
                     ((uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime);
    return (double)ticks / 1e7; /* 100 ns ticks */
}

int mcz_os_worker_reap(mcz_os_worker *w, char *how, size_t cap)
{
    DWORD code = 0;
    if (WaitForSingleObject(w->process, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(w->process, &code)) {
        snprintf(how, cap, "lost (Windows error %lu)", (unsigned long)GetLastError());
        return -1;
    }
    workers_cpu += cpu_seconds_of(w->process);
    describe_exit(code, w->killed, how, cap);
    /* An exception is a death by a fault, as a signal is on POSIX: never the 255 a worker
     * exits with on an error of its own. */
    return is_exception(code) ? FAULT_STATUS : shell_status(code);
}

void mcz_os_worker_free(mcz_os_worker **pw)
{
    if (!*pw)
        return;
    worker_close(*pw);
    free(*pw);
    *pw = NULL;
}

double mcz_os_cpu_seconds(bool children)
{
    return children ? workers_cpu : cpu_seconds_of(GetCurrentProcess());
}

/* ---- Commands ---- */

/* A new file at path for a child's output (NULL: this process's handle std). */
static HANDLE output_for_child(const char *path, DWORD std)
{
    if (!path)
        return GetStdHandle(std);
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    return CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                       CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
}

int mcz_os_command_start(char *const argv[], const char *out_path, const char *err_path,
                         int64_t *handle, int *exec_errno)
{
    *exec_errno = 0;
    char *line = mcz_os_command_line(argv);
    HANDLE out = output_for_child(out_path, STD_OUTPUT_HANDLE);
    HANDLE err = output_for_child(err_path, STD_ERROR_HANDLE);
    int rc = MCZ_EIO;
    if (line && out != INVALID_HANDLE_VALUE && err != INVALID_HANDLE_VALUE) {
        STARTUPINFOA si;
        memset(&si, 0, sizeof si);
        si.cb = sizeof si;
        si.dwFlags = STARTF_USESTDHANDLES;
        si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
        si.hStdOutput = out;
        si.hStdError = err;
        PROCESS_INFORMATION pi;
        fflush(NULL);
        /* the command is found as CreateProcess finds it (the program's directory, the
         * current one, the system's, PATH), and joins this process's job */
        if (CreateProcessA(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
            CloseHandle(pi.hThread);
            *handle = (int64_t)(intptr_t)pi.hProcess;
            rc = MCZ_OK;
        } else {
            *exec_errno = mcz_os_errno_of_win32(GetLastError());
            rc = 127;
        }
    }
    free(line);
    if (out_path && out != INVALID_HANDLE_VALUE)
        CloseHandle(out);
    if (err_path && err != INVALID_HANDLE_VALUE)
        CloseHandle(err);
    return rc;
}

int mcz_os_command_wait(int64_t handle)
{
    HANDLE process = (HANDLE)(intptr_t)handle;
    DWORD code = 255;
    WaitForSingleObject(process, INFINITE);
    GetExitCodeProcess(process, &code);
    CloseHandle(process);
    return shell_status(code);
}

bool mcz_os_readable(int fd, int wait_ms)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    for (int waited = 0;; waited++) {
        DWORD avail = 0;
        if (h == INVALID_HANDLE_VALUE || !PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
            return false;
        if (avail > 0)
            return true;
        if (waited >= wait_ms)
            return false;
        Sleep(1);
    }
}
