/*
 * raw_index.c - rewrites an archive's index in its raw form (FORMAT.md §5), for the CLI tests
 * that forge index entries at their offsets (tests/cli/test_mcs_forged.sh) or count its bytes:
 * writers compress the index, whose entries then have no offset in the file.
 *
 *   raw_index ARCHIVE
 *
 * Exit codes: 0 done, 1 the file cannot be read or opened as an archive, 2 usage; a failed
 * write aborts (tl_save).
 */
#include <stdio.h>

#include "../unit/archive_testlib.h"
#include "../unit/index_testlib.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: raw_index ARCHIVE\n");
        return 2;
    }
    mcz_reader *r = mcz_reader_open(argv[1], NULL);
    size_t size = 0;
    uint8_t *file = r ? tl_read(argv[1], &size) : NULL;
    if (!file) {
        fprintf(stderr, "raw_index: %s: not an archive that opens\n", argv[1]);
        mcz_reader_close(r);
        return 1;
    }
    mcz_reader_close(r);
    tl_recode_index(&file, &size, true);
    tl_save(argv[1], file, size);
    free(file);
    return 0;
}
