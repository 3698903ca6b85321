/*
 * test_files.c - file images (regular, empty, missing, non-regular) and atomic output files
 * (commit creates, abort leaves the old file and no temporary behind).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#define pipe(fds) _pipe((fds), 4096, _O_BINARY)
#endif

#include <cmocka.h>

#include "../../common/mcz_common.h"
#include "../../platform/platform.h"

typedef struct test_dir {
    char path[64];
} test_dir;

static int dir_setup(void **state)
{
    test_dir *d = malloc(sizeof *d);
    if (!d)
        return -1;
    snprintf(d->path, sizeof d->path, "/tmp/mcz_test_files.XXXXXX");
    if (!mcz_os_mkdtemp(d->path)) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static int dir_teardown(void **state)
{
    test_dir *d = *state;
    DIR *dir = opendir(d->path);
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        char child[512];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(child, sizeof child, "%s/%s", d->path, e->d_name);
            unlink(child);
        }
    }
    if (dir)
        closedir(dir);
    rmdir(d->path);
    free(d);
    return 0;
}

/* Entries in the test directory other than . and .. */
static int dir_entries(void **state)
{
    const test_dir *d = *state;
    DIR *dir = opendir(d->path);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dir);
    return n;
}

/* path = the test directory's entry `name` */
static void in_dir(void **state, const char *name, char *path, size_t cap)
{
    const test_dir *d = *state;
    snprintf(path, cap, "%s/%s", d->path, name);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void assert_file_is(const char *path, const char *text)
{
    mcz_file f;
    assert_int_equal(mcz_file_map(path, &f, NULL), 0);
    assert_int_equal(f.size, strlen(text));
    assert_memory_equal(f.data, text, f.size);
    mcz_file_unmap(&f);
}

static void test_map_regular_and_empty(void **state)
{
    char path[128];
    in_dir(state, "data", path, sizeof path);
    write_file(path, "hello", 5);
    assert_file_is(path, "hello");

    in_dir(state, "empty", path, sizeof path);
    write_file(path, "", 0);
    mcz_file f;
    assert_int_equal(mcz_file_map(path, &f, NULL), 0);
    assert_int_equal(f.size, 0);
    assert_non_null(f.data);
    mcz_file_unmap(&f);
    mcz_file_unmap(&f); /* idempotent */

    assert_int_equal(mcz_file_map("/dev/null", &f, NULL), 0); /* not mappable: read */
    assert_int_equal(f.size, 0);
    assert_false(mcz_file_spooled(&f)); /* an empty stream: nothing copied */
    mcz_file_unmap(&f);
}

/* A stream (a pipe as standard input) is copied and says so; a regular file does not. */
static void test_map_stream_is_spooled(void **state)
{
    char path[128];
    in_dir(state, "regular", path, sizeof path);
    write_file(path, "hello", 5);
    mcz_file f;
    assert_int_equal(mcz_file_map(path, &f, NULL), 0);
    assert_false(mcz_file_spooled(&f));
    mcz_file_unmap(&f);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "piped", 5), 5);
    close(fds[1]);
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    close(fds[0]);
    int rc = mcz_file_map("-", &f, NULL);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    assert_int_equal(rc, 0);
    assert_int_equal(f.size, 5);
    assert_memory_equal(f.data, "piped", 5);
    assert_true(mcz_file_spooled(&f));
    mcz_file_unmap(&f);
    assert_false(mcz_file_spooled(&f));
    assert_false(mcz_file_spooled(NULL));
}

/* A sparse file: 4 KiB of data at 1 MiB and at 3 MiB of 4 MiB + 1 (the last byte data too).
 * Where the file system cannot tell holes, the whole file is one extent, which is also right. */
static void test_data_extents_skip_holes(void **state)
{
    char path[128];
    in_dir(state, "sparse", path, sizeof path);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    static const uint8_t page[4096] = {1};
    const long at[] = {1L << 20, 3L << 20, 4L << 20};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fseek(fp, at[i], SEEK_SET), 0);
        assert_int_equal(fwrite(page, 1, i == 2 ? 1 : sizeof page, fp), i == 2 ? 1 : sizeof page);
    }
    fclose(fp);
    mcz_file f;
    assert_int_equal(mcz_file_map(path, &f, NULL), 0);
    uint64_t pos = 0, end = mcz_file_data_end(&f, &pos);
    if (pos == 0 && end == f.size) {
        mcz_file_unmap(&f);
        skip(); /* no SEEK_DATA here */
    }
    assert_int_equal(pos, 1u << 20); /* the leading hole is skipped */
    assert_true(end >= (1u << 20) + 4096 && end < 3u << 20);
    pos = end; /* in the hole after it */
    end = mcz_file_data_end(&f, &pos);
    assert_int_equal(pos, 3u << 20);
    pos += 100; /* inside an extent: stays */
    assert_int_equal(mcz_file_data_end(&f, &pos), end);
    assert_int_equal(pos, (3u << 20) + 100);
    pos = end;
    end = mcz_file_data_end(&f, &pos);
    assert_true(pos <= 4u << 20 && end == f.size); /* the last extent ends the file */
    pos = f.size + 7; /* past the end */
    assert_int_equal(mcz_file_data_end(&f, &pos), f.size);
    assert_int_equal(pos, f.size);
    for (pos = 0; pos < f.size; pos = mcz_file_data_end(&f, &pos)) /* data only, all of it */
        ;
    assert_int_equal(pos, f.size);
    mcz_file_unmap(&f);
}

static void test_map_missing_names_the_path(void **state)
{
    char path[128];
    in_dir(state, "absent.mch", path, sizeof path);
    mcz_file f;
    mcz_diag diag;
    assert_int_equal(mcz_file_map(path, &f, &diag), MCZ_EIO);
    assert_int_equal(diag.code, MCZ_EIO);
    assert_string_equal(diag.subject, path); /* named as data, not in the text */
    assert_null(strstr(diag.message, path));
    assert_int_equal(f.size, 0);
    mcz_file_unmap(&f);
}

static void test_outfile_commit_creates(void **state)
{
    char path[128];
    in_dir(state, "out.mch", path, sizeof path);
    mcz_outfile *o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(access(path, F_OK), -1); /* nothing at the path before commit */
    assert_int_equal(mcz_outfile_write(o, "abc", 3), 0);
    assert_int_equal(mcz_outfile_write(o, NULL, 0), 0);
    assert_int_equal(mcz_outfile_write(o, "de", 2), 0);
    assert_int_equal(mcz_outfile_tell(o), 5);
    assert_int_equal(dir_entries(state), 1); /* the temporary */
    assert_int_equal(mcz_outfile_commit(o, NULL), 0);
    assert_file_is(path, "abcde");
    assert_int_equal(dir_entries(state), 1);

    /* committing again replaces the file */
    o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(mcz_outfile_write(o, "new", 3), 0);
    assert_int_equal(mcz_outfile_commit(o, NULL), 0);
    assert_file_is(path, "new");
    assert_int_equal(dir_entries(state), 1);
}

/* A patch overwrites what was written, after the buffered bytes reach the file; one past what
 * was written, or on a stream, fails and the failure is sticky. */
static void test_outfile_patch(void **state)
{
    char path[128];
    in_dir(state, "patched.mct", path, sizeof path);
    mcz_outfile *o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(mcz_outfile_write(o, "0000abcd", 8), 0);
    assert_int_equal(mcz_outfile_patch(o, 0, "12", 2), 0);
    assert_int_equal(mcz_outfile_write(o, "ef", 2), 0);
    assert_int_equal(mcz_outfile_patch(o, 8, "EF", 2), 0);
    assert_int_equal(mcz_outfile_tell(o), 10);
    assert_int_equal(mcz_outfile_commit(o, NULL), 0);
    assert_file_is(path, "1200abcdEF");

    o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(mcz_outfile_write(o, "abc", 3), 0);
    assert_int_equal(mcz_outfile_patch(o, 2, "xy", 2), MCZ_EINVAL); /* past the end */
    assert_int_equal(mcz_outfile_write(o, "d", 1), MCZ_EINVAL);
    assert_int_equal(mcz_outfile_commit(o, NULL), MCZ_EINVAL);
    assert_file_is(path, "1200abcdEF"); /* the failed output replaced nothing */

#ifndef _WIN32 /* a device by a POSIX name; Windows has none at /dev/null */
    o = mcz_outfile_open("/dev/null", NULL);
    assert_non_null(o);
    assert_true(mcz_outfile_is_stream(o));
    assert_int_equal(mcz_outfile_write(o, "abc", 3), 0);
    assert_int_equal(mcz_outfile_patch(o, 0, "x", 1), MCZ_EINVAL);
    assert_int_equal(mcz_outfile_commit(o, NULL), MCZ_EINVAL);
#endif
}

static void test_outfile_abort_leaves_old_file(void **state)
{
    char path[128];
    in_dir(state, "keep.mch", path, sizeof path);
    write_file(path, "old", 3);
    mcz_outfile *o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(mcz_outfile_write(o, "replacement", 11), 0);
    assert_int_equal(dir_entries(state), 2);
    mcz_outfile_abort(o);
    mcz_outfile_abort(NULL);
    assert_file_is(path, "old");
    assert_int_equal(dir_entries(state), 1);
}

static void test_outfile_errors_name_the_path(void **state)
{
    char path[128];
    in_dir(state, "no/such/dir/out.mch", path, sizeof path);
    mcz_diag diag;
    assert_null(mcz_outfile_open(path, &diag));
    assert_int_equal(diag.code, MCZ_EIO);
    assert_string_equal(diag.subject, path);
    assert_null(mcz_outfile_open("", &diag));
    assert_int_equal(diag.code, MCZ_EINVAL);

    /* a write error is sticky and reported by commit, which leaves nothing behind */
    in_dir(state, "sticky.mch", path, sizeof path);
    mcz_outfile *o = mcz_outfile_open(path, NULL);
    assert_non_null(o);
    assert_int_equal(mcz_outfile_write(o, NULL, 4), MCZ_EINVAL);
    assert_int_equal(mcz_outfile_write(o, "abc", 3), MCZ_EINVAL);
    assert_int_equal(mcz_outfile_commit(o, &diag), MCZ_EINVAL);
    assert_string_equal(diag.subject, path);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(dir_entries(state), 0);
    assert_int_equal(mcz_outfile_commit(NULL, NULL), MCZ_EINVAL);
}

/* mcz_diag_set fills every field as the library's own failures do, and accepts NULL. */
static void test_diag_set_fills_every_field(void **state)
{
    (void)state;
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(mcz_diag_set(&d, MCZ_ECORRUPT, mcz_at_offset(42), mcz_in_context(7),
                                  "bad %s %d", "byte", 3),
                     MCZ_ECORRUPT);
    assert_int_equal(d.code, MCZ_ECORRUPT);
    assert_int_equal(d.offset, 42);
    assert_int_equal(d.context, 7);
    assert_string_equal(d.message, "bad byte 3");
    assert_int_equal(mcz_diag_set(NULL, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "ignored"),
                     MCZ_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_set_fills_every_field),
        cmocka_unit_test_setup_teardown(test_map_regular_and_empty, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_data_extents_skip_holes, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_map_stream_is_spooled, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_map_missing_names_the_path, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(test_outfile_commit_creates, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_outfile_patch, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_outfile_abort_leaves_old_file, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(test_outfile_errors_name_the_path, dir_setup,
                                        dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
