/*
 * test_tool_os.c - the programs' files and descriptors (platform/platform.h, the programs' part),
 * the same contract on every system: what mcz_os_stat tells apart, how mcz_os_open's flags open,
 * positions and lengths, the positional read, removals (a whole tree, its links not
 * followed), the one table of Windows errors, and the case-blind comparisons that stand in for
 * <strings.h>; and the library part io/ calls: maps, a duplicate, data extents, memmem, links,
 * directories and a removal in one.
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
#include <unistd.h> /* symlink, to plant a link in a tree */
#else
#include <windows.h> /* the error codes of the Windows error table */
#endif

#include <cmocka.h>

#include "../../tools/tool.h"
#ifdef _WIN32
#include "../../platform/os_win32.h"
#endif

/* A private directory under TMPDIR for each test, and paths in it. */
typedef struct scratch {
    char dir[1024];
    char path[1200];
} scratch;

static int scratch_setup(void **state)
{
    scratch *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    snprintf(s->dir, sizeof s->dir, "%s/mcz-tool-os.XXXXXX", mcz_os_temp_dir());
    if (!mcz_os_mkdtemp(s->dir)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int scratch_teardown(void **state)
{
    scratch *s = *state;
    tool_remove_tree(s->dir);
    free(s);
    return 0;
}

static const char *in(scratch *s, const char *name)
{
    snprintf(s->path, sizeof s->path, "%s/%s", s->dir, name);
    return s->path;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void test_stat_types(void **state)
{
    scratch *s = *state;
    mcz_os_file_info info;
    put_file(in(s, "five"), "12345");
    assert_int_equal(mcz_os_stat(s->path, &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_REGULAR);
    assert_int_equal(info.size, 5);
    assert_int_equal(mcz_os_stat(s->dir, &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_DIRECTORY);
    assert_int_equal(info.size, 0);
    errno = 0;
    assert_int_equal(mcz_os_stat(in(s, "missing"), &info), -1);
    assert_int_equal(errno, ENOENT);
#ifndef _WIN32
    assert_int_equal(mcz_os_stat("/dev/null", &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_NULL);
    assert_int_equal(mcz_os_stat("/dev/zero", &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_OTHER); /* a device, but not the null one */
#endif
}

static void test_open_flags(void **state)
{
    scratch *s = *state;
    char buf[16] = {0};
    const char *path = in(s, "file");
    errno = 0;
    assert_int_equal(mcz_os_open(path, MCZ_OS_OPEN_READ, 0), -1);
    assert_int_equal(errno, ENOENT);

    int fd =
        mcz_os_open(path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_EXCLUSIVE, 0600);
    assert_true(fd >= 0);
    assert_int_equal(mcz_os_write(fd, "abc", 3), 3);
    assert_int_equal(mcz_os_position(fd), 3);
    assert_int_equal(mcz_os_close(fd), 0);
    errno = 0;
    int how = MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_EXCLUSIVE;
    assert_int_equal(mcz_os_open(path, how, 0600), -1);
    assert_int_equal(errno, EEXIST);
    assert_true(mcz_os_exists(path));

    fd = mcz_os_open(path, MCZ_OS_OPEN_READ_WRITE | MCZ_OS_OPEN_APPEND, 0);
    assert_true(fd >= 0);
    assert_int_equal(mcz_os_write(fd, "de", 2), 2); /* at the end, wherever the position was */
    assert_int_equal(mcz_os_seek_end(fd), 5);
    assert_int_equal(mcz_os_pread(fd, buf, sizeof buf, 0), 5);
    assert_memory_equal(buf, "abcde", 5);
    assert_int_equal(mcz_os_truncate(fd, 2), 0);
    assert_int_equal(mcz_os_close(fd), 0);

    fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    assert_true(fd >= 0);
    assert_int_equal(mcz_os_read(fd, buf, sizeof buf), 2);
    assert_memory_equal(buf, "ab", 2);
    assert_int_equal(mcz_os_read(fd, buf, sizeof buf), 0); /* the end */
    mcz_os_file_info info;
    assert_int_equal(mcz_os_fstat(fd, &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_REGULAR);
    assert_int_equal(info.size, 2);
    assert_int_equal(mcz_os_close(fd), 0);

    fd = mcz_os_open(path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_TRUNCATE, 0);
    assert_true(fd >= 0);
    assert_int_equal(mcz_os_close(fd), 0);
    assert_int_equal(mcz_os_stat(path, &info), 0);
    assert_int_equal(info.size, 0);

    assert_int_equal(mcz_os_unlink(path), 0);
    assert_false(mcz_os_exists(path));
}

/* The one positional read (the library's and the programs'): the bytes at the offset, the
 * descriptor's position where it was, and 0 past the end. */
static void test_pread_keeps_position(void **state)
{
    scratch *s = *state;
    char buf[8] = {0};
    put_file(in(s, "bytes"), "abcdef");
    int fd = mcz_os_open(s->path, MCZ_OS_OPEN_READ, 0);
    assert_true(fd >= 0);
    assert_int_equal(mcz_os_read(fd, buf, 2), 2);
    assert_int_equal(mcz_os_pread(fd, buf, 3, 3), 3);
    assert_memory_equal(buf, "def", 3);
    assert_int_equal(mcz_os_position(fd), 2);
    assert_int_equal(mcz_os_pread(fd, buf, 3, 6), 0);
    assert_int_equal(mcz_os_read(fd, buf, 1), 1);
    assert_int_equal(buf[0], 'c');
    assert_int_equal(mcz_os_close(fd), 0);
}

#ifdef _WIN32
/* The one table of Windows errors: a full disk is ENOSPC (the programs once said EIO), the
 * programs' codes (an existing file, no hard links across volumes) are kept, and a code
 * without a counterpart is EIO. */
static void test_windows_errors(void **state)
{
    (void)state;
    assert_int_equal(mcz_os_errno_of_win32(ERROR_DISK_FULL), ENOSPC);
    assert_int_equal(mcz_os_errno_of_win32(ERROR_HANDLE_DISK_FULL), ENOSPC);
    assert_int_equal(mcz_os_errno_of_win32(ERROR_FILE_EXISTS), EEXIST);
    assert_int_equal(mcz_os_errno_of_win32(ERROR_NOT_SAME_DEVICE), EXDEV);
    assert_int_equal(mcz_os_errno_of_win32(ERROR_BROKEN_PIPE), EPIPE);
    assert_int_equal(mcz_os_errno_of_win32(ERROR_INVALID_DATA), EIO);
}
#endif

static void test_remove_tree(void **state)
{
    scratch *s = *state;
    char outside[1200], kept[1300];
    snprintf(outside, sizeof outside, "%s.outside", s->dir);
    assert_int_equal(mcz_os_mkdir_private(outside), 0);
    snprintf(kept, sizeof kept, "%s/kept", outside);
    put_file(kept, "kept");

    char tree[1200];
    snprintf(tree, sizeof tree, "%s", in(s, "tree"));
    assert_int_equal(mcz_os_mkdir_private(tree), 0);
    assert_int_equal(mcz_os_mkdir_private(in(s, "tree/a")), 0);
    assert_int_equal(mcz_os_mkdir_private(in(s, "tree/a/b")), 0);
    assert_int_equal(mcz_os_mkdir_private(in(s, "tree/empty")), 0);
    put_file(in(s, "tree/top"), "1");
    put_file(in(s, "tree/a/b/deep"), "2");
    put_file(in(s, "tree/.hidden"), "3");
#ifndef _WIN32
    assert_int_equal(symlink(outside, in(s, "tree/a/link")), 0); /* removed, not followed */
#endif
    assert_int_equal(tool_remove_tree(tree), 0);
    assert_false(mcz_os_exists(tree));
    assert_true(mcz_os_exists(kept));

    errno = 0;
    assert_int_equal(tool_remove_tree(in(s, "missing")), -1);
    assert_int_equal(errno, ENOENT);

    assert_int_equal(mcz_os_unlink(kept), 0);
    assert_int_equal(mcz_os_rmdir(outside), 0);
    assert_false(mcz_os_exists(outside));
}

/* A file's map and fresh memory, a duplicate descriptor (sharing the position), the rewind,
 * the data extents, memmem. */
static void test_maps(void **state)
{
    scratch *s = *state;
    put_file(in(s, "mapped"), "0123456789");
    int fd = mcz_os_open(s->path, MCZ_OS_OPEN_READ, 0);
    assert_true(fd >= 0);
    uint8_t *m = mcz_os_map_file(fd, 10);
    assert_non_null(m);
    assert_memory_equal(m, "0123456789", 10);
    assert_ptr_equal(mcz_os_memmem(m, 10, "456", 3), m + 4);
    assert_ptr_equal(mcz_os_memmem(m, 10, "89", 2), m + 8);
    assert_null(mcz_os_memmem(m, 10, "465", 3));
    assert_null(mcz_os_memmem(m, 10, "9a", 2)); /* not past the end */
    assert_ptr_equal(mcz_os_memmem(m, 10, "", 0), m);
    size_t page = mcz_os_page_size();
    assert_true(page >= 4096 && (page & (page - 1)) == 0);
    mcz_os_map_drop(m, page);
    assert_memory_equal(m, "0123456789", 10); /* read again from the file */
    assert_int_equal(mcz_os_unmap(m, 10), 0);

    uint8_t *z = mcz_os_map_zeroed(3 * page);
    assert_non_null(z);
    assert_int_equal(z[0] | z[2 * page + 5], 0);
    z[page] = 7;
    assert_int_equal(z[page], 7);
    assert_int_equal(mcz_os_unmap(z, 3 * page), 0);

    int dup = mcz_os_dup(fd);
    assert_true(dup >= 0 && dup != fd);
    char buf[4];
    assert_int_equal(mcz_os_read(dup, buf, 4), 4);
    assert_int_equal(mcz_os_position(fd), 4); /* one open file, two descriptors */
    assert_int_equal(mcz_os_rewind(fd), 0);
    assert_int_equal(mcz_os_position(dup), 0);
    assert_int_equal(mcz_os_close(dup), 0);

    uint64_t start = 1, end = 0;
#ifndef _WIN32
    assert_int_equal(mcz_os_data_extent(fd, 0, &start, &end), 1);
    assert_int_equal(start, 0);
    assert_int_equal(end, 10);
    assert_int_equal(mcz_os_data_extent(fd, 10, &start, &end), 0); /* nothing past the end */
#else
    errno = 0;
    assert_int_equal(mcz_os_data_extent(fd, 0, &start, &end), -1); /* no SEEK_DATA */
    assert_int_equal(errno, EOPNOTSUPP);
#endif
    assert_int_equal(mcz_os_close(fd), 0);
}

/* Links (none on Windows), a directory's names and a removal among them, a new directory, the
 * right to write in one, this process. */
static void test_names(void **state)
{
    scratch *s = *state;
    char buf[64];
    put_file(in(s, "a"), "a");
    assert_false(mcz_os_is_link(s->path));
    errno = 0;
    assert_int_equal(mcz_os_readlink(s->path, buf, sizeof buf), -1);
    assert_int_equal(errno, EINVAL);
#ifndef _WIN32
    assert_int_equal(symlink("a", in(s, "link")), 0);
    assert_true(mcz_os_is_link(s->path));
    assert_int_equal(mcz_os_readlink(s->path, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 'a');
#endif
    assert_int_equal(mcz_os_mkdir(in(s, "d")), 0);
    errno = 0;
    assert_int_equal(mcz_os_mkdir(s->path), -1);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(mcz_os_may_write_in(s->dir), 0);

    mcz_os_dir *d = mcz_os_dir_open(s->dir);
    assert_non_null(d);
    unsigned seen = 0;
    for (const char *name; (name = mcz_os_dir_next(d)) != NULL;) {
        seen += strcmp(name, "d") == 0;
        if (strcmp(name, "a") == 0) {
            mcz_os_remove_in(d, s->dir, name);
            seen++;
        }
    }
    mcz_os_dir_close(d);
    assert_int_equal(seen, 2);
    assert_false(mcz_os_exists(in(s, "a")));
    assert_true(mcz_os_exists(in(s, "d")));

    assert_int_equal(mcz_os_dir_length("dir/sub/name"), 8);
    assert_int_equal(mcz_os_dir_length("name"), 0);
    assert_false(mcz_os_process_gone(mcz_os_process_id()));
}

static void test_getcwd(void **state)
{
    (void)state;
    char *cwd = mcz_os_getcwd();
    assert_non_null(cwd);
    mcz_os_file_info info;
    assert_int_equal(mcz_os_stat(cwd, &info), 0);
    assert_int_equal(info.type, MCZ_OS_FILE_DIRECTORY);
    free(cwd);
    assert_true(mcz_os_process_id() > 0);
}

static void test_case_blind(void **state)
{
    (void)state;
    assert_int_equal(tool_strcasecmp("MCH", "mch"), 0);
    assert_int_equal(tool_strcasecmp("", ""), 0);
    assert_true(tool_strcasecmp("mch", "mcz") < 0);
    assert_true(tool_strcasecmp("MCZ", "mch") > 0);
    assert_true(tool_strcasecmp("mc", "mch") < 0); /* a prefix sorts first */
    assert_true(tool_strcasecmp("[", "a") < 0);    /* '[' is not 'A' + 26 folded */
    assert_int_equal(tool_strncasecmp("-ApplyDiff", "-applydiffs", 10), 0);
    assert_true(tool_strncasecmp("-ApplyDiff", "-applydiffs", 11) != 0);
    assert_int_equal(tool_strncasecmp("abc", "xyz", 0), 0);
    assert_true(tool_strcasecmp("\xc3\x89", "\xc3\xa9") != 0); /* ASCII letters only */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stat_types, scratch_setup, scratch_teardown),
        cmocka_unit_test_setup_teardown(test_open_flags, scratch_setup, scratch_teardown),
        cmocka_unit_test_setup_teardown(test_remove_tree, scratch_setup, scratch_teardown),
        cmocka_unit_test_setup_teardown(test_pread_keeps_position, scratch_setup,
                                        scratch_teardown),
        cmocka_unit_test_setup_teardown(test_maps, scratch_setup, scratch_teardown),
        cmocka_unit_test_setup_teardown(test_names, scratch_setup, scratch_teardown),
#ifdef _WIN32
        cmocka_unit_test(test_windows_errors),
#endif
        cmocka_unit_test(test_getcwd),
        cmocka_unit_test(test_case_blind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
