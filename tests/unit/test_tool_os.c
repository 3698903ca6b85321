/*
 * test_tool_os.c - the programs' files and descriptors (platform/platform.h, the programs' part),
 * the same contract on every system: what mcz_os_stat tells apart, how mcz_os_open's flags open,
 * positions and lengths, the positional read, removals (a whole tree, its links not
 * followed), the one table of Windows errors, and the case-blind comparisons that stand in for
 * <strings.h>.
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
#ifdef _WIN32
        cmocka_unit_test(test_windows_errors),
#endif
        cmocka_unit_test(test_getcwd),
        cmocka_unit_test(test_case_blind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
