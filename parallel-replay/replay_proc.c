/*
 * replay_proc.c - mcz-replay's worker processes (replay_proc.h), on the platform's worker
 * facility (platform/worker.h: forked on POSIX, the program started again on Windows): each
 * worker's shared region is its ring, its wake-up pipe and the ring its channel. Also a
 * plugin's library opened with mcz-replay's words for a failure. The rest of mcz-replay calls
 * the platform's functions that need no words of its own (commands, stop signals, CPU time)
 * directly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay_proc.h"

/* The pool's callbacks, for the worker a fork starts (a run at a time). */
static const replay_pool_ops *worker_ops;

static void worker_main(void *arg, const mcz_os_worker_self *self)
{
    (void)arg;
    replay_chan ch = {self->wake_fd, self->shared, -1, NULL};
    worker_ops->child(worker_ops->arg, self->slot, self->in_fd, &ch);
}

bool replay_proc_attach(size_t *slot, int *req_fd, replay_chan *ch)
{
    mcz_os_worker_self self;
    if (!mcz_os_worker_attach(&self))
        return false;
    *slot = self.slot;
    *req_fd = self.in_fd;
    *ch = (replay_chan){self.wake_fd, self.shared, -1, NULL};
    return true;
}

replay_proc *replay_proc_start(size_t slot, const replay_pool_ops *ops)
{
    worker_ops = ops;
    return mcz_os_worker_start(slot, replay_ring_bytes(), ops->temp_dir, worker_main, NULL);
}

int replay_proc_wait(replay_proc *const *procs, size_t n, int timeout_ms, char *why,
                     size_t cap)
{
    if (mcz_os_worker_wait(procs, n, timeout_ms) == 0)
        return MCZ_OK;
    snprintf(why, cap, "waiting for the workers: %s", strerror(errno));
    return MCZ_EIO;
}

int replay_proc_reap(replay_proc *p, char *how, size_t cap)
{
    char ended[128];
    int status = mcz_os_worker_reap(p, ended, sizeof ended);
    snprintf(how, cap, "worker %s", ended);
    return status;
}

/* ---- The plugins' libraries ---- */

void *replay_os_library_open(const char *path, char *msg, size_t cap)
{
    char why[512];
    void *lib = mcz_os_library_open(path, why, sizeof why);
    if (!lib)
        snprintf(msg, cap, "cannot load plugin: %s", why);
    return lib;
}
