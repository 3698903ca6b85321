/* verb_dumptoc.c - mcs -dumpToc: prints a table of contents exactly as SuperPMI's mcs does. */
#include <stdlib.h>

#include "mcs_verbs.h"

const mcs_usage usage_dumptoc = {
    "-dumpToc FILE.mct|ARCHIVE.mcz",
    "print a table of contents, one element per line",
    "Each line: the number, the offset in hex, then the 33 bytes of the hash field (the hash's\n"
    "characters and their NUL) in hex, as SuperPMI prints them. Numbers are not required to\n"
    "increase, so a damaged table can be inspected. For an archive, the table -toc would write,\n"
    "read from its index without decompressing anything. An MCH file is refused with the\n"
    "name of its .mct (or the -toc command that writes one).\n",
    NULL};

static void print_entry(const mcz_toc_entry *e)
{
    printf("%4u: %016llX ", (unsigned)e->number, (unsigned long long)e->offset);
    for (size_t i = 0; i < sizeof e->hash; i++)
        printf("%02x ", (unsigned char)e->hash[i]);
    putchar('\n');
}

/* A .mct file, opened as input. Returns 0, or -1 after printing the error. */
static int dump_mct(mcs_run *run, const char *path, mcz_input *input)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_toc_entry *entries = NULL;
    uint32_t count = 0;
    const uint8_t *bytes = NULL;
    uint64_t size = mcz_input_size(input);
    int rc = mcz_input_view(input, 0, size, &bytes, &d);
    if (rc == MCZ_OK)
        rc = mcz_toc_parse(bytes, (size_t)size, false, &entries, &count, &d);
    if (rc != MCZ_OK) {
        mcs_error_diag(run, path, &d);
        return -1;
    }
    for (uint32_t i = 0; i < count && !mcs_stdout_failed(); i++)
        print_entry(&entries[i]);
    free(entries);
    return 0;
}

/* An archive's table, from its index. */
static int dump_index(const mcs_input *in)
{
    for (uint64_t position = 0; position < in->contexts && !mcs_stdout_failed(); position++) {
        mcz_toc_entry e;
        if (mcs_input_toc_entry(in, position, &e) != 0)
            return -1;
        print_entry(&e);
    }
    return 0;
}

/* True when the input begins as an MCH file does, with a context's 'mc'. */
static bool starts_as_mch(mcz_input *input)
{
    const uint8_t *head;
    return mcz_input_size(input) >= 2 && mcz_input_view(input, 0, 2, &head, NULL) == MCZ_OK &&
           head[0] == 'm' && head[1] == 'c';
}

/* An MCH file given for its table: the way forward, its .mct when there is one, else the
 * command that writes it. Returns MCS_EXIT_FAIL. */
static int refuse_mch(const char *path)
{
    char toc[4096];
    if (mcz_toc_find(path, toc, sizeof toc) == 1)
        tool_error("%s is an MCH file, not a table of contents: its table is %s "
                   "(mcs -dumpToc %s)", path, toc, toc);
    else
        tool_error("%s is an MCH file, not a table of contents, and has none: mcs -toc %s "
                   "writes %s.mct, then mcs -dumpToc %s.mct", path, path, path, path);
    return MCS_EXIT_FAIL;
}

int cmd_dumptoc(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(run, argc, argv, &usage_dumptoc, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    /* An archive is told by its first bytes (mcz_source_open_input) or its .mcz name; anything
     * else is read as .mct. The input is opened once, so a stream is read once. */
    if (mcs_input_refuse_empty(pos[0]) != 0)
        return MCS_EXIT_FAIL;
    mcz_input *input = mcz_input_open(pos[0], NULL);
    mcz_source *probe = input ? mcz_source_open_input(input, NULL) : NULL;
    bool archive = (probe && mcz_source_archive(probe)) || mcs_has_extension(pos[0], ".mcz");
    mcz_source_close(probe);
    int rc = MCS_EXIT_FAIL;
    mcs_input in;
    if (input && !archive && starts_as_mch(input)) {
        rc = refuse_mch(pos[0]);
    } else if (input && !archive) {
        rc = dump_mct(run, pos[0], input) == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
    } else if (mcs_input_open_input(run, &in, pos[0], input) == 0) { /* reports a missing file */
        int done = in.archive ? dump_index(&in) : dump_mct(run, pos[0], input);
        mcs_input_close(&in);
        rc = done == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
    }
    mcz_input_close(input);
    return rc;
}
