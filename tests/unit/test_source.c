/*
 * test_source.c - sources (io/source.h): views of a mapped file, of a FIFO spooled to an
 * unlinked temporary file, of bytes in memory; ranges past the end refused without a crash;
 * references (the last close frees); a prefetch of a local source does nothing; opening names
 * what failed; an input's file name (a URL's last path segment).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../io/source.h"

static char dir[64];

static int dir_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/mcz_test_source.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/f", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/fifo", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}

static void pattern(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 7 + 3);
}

/* Every view is the image at its offset, and holds the bytes. */
static void check_views(mcz_src *s, const uint8_t *want, size_t n)
{
    assert_int_equal(mcz_src_size(s), n);
    const uint8_t *a, *b;
    assert_int_equal(mcz_src_view(s, 0, n, &a, NULL), MCZ_OK);
    assert_memory_equal(a, want, n);
    assert_int_equal(mcz_src_view(s, 1000, 24, &b, NULL), MCZ_OK);
    assert_ptr_equal(b, a + 1000);
    assert_int_equal(mcz_src_view(s, n, 0, &b, NULL), MCZ_OK); /* empty, at the end */
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(mcz_src_view(s, n - 10, 11, &b, &d), MCZ_ECORRUPT);
    assert_non_null(strstr(d.message, "past its end"));
    assert_int_equal(mcz_src_view(s, UINT64_MAX, 2, &b, NULL), MCZ_ECORRUPT);
    mcz_src_range r = {0, n};
    assert_int_equal(mcz_src_prefetch(s, &r, 1, NULL), MCZ_OK);
    assert_false(mcz_src_remote(s));
}

static void test_file_source(void **state)
{
    (void)state;
    uint8_t bytes[5000];
    pattern(bytes, sizeof bytes);
    char path[128];
    snprintf(path, sizeof path, "%s/f", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, sizeof bytes, f), sizeof bytes);
    fclose(f);
    mcz_src *s = mcz_src_open(path, 0, NULL);
    assert_non_null(s);
    assert_string_equal(mcz_src_name(s), path);
    check_views(s, bytes, sizeof bytes);
    uint64_t at = 10;
    assert_int_equal(mcz_src_data_end(s, &at), sizeof bytes);
    assert_int_equal(at, 10);
    uint64_t dropped = 0;
    mcz_src_drop_behind(s, &dropped, 4000);
    mcz_src_close(s);
}

/* A FIFO is read once, to its end, and viewed like a file. */
static void test_fifo_source(void **state)
{
    (void)state;
    uint8_t bytes[200000];
    pattern(bytes, sizeof bytes);
    char path[128];
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(path, O_WRONLY);
        for (size_t done = 0; fd >= 0 && done < sizeof bytes;) {
            ssize_t n = write(fd, bytes + done, sizeof bytes - done);
            if (n <= 0)
                _exit(1);
            done += (size_t)n;
        }
        _exit(fd >= 0 ? 0 : 1);
    }
    mcz_src *s = mcz_src_open(path, 0, NULL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_non_null(s);
    check_views(s, bytes, sizeof bytes);
    mcz_src_close(s);
}

/* Memory: not copied; references keep it open until the last close. */
static void test_memory_source_and_references(void **state)
{
    (void)state;
    static uint8_t bytes[3000];
    pattern(bytes, sizeof bytes);
    mcz_src *s = mcz_src_memory(bytes, sizeof bytes, "mem", NULL);
    assert_non_null(s);
    check_views(s, bytes, sizeof bytes);
    const uint8_t *v;
    assert_int_equal(mcz_src_view(s, 5, 1, &v, NULL), MCZ_OK);
    assert_ptr_equal(v, bytes + 5);
    assert_ptr_equal(mcz_src_ref(s), s);
    mcz_src_close(s);
    assert_int_equal(mcz_src_view(s, 7, 1, &v, NULL), MCZ_OK); /* one owner left */
    assert_int_equal(*v, bytes[7]);
    mcz_src_close(s);
    mcz_src_close(NULL);
}

static void test_open_errors_name_the_source(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/none", dir);
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_null(mcz_src_open(path, 0, &d));
    assert_int_equal(d.code, MCZ_EIO);
    assert_string_equal(d.subject, path); /* named as data, not in the text */
    assert_null(strstr(d.message, path));
    mcz_diag_clear(&d);
    assert_null(mcz_src_open(dir, 0, &d)); /* a directory */
    assert_int_equal(d.code, MCZ_EIO);
    assert_string_equal(d.subject, dir);
}

static void test_urls_and_file_names(void **state)
{
    (void)state;
    assert_true(mcz_src_is_url("HTTP://h/x.mcz"));
    assert_true(mcz_src_is_url("https://h/x.mcz"));
    assert_false(mcz_src_is_url("http:/h"));
    assert_false(mcz_src_is_url("-"));
    char buf[64];
    assert_int_equal(mcz_input_file_name("http://h:80/d/c.mcz?v=1#x", buf, sizeof buf), 5);
    assert_string_equal(buf, "c.mcz");
    assert_int_equal(mcz_input_file_name("http://h/", buf, sizeof buf), 0);
    assert_int_equal(mcz_input_file_name("http://h", buf, sizeof buf), 0);
    assert_int_equal(mcz_input_file_name("http://h/d/..", buf, sizeof buf), 0);
    assert_int_equal(mcz_input_file_name("d/x.mch", buf, sizeof buf), 7);
    assert_string_equal(buf, "d/x.mch");
    assert_int_equal(mcz_input_file_name("d/x.mch", buf, 7), 0); /* does not fit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_file_source, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_fifo_source, dir_setup, dir_teardown),
        cmocka_unit_test(test_memory_source_and_references),
        cmocka_unit_test_setup_teardown(test_open_errors_name_the_source, dir_setup,
                                        dir_teardown),
        cmocka_unit_test(test_urls_and_file_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
