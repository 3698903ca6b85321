/*
 * fuzz_recover.c - recovery (mcz_recover_input, FORMAT.md §4 and §13) on hostile bytes: an
 * archive, damaged or cut, or a memory image (a core, a minidump, any bytes), read from memory.
 * A recovery that succeeds writes an archive that opens and verifies, with the contexts it
 * reports; one that fails leaves no output. Nothing may crash or read outside the input.
 * The seeds include Windows minidumps (tests/unit/test_recover_minidump.c says their layout),
 * whole and with their directory, memory list and ranges damaged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reader/reader_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[] = "/tmp/mcz-fuzz-recover-XXXXXX";
static char out_path[64];

static void remove_scratch(void)
{
    remove(out_path);
    rmdir(scratch);
}

/* A scratch directory for the output, made once per process, removed at its exit. */
static const char *output(void)
{
    if (!out_path[0]) {
        if (!mkdtemp(scratch))
            abort();
        snprintf(out_path, sizeof out_path, "%s/out.mcz", scratch);
        atexit(remove_scratch);
    }
    return out_path;
}

static void check_output(const char *path, const mcz_recovery *report)
{
    mcz_reader *r = mcz_reader_open(path, NULL);
    if (!r)
        abort();
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    if (info.contexts != report->contexts || mcz_reader_verify(r, NULL, NULL, NULL) != MCZ_OK)
        abort();
    mcz_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* exact size: the sanitizer sees any overread */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    const char *path = output();
    mcz_src *src = mcz_src_memory(copy, size, "fuzz input", NULL);
    if (src) {
        mcz_recovery report;
        int rc = mcz_recover_input(src, path, &report, NULL);
        mcz_src_close(src);
        if (rc == MCZ_OK)
            check_output(path, &report);
        else if (access(path, F_OK) == 0)
            abort(); /* a failed recovery leaves nothing */
        remove(path);
    }
    free(copy);
    return 0;
}
