/*
 * replay_proc_win32.c - mcz-replay's worker processes on Windows: every process, pipe, wait and
 * kill of the pool (replay_pool.c) and of --exec commands is here. Compiled on every system,
 * empty elsewhere (replay_proc_posix.c).
 *
 * Windows has no fork: a worker is this program started again with the same command line, and
 * told in its environment (MCZ_REPLAY_WORKER: slot, three inherited handles, the run's
 * temporary directory) that it is the worker of a slot. It parses the same options, opens the
 * same collection and plans the same units (all deterministic), and its replay_pool_run finds
 * itself a worker (replay_proc_attach) and runs the worker's function, as a forked child would.
 * Only the handles named are inherited: they are made inheritable just for the CreateProcess
 * call, and the worker makes them private again, so an --exec command it runs holds none.
 *
 *   requests     an anonymous pipe the worker reads (a CRT descriptor over its handle)
 *   wake-ups     an anonymous pipe the worker writes; its end says the worker is gone
 *   output       the worker's stdout and stderr, passed on a whole line at a time
 *   ring         a section of the paging file (CreateFileMapping) both map
 *
 * Each worker runs in a job object of its own with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: killing
 * the job ends the worker and any command it started (as killing a process group does), and a
 * parent that dies takes its jobs, hence every worker, with it. Workers run without the
 * parent's console (CREATE_NO_WINDOW: a hidden one of their own, which the commands they start
 * share), so a console's Ctrl-C or Ctrl-Break reaches only the parent, whose handler stops the
 * run as SIGINT does on POSIX, and kills them. Windows' pipes cannot be polled with the
 * descriptors: the parent looks at each pipe (PeekNamedPipe) and each process, pausing IDLE_MS
 * between looks while nothing is there.
 */
#ifdef _WIN32
#include <windows.h>

#include <assert.h>
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay_proc.h"
#include "os_win32.h"

#define WORKER_ENV "MCZ_REPLAY_WORKER" /* "SLOT REQ MSG RING TEMP_DIR" (TEMP_DIR "-": none) */
#define PIPE_BYTES 65536
#define IDLE_MS 1            /* the wait's pause while no worker has anything */
#define KILLED_STATUS 137    /* a killed worker's exit code: 128 + SIGKILL, as a shell says */
#define PATH_CHARS 32768     /* the longest path Windows has */

struct replay_proc {
    HANDLE process, job;
    HANDLE req, msg, out; /* the parent's ends; NULL: closed */
    replay_ring *ring;
    bool killed;
};

/* What this process was told when the pool started it as a worker. */
static struct {
    bool read, worker;
    size_t slot;
    HANDLE req, msg, ring;
    char temp_dir[4096]; /* "": none */
} self;

static volatile LONG stop_signal;
static bool stop_reported;
static HANDLE stop_event;
static double workers_cpu;

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
    unsigned long long slot, req, msg, ring;
    int used = 0;
    if (sscanf(text, "%llu %llu %llu %llu %n", &slot, &req, &msg, &ring, &used) != 4 || !used)
        return;
    const char *dir = text + used;
    snprintf(self.temp_dir, sizeof self.temp_dir, "%s", strcmp(dir, "-") == 0 ? "" : dir);
    self.slot = (size_t)slot;
    self.req = handle_of(req);
    self.msg = handle_of(msg);
    self.ring = handle_of(ring);
    self.worker = true;
}

bool replay_proc_is_worker(void)
{
    worker_env_read();
    return self.worker;
}

const char *replay_proc_worker_temp_dir(void)
{
    worker_env_read();
    return self.worker && self.temp_dir[0] ? self.temp_dir : NULL;
}

bool replay_proc_workers_share_input(void) { return false; }

/* An exception nothing handled ends the worker at once, its code the exit code: no error
 * dialog, no debugger (Wine starts one otherwise). */
static LONG WINAPI on_unhandled_exception(EXCEPTION_POINTERS *e)
{
    (void)e;
    return EXCEPTION_EXECUTE_HANDLER;
}

bool replay_proc_attach(size_t *slot, int *req_fd, replay_chan *ch)
{
    worker_env_read();
    if (!self.worker)
        return false;
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
    SetUnhandledExceptionFilter(on_unhandled_exception);
    HANDLE inherited[] = {self.req, self.msg, self.ring};
    for (size_t i = 0; i < sizeof inherited / sizeof *inherited; i++)
        SetHandleInformation(inherited[i], HANDLE_FLAG_INHERIT, 0);
    replay_ring *ring = MapViewOfFile(self.ring, FILE_MAP_ALL_ACCESS, 0, 0, replay_ring_bytes());
    int in = _open_osfhandle((intptr_t)self.req, _O_RDONLY | _O_BINARY);
    int wake = _open_osfhandle((intptr_t)self.msg, _O_WRONLY | _O_BINARY);
    if (!ring || in < 0 || wake < 0)
        _exit(REPLAY_EXIT_GENERAL);
    CloseHandle(self.ring); /* the view keeps the section */
    /* unbuffered: what the replayer printed before a crash reaches the parent (msvcrt has no
     * line buffering) */
    setvbuf(stdout, NULL, _IONBF, 0);
    *slot = self.slot;
    *req_fd = in;
    *ch = (replay_chan){wake, ring, -1, NULL};
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
        snprintf(buf, cap, "worker killed");
        return;
    }
    if (!is_exception(code)) {
        snprintf(buf, cap, "worker exited with status %d", shell_status(code));
        return;
    }
    const char *name = "unknown exception";
    for (size_t i = 0; i < sizeof exceptions / sizeof *exceptions; i++)
        if (exceptions[i].code == code)
            name = exceptions[i].name;
    snprintf(buf, cap, "worker died of exception 0x%08lX (%s)", (unsigned long)code, name);
}

/* ---- The parent's side ---- */

static void close_handle(HANDLE *h)
{
    if (*h && *h != INVALID_HANDLE_VALUE)
        CloseHandle(*h);
    *h = NULL;
}

replay_ring *replay_proc_ring(const replay_proc *p) { return p->ring; }

unsigned replay_proc_events(const replay_proc *p)
{
    (void)p;
    return REPLAY_PROC_OUTPUT | REPLAY_PROC_WAKE; /* a pipe cannot say which woke the wait */
}

bool replay_proc_output_open(const replay_proc *p) { return p->out != NULL; }

int replay_proc_stop_signal(void) { return (int)stop_signal; }

/* The handles a new worker inherits: its ends of the pipes, its ring, its standard input. */
typedef struct worker_handles {
    HANDLE req, msg, out, ring, in;
} worker_handles;

static void worker_handles_close(worker_handles *h)
{
    close_handle(&h->req);
    close_handle(&h->msg);
    close_handle(&h->out);
    close_handle(&h->ring);
    close_handle(&h->in);
}

/* This program started again as the worker of slot, suspended until it is in its job. The
 * handles are inheritable only during the call: no other worker gets them. */
static bool launch(replay_proc *p, size_t slot, const char *temp_dir, const worker_handles *h)
{
    static wchar_t exe[PATH_CHARS];
    DWORD len = GetModuleFileNameW(NULL, exe, PATH_CHARS);
    wchar_t *line = _wcsdup(GetCommandLineW()); /* CreateProcessW may write to it */
    char env[4300];
    snprintf(env, sizeof env, "%zu %llu %llu %llu %s", slot,
             (unsigned long long)(uintptr_t)h->req, (unsigned long long)(uintptr_t)h->msg,
             (unsigned long long)(uintptr_t)h->ring, temp_dir ? temp_dir : "-");
    HANDLE inherit[] = {h->req, h->msg, h->out, h->ring, h->in};
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
    p->process = pi.hProcess;
    p->job = mcz_os_job_kill_on_close();
    if (!p->job || !AssignProcessToJobObject(p->job, pi.hProcess)) {
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

static void proc_close(replay_proc *p)
{
    close_handle(&p->req);
    close_handle(&p->msg);
    close_handle(&p->out);
    if (p->ring)
        UnmapViewOfFile(p->ring);
    p->ring = NULL;
    close_handle(&p->process);
    close_handle(&p->job); /* kills whatever the worker left running in it */
}

replay_proc *replay_proc_start(size_t slot, const replay_pool_ops *ops)
{
    replay_proc *p = calloc(1, sizeof *p);
    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, FALSE};
    worker_handles h = {NULL, NULL, NULL, NULL, NULL};
    bool ok = CreatePipe(&h.req, &p->req, &sa, PIPE_BYTES) &&
              CreatePipe(&p->msg, &h.msg, &sa, PIPE_BYTES) &&
              CreatePipe(&p->out, &h.out, &sa, PIPE_BYTES) &&
              (h.ring = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
                                           (DWORD)replay_ring_bytes(), NULL)) != NULL &&
              (p->ring = MapViewOfFile(h.ring, FILE_MAP_ALL_ACCESS, 0, 0,
                                       replay_ring_bytes())) != NULL &&
              (h.in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                                  OPEN_EXISTING, 0, NULL)) != INVALID_HANDLE_VALUE;
    if (!ok)
        errno = mcz_os_errno_of_win32(GetLastError());
    fflush(NULL);
    ok = ok && launch(p, slot, ops->temp_dir, &h);
    int err = errno;
    worker_handles_close(&h);
    if (!ok) {
        proc_close(p);
        free(p);
        errno = err;
        return NULL;
    }
    return p;
}

/* Bytes waiting in the pipe; *gone when it ended (its writer closed it, and it is empty). */
static DWORD pipe_waiting(HANDLE h, bool *gone)
{
    DWORD avail = 0;
    if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
        *gone = true;
    return avail;
}

static bool ended(const replay_proc *p)
{
    return WaitForSingleObject(p->process, 0) == WAIT_OBJECT_0;
}

/* Something for the pool: a wake-up, output, an end of either, the worker's end. */
static bool has_news(const replay_proc *p)
{
    bool gone = false;
    if (pipe_waiting(p->msg, &gone) > 0 || gone)
        return true;
    if (p->out && (pipe_waiting(p->out, &gone) > 0 || gone))
        return true;
    return ended(p);
}

int replay_proc_wait(replay_proc *const *procs, size_t n, int timeout_ms, char *why,
                     size_t cap)
{
    (void)why, (void)cap;
    double until = tool_now() + timeout_ms / 1000.0;
    for (;;) {
        for (size_t i = 0; i < n; i++)
            if (procs[i] && has_news(procs[i]))
                return MCZ_OK;
        if (stop_signal && !stop_reported) {
            stop_reported = true;
            return MCZ_OK;
        }
        double left_ms = timeout_ms < 0 ? IDLE_MS : (until - tool_now()) * 1000.0;
        if (left_ms <= 0)
            return MCZ_OK;
        WaitForSingleObject(stop_event, left_ms < IDLE_MS ? (DWORD)left_ms : IDLE_MS);
    }
}

bool replay_proc_wakeups(replay_proc *p)
{
    for (;;) {
        bool gone = false;
        DWORD avail = pipe_waiting(p->msg, &gone);
        if (gone)
            return false;
        if (avail == 0)
            return !ended(p);
        uint8_t bytes[256];
        DWORD got;
        if (!ReadFile(p->msg, bytes, avail < sizeof bytes ? avail : sizeof bytes, &got, NULL))
            return false;
    }
}

long replay_proc_output(replay_proc *p, char *buf, size_t cap)
{
    assert(cap > 0);
    bool gone = false;
    DWORD avail = pipe_waiting(p->out, &gone);
    if (!gone && avail == 0)
        return -1; /* a command the worker left may still hold the pipe: never wait for it */
    DWORD got = 0;
    if (gone || !ReadFile(p->out, buf, avail < cap ? avail : (DWORD)cap, &got, NULL) || !got) {
        close_handle(&p->out);
        return 0;
    }
    return (long)got;
}

int replay_proc_send(replay_proc *p, const void *buf, size_t len)
{
    DWORD put = 0;
    if (!p->req || !WriteFile(p->req, buf, (DWORD)len, &put, NULL) || put != len)
        return -1;
    return 0;
}

void replay_proc_close_input(replay_proc *p) { close_handle(&p->req); }

void replay_proc_kill(replay_proc *p)
{
    p->killed = true;
    TerminateJobObject(p->job, KILLED_STATUS);
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

int replay_proc_reap(replay_proc *p, char *how, size_t cap)
{
    DWORD code = 0;
    if (WaitForSingleObject(p->process, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(p->process, &code)) {
        snprintf(how, cap, "worker lost (Windows error %lu)", (unsigned long)GetLastError());
        return -1;
    }
    workers_cpu += cpu_seconds_of(p->process);
    describe_exit(code, p->killed, how, cap);
    /* An exception is a worker's death by a fault, as a signal is on POSIX (128 + SIGSEGV's 11):
     * the replayer's crash, blamed on its context, never the 255 a worker exits with on an
     * error of mcz-replay's own (replay_sched.c's outside_death). */
    return is_exception(code) ? 128 + 11 : shell_status(code);
}

void replay_proc_free(replay_proc **pp)
{
    if (!*pp)
        return;
    proc_close(*pp);
    free(*pp);
    *pp = NULL;
}

/* Runs on a thread the system starts for the event: the run stops as on SIGINT (Ctrl-C,
 * Ctrl-Break) or SIGTERM (the console closed, a log-off, a shutdown). */
static BOOL WINAPI on_console_event(DWORD event)
{
    InterlockedExchange(&stop_signal,
                        event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT ? SIGINT : SIGTERM);
    SetEvent(stop_event);
    return TRUE;
}

void replay_proc_run_begin(void)
{
    stop_signal = 0;
    stop_reported = false;
    stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

void replay_proc_run_end(void)
{
    SetConsoleCtrlHandler(on_console_event, FALSE);
    close_handle(&stop_event);
}

double replay_proc_cpu_seconds(bool workers)
{
    return workers ? workers_cpu : cpu_seconds_of(GetCurrentProcess());
}

bool replay_proc_readable(int fd, int wait_ms)
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

/* ---- --exec commands ---- */

/* A new file at path for a child's output (NULL: this process's handle std). */
static HANDLE output_for_child(const char *path, DWORD std)
{
    if (!path)
        return GetStdHandle(std);
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    return CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                       CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
}

int replay_proc_command_start(char *const argv[], const char *out_path, const char *err_path,
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
         * current one, the system's, PATH), and joins this worker's job */
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

int replay_proc_command_wait(int64_t handle)
{
    HANDLE process = (HANDLE)(intptr_t)handle;
    DWORD code = 255;
    WaitForSingleObject(process, INFINITE);
    GetExitCodeProcess(process, &code);
    CloseHandle(process);
    return shell_status(code);
}

/* ---- The system beside processes ---- */

void *replay_os_library_open(const char *path, char *msg, size_t cap)
{
    /* a relative name is the user's file, never one of the system's search path */
    char full[PATH_CHARS];
    DWORD len = GetFullPathNameA(path, sizeof full, full, NULL);
    HMODULE lib = len > 0 && len < sizeof full ? LoadLibraryA(full) : NULL;
    if (!lib)
        snprintf(msg, cap, "cannot load plugin: %s: Windows error %lu", path,
                 (unsigned long)GetLastError());
    return (void *)lib;
}

void *replay_os_library_symbol(void *lib, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *sym;
    memcpy(&sym, &f, sizeof sym); /* function to object pointer, as dlsym gives it */
    return sym;
}

void replay_os_library_close(void *lib) { FreeLibrary((HMODULE)lib); }
#endif /* _WIN32 */
