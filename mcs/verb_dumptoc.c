/* verb_dumptoc.c - mcs -dumpToc: prints a table of contents exactly as SuperPMI's mcs does. */
#include <stdlib.h>

#include "mcs_verbs.h"

const mcs_usage usage_dumptoc = {
    "-dumpToc FILE.mct",
    "print a table of contents, one element per line",
    "Each line: the number, the offset in hex, then the 33 bytes of the hash field (the hash's\n"
    "characters and their NUL) in hex, as SuperPMI prints them. Numbers are not required to\n"
    "increase, so a damaged table can be inspected.\n"};

static void print_entry(const mcz_toc_entry *e)
{
    printf("%4u: %016llX ", (unsigned)e->number, (unsigned long long)e->offset);
    for (size_t i = 0; i < sizeof e->hash; i++)
        printf("%02x ", (unsigned char)e->hash[i]);
    putchar('\n');
}

int cmd_dumptoc(int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(argc, argv, &usage_dumptoc, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_file f;
    mcz_toc_entry *entries = NULL;
    uint32_t count = 0;
    int rc = mcz_file_map(pos[0], &f, &d);
    if (rc == MCZ_OK) {
        rc = mcz_toc_parse(f.data, f.size, false, &entries, &count, &d);
        mcz_file_unmap(&f);
    }
    if (rc != MCZ_OK) {
        mcs_error_diag(pos[0], &d);
        return MCS_EXIT_FAIL;
    }
    for (uint32_t i = 0; i < count && !mcs_stdout_failed(); i++)
        print_entry(&entries[i]);
    free(entries);
    return MCS_EXIT_OK;
}
