/* verb_removedup.c - mcs -removeDup: copies a collection without its duplicate methods. */
#include <inttypes.h>

#include "mcs_dedup.h"
#include "mcs_verbs.h"

typedef struct removedup_args {
    bool legacy, thin;
} removedup_args;

static const mcs_option removedup_options[] = {
    {.name = "legacy", .type = MCS_OPT_FLAG, MCS_FIELD(removedup_args, legacy),
     .help = "compare as SuperPMI's old Equal(): CompileMethod's fields, the\n"
             "IL bytes, and which maps are present with how many items"},
    {.name = "thin", .type = MCS_OPT_FLAG, MCS_FIELD(removedup_args, thin),
     .help = "drop the compile results (CR_* packets) of the contexts written"},
    MCS_OPTIONS_END};

const mcs_usage usage_removedup = {
    "-removeDup IN OUT",
    "copy, dropping duplicate methods (the first occurrence wins)",
    "Two contexts are duplicates when their identity without class and method names is the\n"
    "same (SuperPMI's -removeDup). A context whose identity cannot be built is a duplicate of\n"
    "another only when their bytes are identical. For an archive IN the keys come from its\n"
    "index: a chunk holding only duplicates is never decompressed, and into an archive OUT a\n"
    "chunk without duplicates is copied without recompressing it. IN is read twice: once for\n"
    "the keys, which go to sorted runs in a temporary file under TMPDIR past 128 Ki of them\n"
    "(24 bytes each; MCZ_DEDUP_RUN=N sets the bound), once to copy; what stays in memory\n"
    "per context is one bit. Contexts are copied as they are unless -thin re-serializes them.\n"
    "OUT is an archive when it ends in .mcz.\n",
    removedup_options};

int cmd_removedup(mcs_run *run, int argc, char **argv)
{
    removedup_args a = {0};
    const char *pos[2];
    if (mcs_parse_args(run, argc, argv, &usage_removedup, &a, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    mcs_input in;
    if (mcs_input_open(run, &in, pos[0]) != 0)
        return MCS_EXIT_FAIL;
    mcs_dedup *dd = mcs_dedup_create(a.legacy, a.thin);
    mcs_output *out = dd ? mcs_output_open(run, pos[1], MCS_OUTPUT_BY_EXTENSION, NULL, true) : NULL;
    int rc = out ? mcs_dedup_record(dd, &in) : -1;
    if (rc == 0)
        rc = mcs_dedup_copy(dd, &in, out) == 0 ? mcs_dedup_finish(dd) : -1;
    mcs_input_close(&in); /* before the output's index is made: mcs_output_commit */
    if (rc == 0)
        rc = mcs_output_commit(out);
    else
        mcs_output_abort(out);
    if (rc == 0)
        tool_info("Loaded %" PRIu64 ", Saved %" PRIu64, mcs_dedup_loaded(dd),
                 mcs_dedup_saved(dd));
    mcs_dedup_free(dd);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
