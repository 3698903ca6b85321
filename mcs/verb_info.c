/* verb_info.c - mcs -info: what a collection holds and how it is stored. */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_info = {
    "-info FILE",
    "show contexts, sizes and, for an archive, chunks, ratio and dictionary",
    "For an MCH file every context's container is read to count them.\n"};

static void print_numbers(uint64_t contexts, uint64_t first, uint64_t last)
{
    if (contexts)
        printf("contexts:      %" PRIu64 " (numbers %" PRIu64 "-%" PRIu64 ")\n", contexts, first,
               last);
    else
        printf("contexts:      0\n");
}

static void print_archive(const char *path, const mcz_reader *r)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    printf("file:          %s\nformat:        mcz archive, version %" PRIu32 "\n", path,
           info.version);
    print_numbers(info.contexts, info.first_number, info.last_number);
    printf("chunks:        %" PRIu64 "\n", info.chunks);
    printf("raw size:      %" PRIu64 " bytes (the equivalent MCH file)\n", info.raw_bytes);
    printf("stored size:   %" PRIu64 " bytes\n", info.file_bytes);
    if (info.file_bytes)
        printf("ratio:         %.2f\n", (double)info.raw_bytes / (double)info.file_bytes);
    if (info.dict_id || info.dict_size)
        printf("dictionary:    id %" PRIu32 ", %" PRIu32 " bytes\n", info.dict_id,
               info.dict_size);
    else
        printf("dictionary:    none\n");
    printf("level:         %d\n", info.level);
    printf("chunk target:  %" PRIu32 " bytes\n", info.chunk_size);
}

static int print_mch(mcs_input *in)
{
    uint64_t count = 0;
    uint32_t first = 0, last = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        if (count++ == 0)
            first = mc.number;
        last = mc.number;
    }
    if (rc < 0)
        return -1;
    printf("file:          %s\nformat:        mch\n", in->path);
    print_numbers(count, first, last);
    printf("size:          %" PRIu64 " bytes\n", in->read_bytes);
    char toc[4096];
    if (mcz_toc_find(in->path, toc, sizeof toc) == 1)
        printf("toc:           %s\n", toc);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    mcs_input in;
    int exit_code = mcs_input_from_args(argc, argv, &usage_info, &in);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    int rc = 0;
    if (in.archive)
        print_archive(in.path, in.archive);
    else
        rc = print_mch(&in);
    mcs_input_close(&in);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
