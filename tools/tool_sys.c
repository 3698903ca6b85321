/* tool_sys.c - the small system helpers every program wants once: a clock, a whole write. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

double tool_now(void)
{
    return (double)mcz_os_monotonic_ns() / 1e9;
}

int tool_close_stdout(void)
{
    bool pipe = mcz_os_stdout_is_pipe();
    bool failed = ferror(stdout) != 0;
    int err = 0;
    if (fflush(stdout) != 0) {
        failed = true;
        err = errno;
    }
    if (fclose(stdout) != 0 && !failed) {
        failed = true;
        err = errno;
    }
    /* A write to a pipe fails only when its reader is gone: not an error. */
    if (!failed || err == EPIPE || (err == 0 && pipe))
        return 0;
    tool_error("standard output: write failed%s%s", err ? ": " : "", err ? strerror(err) : "");
    return -1;
}
