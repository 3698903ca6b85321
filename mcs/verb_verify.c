/* verb_verify.c - mcs -verify: deep verification of an archive (or an MCH file). */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_verify = {
    "-verify FILE.mcz",
    "verify an archive deeply: every checksum, every context, every stored hash",
    "Every context is checked as -integ checks it; an archive's chunk checksums and stored\n"
    "hashes are verified first.\n",
    mcs_check_options};

/* mcz_reader_verify counts contexts. */
static void verify_progress(void *arg, uint64_t done, uint64_t total)
{
    tool_progress *p = arg;
    p->total_contexts = total;
    tool_progress_update(p, done, 0);
}

/* Chunk checksums, the containers and the stored hashes; *chunks receives the chunk count. */
static int verify_archive(mcs_run *run, const char *path, const mcz_reader *r, uint64_t *chunks)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    *chunks = info.chunks;
    tool_progress progress;
    tool_progress_start(&progress, "verifying", 0, 0);
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_reader_verify(r, verify_progress, &progress, &d);
    tool_progress_end(&progress);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(run, path, &d);
        return -1;
    }
    return 0;
}

int cmd_verify(mcs_run *run, int argc, char **argv)
{
    mcs_input in;
    bool strict;
    int exit_code = mcs_check_args(run, argc, argv, &usage_verify, &in, &strict);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    uint64_t chunks = 0, checked = 0;
    int rc = in.archive ? verify_archive(run, in.path, in.archive, &chunks) : 0;
    if (rc == 0) /* then what -integ checks, the same way */
        rc = mcs_check_contexts(&in, "verifying", strict, &checked);
    if (rc == 0 && in.archive)
        tool_info("Verified %" PRIu64 " contexts in %" PRIu64 " chunks: OK", checked, chunks);
    else if (rc == 0)
        tool_info("Verified %" PRIu64 " contexts: OK", checked);
    mcs_input_close(&in);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
