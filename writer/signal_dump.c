/*
 * signal_dump.c - mcz_writer_dump_on_signal (FORMAT.md §12).
 *
 * The request signal only sets a flag and posts the writer's semaphore (sem_post is
 * async-signal-safe); the service thread then runs mcz_writer_dump like any caller. Windows
 * delivers no such signal to a process: there the request is refused (MCZ_EUNSUPPORTED), and a
 * caller dumps from a thread of its own with mcz_writer_dump, on whatever event it waits for.
 *
 * A fatal fault (a signal on POSIX; on Windows an unhandled exception, or abort) writes the
 * chunks already compressed from the handler itself, with the async-signal-safe calls of
 * platform/platform.h only (create, write, fsync, close, rename), from buffers prepared beforehand:
 * the header and dictionary, and each retained chunk's frames and index rows (a MEMORY ring
 * never spills them to a file, writer/spill.c; the index is streamed through a stack buffer,
 * in its raw form: compressing it would allocate).
 * It takes no lock, since the crashing thread may hold it. It reads the retained list through
 * atomics; the writer never frees a chunk once a fatal dump has started, and a chunk unlinked
 * meanwhile keeps its link, so the dump is a consistent archive of the list as it was when the
 * dump started (plus, possibly, a chunk appended during it). Then platform/platform.h gives
 * the fault back to what handled it before (the previous action restored and the signal raised
 * again, or the previous exception filter), so the process dies (or the previous handler runs)
 * as it would have without mcz.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "mcz_common.h"
#include "writer_impl.h"

/* One writer per process holds the handlers; everything the handlers read is set up before
 * signal_writer is published and left alone until it is withdrawn. */
static _Atomic(mcz_writer *) signal_writer;
static int request_signo;
static mcz_os_signal_saved previous_request;
static bool fatal_installed;
static char fatal_path[PATH_MAX], fatal_partial[PATH_MAX];
static atomic_flag fatal_started = ATOMIC_FLAG_INIT;

static void request_handler(int sig)
{
    (void)sig;
    int saved = errno;
    mcz_writer *w = atomic_load(&signal_writer);
    if (w) {
        atomic_store(&w->dump_wanted, true);
        mcz_sem_post(&w->wake);
    }
    errno = saved;
}

/* The fault hook (platform/platform.h mcz_os_fatal_catch): the first fault dumps, a later one (in
 * another thread, or in the dump itself) leaves the file as it is. */
static void fatal_dump(void)
{
    mcz_writer *w = atomic_load(&signal_writer);
    if (w && !atomic_flag_test_and_set(&fatal_started))
        mcz_wr_dump_fatal(w, fatal_partial, fatal_path);
}

static int check_request(const mcz_writer *w, const char *path, int request_signal,
                         bool on_fatal, mcz_diag *diag)
{
    if (!w || !path)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump_on_signal: NULL argument");
    unsigned can = w->out->ops->flags;
    if (!(can & MCZ_WR_OUT_DUMPS) || (on_fatal && !(can & MCZ_WR_OUT_IN_MEMORY)))
        return mcz_diag_set(diag, MCZ_ESTATE, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump_on_signal: %s",
                            on_fatal ? "fatal-signal dumps need a MEMORY writer" : "not for an ATOMIC writer");
    if (request_signal < 0 || request_signal >= NSIG)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump_on_signal: bad signal %d", request_signal);
    if (strlen(path) + sizeof ".partial" > PATH_MAX)
        return mcz_fail_at(diag, path, MCZ_ELIMIT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "path too long");
    return MCZ_OK;
}

/* Paths and handlers, with w already holding signal_writer. */
static int install_all(mcz_writer *w, const char *path, int request_signal, bool on_fatal,
                       mcz_diag *diag)
{
    w->signal_path = strdup(path);
    if (!w->signal_path)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    snprintf(fatal_path, sizeof fatal_path, "%s", path);
    snprintf(fatal_partial, sizeof fatal_partial, "%s.partial", path);
    atomic_flag_clear(&fatal_started);
    request_signo = request_signal;
    int rc = request_signal
                 ? mcz_os_signal_catch(request_signal, request_handler, &previous_request)
                 : MCZ_OK;
    if (rc != MCZ_OK) {
        request_signo = 0;
        return mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "cannot handle signal %d%s",
                            request_signal,
                            rc == MCZ_EUNSUPPORTED ? ": no request signals on this system" : "");
    }
    if (on_fatal && mcz_os_fatal_catch(fatal_dump) != MCZ_OK)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "cannot handle the fatal signals");
    fatal_installed = on_fatal;
    return MCZ_OK;
}

int mcz_writer_dump_on_signal(mcz_writer *w, const char *path, int request_signal,
                              bool on_fatal, mcz_diag *diag)
{
    int rc = check_request(w, path, request_signal, on_fatal, diag);
    if (rc != MCZ_OK)
        return rc;
    mcz_writer *none = NULL;
    if (!atomic_compare_exchange_strong(&signal_writer, &none, w))
        return mcz_diag_set(diag, MCZ_ESTATE, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_writer_dump_on_signal: a writer already holds the handlers");
    rc = install_all(w, path, request_signal, on_fatal, diag);
    if (rc != MCZ_OK)
        mcz_wr_signals_remove(w);
    return rc;
}

void mcz_wr_signals_remove(mcz_writer *w)
{
    if (atomic_load(&signal_writer) != w)
        return;
    if (request_signo)
        mcz_os_signal_restore(request_signo, &previous_request);
    request_signo = 0;
    if (fatal_installed)
        mcz_os_fatal_release();
    fatal_installed = false;
    atomic_store(&signal_writer, NULL);
}
