/*
 * test_worker.c - the programs' own system facilities of the platform, the same contract on
 * every system: worker processes (platform/worker.h: started in a slot with their pipes and a
 * shared region, waited for, killed, reaped with how they ended), commands with their output
 * to a file, and program.h's path names and sparse file. On Windows a worker is this program
 * started again: main hands it to its work before cmocka runs anything; a command is this
 * program too, told to print and exit at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <signal.h> /* raise: a stop signal watched */
#endif

#include <cmocka.h>

#include "../../platform/program.h"
#include "../../platform/worker.h"
#include "../../tools/tool.h"

#define COMMAND_EXIT_ENV "MCZ_TEST_COMMAND_EXIT" /* this program as a command: print, exit */
#define SLOT_ANSWERS 3 /* a worker that answers one request, then exits 7 */
#define SLOT_BLOCKS 4  /* a worker that waits for a request that never comes */
#define SHARED_BYTES 4096

/* ---- The workers' side ---- */

static _Noreturn void worker_main(void *arg, const mcz_os_worker_self *self)
{
    (void)arg;
    char request = 0;
    ptrdiff_t got = mcz_os_read(self->in_fd, &request, 1);
    if (self->slot == SLOT_ANSWERS && got == 1) {
        snprintf(self->shared, SHARED_BYTES, "%zu:%c", self->slot, request);
        printf("worker %zu answered\n", self->slot);
        fflush(stdout);
        (void)mcz_os_write_all(self->wake_fd, "!", 1);
        _Exit(7); /* as a replay worker ends: no exit handler (a sanitizer's leak check) */
    }
    _Exit(9);
}

/* ---- Workers ---- */

/* Waits for the worker's end, the start of its output gathered into out (NUL-terminated). */
static void gather_until_gone(mcz_os_worker *w, char *out, size_t cap)
{
    size_t len = 0;
    bool alive = true;
    for (int round = 0; round < 100000 && (alive || mcz_os_worker_output_open(w)); round++) {
        assert_int_equal(mcz_os_worker_wait(&w, 1, 1000), 0);
        char chunk[256];
        long n;
        while (mcz_os_worker_output_open(w) &&
               (n = mcz_os_worker_output(w, chunk, sizeof chunk)) > 0) {
            size_t keep = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;
            memcpy(out + len, chunk, keep);
            len += keep;
        }
        if (alive)
            alive = mcz_os_worker_wakeups(w);
    }
    out[len] = '\0';
    assert_false(alive);
    assert_false(mcz_os_worker_output_open(w));
}

static void test_worker_answers_and_exits(void **state)
{
    (void)state;
    mcz_os_worker *w = mcz_os_worker_start(SLOT_ANSWERS, SHARED_BYTES, NULL, worker_main, NULL);
    assert_non_null(w);
    assert_int_equal(((const char *)mcz_os_worker_shared(w))[0], '\0'); /* zero-filled */
    assert_int_equal(mcz_os_worker_send(w, "x", 1), 0);
    char out[256], how[128];
    gather_until_gone(w, out, sizeof out);
    assert_int_equal(mcz_os_worker_reap(w, how, sizeof how), 7);
    assert_string_equal(how, "exited with status 7");
    assert_string_equal((const char *)mcz_os_worker_shared(w), "3:x");
    assert_non_null(strstr(out, "worker 3 answered"));
    mcz_os_worker_free(&w);
    assert_null(w);
}

static void test_worker_killed(void **state)
{
    (void)state;
    mcz_os_worker *w = mcz_os_worker_start(SLOT_BLOCKS, SHARED_BYTES, NULL, worker_main, NULL);
    assert_non_null(w);
    mcz_os_worker_kill(w);
    char how[128];
    assert_int_equal(mcz_os_worker_reap(w, how, sizeof how), 137); /* 128 + SIGKILL */
    assert_non_null(strstr(how, "killed"));
    assert_false(mcz_os_worker_wakeups(w)); /* its wake-up pipe ended with it */
    mcz_os_worker_free(&w);
}

/* Its input closed, a worker reads its end: the blocking one exits 9. */
static void test_worker_input_closed(void **state)
{
    (void)state;
    mcz_os_worker *w = mcz_os_worker_start(SLOT_BLOCKS, SHARED_BYTES, NULL, worker_main, NULL);
    assert_non_null(w);
    mcz_os_worker_close_input(w);
    assert_int_equal(mcz_os_worker_send(w, "x", 1), -1);
    char out[64], how[128];
    gather_until_gone(w, out, sizeof out);
    assert_int_equal(mcz_os_worker_reap(w, how, sizeof how), 9);
    assert_string_equal(how, "exited with status 9");
    mcz_os_worker_free(&w);
}

static void test_stop_watch(void **state)
{
    (void)state;
#ifdef _WIN32
    skip(); /* a console control event: tests/cross/run-windows.sh sends one from outside */
#else
    mcz_os_stop_watch_begin();
    assert_int_equal(mcz_os_stop_watched(), 0);
    raise(SIGPIPE); /* ignored */
    assert_int_equal(mcz_os_stop_watched(), 0);
    raise(SIGTERM); /* noted, the process goes on */
    assert_int_equal(mcz_os_stop_watched(), SIGTERM);
    mcz_os_stop_watch_end();
    mcz_os_stop_watch_begin(); /* a new watch starts with none */
    assert_int_equal(mcz_os_stop_watched(), 0);
    mcz_os_stop_watch_end();
#endif
}

/* ---- Commands ---- */

static void test_command(void **state)
{
    (void)state;
    /* Under qemu-user (tests/cross/run.sh) this program cannot start itself again (the system
     * runs its own machine's programs, not the emulated one's), and a program that is missing
     * shows only as the child's exit 127: the spawn does not learn of the exec's failure. */
    if (getenv("MCZ_TEST_EMULATED"))
        skip();
    int64_t handle = 0;
    int exec_errno = -1;
    char missing[] = "mcz-no-such-program-here";
    char *gone[] = {missing, NULL};
    assert_int_equal(mcz_os_command_start(gone, NULL, NULL, &handle, &exec_errno), 127);
    assert_int_equal(exec_errno, ENOENT);

    char *self = mcz_os_self_path();
    assert_non_null(self);
    char out_path[1024];
    snprintf(out_path, sizeof out_path, "%s/mcz-test-worker.%ld.out", mcz_os_temp_dir(),
             mcz_os_process_id());
    char *argv[] = {self, NULL};
    assert_int_equal(mcz_os_setenv(COMMAND_EXIT_ENV, "5"), 0);
    assert_int_equal(mcz_os_command_start(argv, out_path, NULL, &handle, &exec_errno), MCZ_OK);
    assert_int_equal(exec_errno, 0);
    assert_int_equal(mcz_os_command_wait(handle), 5);
    assert_int_equal(mcz_os_setenv(COMMAND_EXIT_ENV, ""), 0);
    FILE *f = fopen(out_path, "rb");
    assert_non_null(f);
    char text[64] = {0};
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    mcz_os_unlink(out_path);
    text[n] = '\0';
    assert_non_null(strstr(text, "command output"));
    free(self);
}

/* ---- Path names, the sparse file ---- */

static void test_path_names(void **state)
{
    (void)state;
    assert_string_equal(mcz_os_base_name("a/b/superpmi"), "superpmi");
    assert_string_equal(mcz_os_base_name("superpmi"), "superpmi");
    char *dir = mcz_os_dir_name("a/b/superpmi");
    assert_string_equal(dir, "a/b");
    free(dir);
    errno = 0;
    assert_null(mcz_os_dir_name("superpmi"));
    assert_int_equal(errno, EINVAL);
    assert_false(mcz_os_path_is_absolute("a/b"));
    char *cwd = mcz_os_getcwd();
    assert_non_null(cwd);
    assert_true(mcz_os_path_is_absolute(cwd));
    free(cwd);
    char sep = mcz_os_path_list_separator();
    assert_true(sep == ':' || sep == ';');
    const char *suffix = mcz_os_program_suffix();
    assert_true(strcmp(suffix, "") == 0 || strcmp(suffix, ".exe") == 0);
}

static void test_sparse_file(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/mcz-test-worker.%ld.sparse", mcz_os_temp_dir(),
             mcz_os_process_id());
    mcz_os_unlink(path);
    const uint64_t size = 1u << 20;
    int fd = mcz_os_create_sparse(path, size);
    assert_true(fd >= 0);
    mcz_os_file_info info;
    assert_int_equal(mcz_os_fstat(fd, &info), 0);
    assert_int_equal(info.size, size);
    assert_int_equal(mcz_os_pwrite_all(fd, "context", 7, 500000), MCZ_OK);
    char back[8] = {0}, zeros[8] = {1};
    assert_int_equal(mcz_os_pread(fd, back, 7, 500000), 7);
    assert_string_equal(back, "context");
    assert_int_equal(mcz_os_pread(fd, zeros, sizeof zeros, 1000), (int64_t)sizeof zeros);
    assert_memory_equal(zeros, "\0\0\0\0\0\0\0\0", sizeof zeros); /* unwritten: zeros */
    errno = 0;
    assert_int_equal(mcz_os_create_sparse(path, size), -1); /* a new file only */
    assert_int_equal(errno, EEXIST);
    assert_int_equal(mcz_os_close(fd), 0);
    assert_int_equal(mcz_os_unlink(path), 0);
}

int main(void)
{
    mcz_os_worker_self self;
    if (mcz_os_worker_attach(&self)) /* Windows: this program started again as a worker */
        worker_main(NULL, &self);
    const char *code = getenv(COMMAND_EXIT_ENV);
    if (code && *code) { /* this program run as a command */
        printf("command output\n");
        fflush(stdout);
        return atoi(code);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_answers_and_exits),
        cmocka_unit_test(test_worker_killed),
        cmocka_unit_test(test_worker_input_closed),
        cmocka_unit_test(test_stop_watch),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_path_names),
        cmocka_unit_test(test_sparse_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
