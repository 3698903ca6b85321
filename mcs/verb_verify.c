/* verb_verify.c - mcs -verify: deep verification of an archive (or an MCH file). */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_verify = {
    "-verify FILE.mcz",
    "verify an archive deeply: every checksum, every context, every stored hash",
    "For an MCH file, every context is checked as -integ does.\n"};

/* mcz_reader_verify counts contexts. */
static void verify_progress(void *arg, uint64_t done, uint64_t total)
{
    tool_progress *p = arg;
    p->total_contexts = total;
    tool_progress_update(p, done, 0);
}

static int verify_archive(const char *path, const mcz_reader *r)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    tool_progress progress;
    tool_progress_start(&progress, "verifying", 0, 0);
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_reader_verify(r, verify_progress, &progress, &d);
    tool_progress_end(&progress);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(path, &d);
        return -1;
    }
    tool_info("Verified %" PRIu64 " contexts in %" PRIu64 " chunks: OK", info.contexts,
             info.chunks);
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    mcs_input in;
    int exit_code = mcs_input_from_args(argc, argv, &usage_verify, &in);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    int rc;
    if (in.archive) {
        rc = verify_archive(in.path, in.archive);
    } else {
        uint64_t checked = 0;
        rc = mcs_check_contexts(&in, "verifying", &checked);
        if (rc == 0)
            tool_info("Verified %" PRIu64 " contexts: OK", checked);
    }
    mcs_input_close(&in);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
