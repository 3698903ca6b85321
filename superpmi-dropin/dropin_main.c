/*
 * dropin_main.c - bin/mcz-superpmi: superpmi's command line, served over mcz archives.
 *
 *   mcz-superpmi --install DIR | --uninstall DIR | --help | --version
 *   superpmi ARGS...   (installed as DIR/superpmi): the real superpmi's behaviour, over .mch
 *                      files and mcz archives alike
 *
 * Its own options start with "--", so they are never one of superpmi's single-dash switches;
 * superpmi's -help and -? go to the real superpmi.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "tool_options.h"

/* mcz-superpmi's own options: words of two dashes, so never one of superpmi's single-dash
 * switches, and read only as the first word (the rest of a command line is superpmi's). */
typedef struct own_options {
    const char *install, *uninstall;
} own_options;

static const tool_option own_table[] = {
    {.name = "install", .arg = "DIR", TOOL_STRING(own_options, install), .min = 1,
     .want = "want the directory of the superpmi to stand in for",
     .help = "make DIR/superpmi mcz-superpmi (the real one is kept as\n"
             "DIR/superpmi.real)"},
    {.name = "uninstall", .arg = "DIR", TOOL_STRING(own_options, uninstall), .min = 1,
     .want = "want the directory mcz-superpmi was installed into",
     .help = "put DIR/superpmi.real back as DIR/superpmi"},
    {.name = "help", .type = TOOL_OPT_HELP, .help = "this text"},
    {.name = "version", .type = TOOL_OPT_VERSION,
     .help = "the version of mcz-superpmi and of its libraries"},
};

static const char help_head[] =
    "Usage: mcz-superpmi --install DIR\n"
    "   or: mcz-superpmi --uninstall DIR\n"
    "   or: superpmi ARGS...\n"
    "\n";

static const char help_tail[] =
    "  superpmi ARGS...   (once installed as DIR/superpmi) superpmi, over .mch files and mcz\n"
    "                     archives alike\n"
    "\n"
    "A drop-in for superpmi, so that superpmi.py (which runs the superpmi of Core_Root) replays\n"
    "and asm-diffs mcz archives unchanged. It reads superpmi's command line as superpmi does.\n"
    "When the input (.mc, .mch, .mct or .mcz by name) is an mcz archive by content, whatever its\n"
    "name, it runs mcz-replay, which runs the real superpmi once per unit of the archive:\n"
    "    -p [N]             -j N (N absent: one per online core; no -p: -j 1)\n"
    "    -c LIST            -c LIST\n"
    "    -f FILE            -f FILE\n"
    "    -details FILE      --details FILE\n"
    "    -r PREFIX          --repro PREFIX (none with -c, as superpmi writes none)\n"
    "    -failureLimit N    --failure-limit N\n"
    "    -v LEVELS          --verbosity LEVELS, and -v LEVELS to the real superpmi\n"
    "    -skipCleanup       nothing\n"
    "    -streaming F       the real superpmi streams from a sparse copy of the archive, each\n"
    "                       context written into it as it is requested\n"
    "    -stride, -writeLogFile, -emitMethodStats: refused (exit 255)\n"
    "    anything else      to the real superpmi, word for word (--exec-word), with the JITs\n"
    "and always -q. Otherwise (an .mch, a usage error, -help, no input) it runs the real\n"
    "superpmi with the same words (same output, same exit code).\n"
    "\n"
    "environment:\n"
    "  MCZ_SUPERPMI        the real superpmi (default: superpmi.real in the directory the\n"
    "                      program was run from, PATH's entry when run by name alone)\n"
    "  MCZ_REPLAY          mcz-replay (default: beside the program, beside what a link to it\n"
    "                      points to, then on PATH)\n"
    "  MCZ_SUPERPMI_TRACE  a file to write the command run, one word a line, before running it\n"
    "\n"
    "exit codes: superpmi's (0 passed, 1 failures, 2 asm diffs, 3 missing data, 254 the JIT\n"
    "failed to initialize); 255 (superpmi's -1) a real superpmi or mcz-replay not found, a\n"
    "switch not served over archives, --install or --uninstall refused (nothing changed), a\n"
    "failure of the run's own (a full TMPDIR, a real superpmi that cannot start, replays none\n"
    "of its unit, writes no -details, or is killed by SIGKILL): never a JIT's result.\n";


static const tool_options_def own_def = {
    .options = own_table,
    .count = sizeof own_table / sizeof *own_table,
    .help_head = help_head,
    .help_tail = help_tail,
    .usage_exit = DROPIN_FATAL,
    .fail_exit = DROPIN_FATAL,
    .usage_hint = "(mcz-superpmi --help lists its options; superpmi's switches take one dash)",
};

/* MCZ_SUPERPMI_TRACE: the words about to run. 0, or -1 after saying why. */
static int trace(char *const words[])
{
    const char *path = getenv("MCZ_SUPERPMI_TRACE");
    if (!path || !*path)
        return 0;
    FILE *f = fopen(path, "w");
    if (!f) {
        tool_error("MCZ_SUPERPMI_TRACE=%s: %s", path, strerror(errno));
        return -1;
    }
    for (size_t i = 0; words[i]; i++)
        fprintf(f, "%s\n", words[i]);
    if (fclose(f) != 0) {
        tool_error("MCZ_SUPERPMI_TRACE=%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Runs path in this process's place (mcz_os_exec: on Windows it waits and exits with the
 * program's code); returns only when it cannot be run. */
static int run(const char *path, char *const words[])
{
    if (trace(words) != 0)
        return DROPIN_FATAL;
    mcz_os_exec(path, words);
    tool_error("cannot run %s: %s", path, strerror(errno));
    return DROPIN_FATAL;
}

/* The first bytes of the input say archive or not; an input that cannot be read is the real
 * superpmi's to report. Only a regular file is read: bytes taken from a pipe would be missing
 * when the real superpmi reads it. */
static bool is_archive(const char *path)
{
    unsigned char head[MCZ_ARCHIVE_HEAD_SIZE];
    mcz_os_file_info st;
    if (mcz_os_stat(path, &st) != 0 || st.type != MCZ_OS_FILE_REGULAR)
        return false;
    int fd = mcz_os_open_to_read(path);
    if (fd < 0)
        return false;
    ptrdiff_t got = mcz_os_read(fd, head, sizeof head);
    mcz_os_close(fd);
    return got > 0 && mcz_looks_like_archive(head, (size_t)got);
}

/* An archive: streamed by the real superpmi, or replayed by mcz-replay. */
static int archive_main(int argc, char **argv, const dropin_cmd *cmd, const char *real)
{
    if (dropin_streaming_value(argv))
        return dropin_stream(argc, argv, cmd, real);
    char *replay = NULL;
    if (dropin_find_replay(argv[0], &replay) != 0)
        return DROPIN_FATAL;
    dropin_words words = {0};
    char why[TOOL_ERROR_SIZE];
    int rc = dropin_translate(argc, argv, cmd, replay, real, &words, why, sizeof why);
    if (rc != 0)
        tool_error("%s", why);
    if (rc == 0) { /* superpmi -p's parent prints it before its workers start */
        char *self = mcz_os_self_path(), *file = self ? mcz_os_absolute_path(self) : NULL;
        dropin_parallel_banner(argc, argv, cmd, file ? file : argv[0], dropin_workers(cmd),
                               stdout);
        free(file);
        free(self);
    }
    rc = rc == 0 ? run(replay, words.word) : DROPIN_FATAL; /* run returns only on failure */
    dropin_words_free(&words);
    free(replay);
    return rc;
}

static int superpmi_main(int argc, char **argv)
{
    char *real = NULL;
    if (dropin_find_real(argv[0], &real) != 0)
        return DROPIN_FATAL;
    dropin_cmd cmd;
    dropin_read(argc, argv, &cmd);
    int rc = cmd.usage || !is_archive(cmd.input) ? run(real, argv)
                                                 : archive_main(argc, argv, &cmd, real);
    free(real);
    return rc;
}

/* A command line of mcz-superpmi's own options (its first word has two dashes): one of them,
 * done. A word of two dashes that is none of them is a mistyped one, answered as mcz-replay
 * answers, never by superpmi (whose "no such file" for superpmi.real would not say what went
 * wrong). */
static int own_main(int argc, char **argv)
{
    own_options o = {NULL, NULL};
    char **operands = calloc((size_t)argc + 1, sizeof *operands);
    size_t operand_count = 0;
    if (!operands) {
        tool_error("out of memory");
        return DROPIN_FATAL;
    }
    int rc = tool_options_parse(&own_def, argc, argv, &o, operands, &operand_count);
    if (rc < 0 && operand_count)
        rc = tool_options_usage_error(&own_def, "unexpected argument '%s'", operands[0]);
    free(operands);
    if (rc < 0 && (!o.install == !o.uninstall))
        rc = tool_options_usage_error(&own_def, "give one of --install DIR and --uninstall DIR");
    if (rc == 0) /* --help or --version printed */
        return tool_close_stdout() == 0 ? 0 : DROPIN_FATAL;
    if (rc > 0)
        return rc;
    return o.install ? dropin_install(o.install, argv[0]) : dropin_uninstall(o.uninstall);
}

int main(int argc, char **argv)
{
    tool_set_program("mcz-superpmi");
    if (argc >= 2 && strncmp(argv[1], "--", 2) == 0 && argv[1][2])
        return own_main(argc, argv);
    return superpmi_main(argc, argv);
}
