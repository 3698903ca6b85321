/* verb_integ.c - mcs -integ: deep-checks every context of a collection. */
#include <assert.h>
#include <inttypes.h>

#include "mcs_verbs.h"

typedef struct check_args {
    bool strict;
} check_args;

const mcs_option mcs_check_options[] = {
    {.name = "--strict", .type = MCS_OPT_FLAG, MCS_FIELD(check_args, strict),
     .help = "a packet id the table does not know is an error, not a warning"},
    MCS_OPTIONS_END};

const mcs_usage usage_integ = {
    "-integ FILE",
    "deep-check every context (and, for an archive, its chunk checksums)",
    "Checks every packet, map, canary and trailer of every context, and what SuperPMI's\n"
    "lookups rely on (superpmi/SUPERPMI.md, \"Strict checks\"): each\n"
    "packet id once, known packets with their table's key and value sizes, every pool made of\n"
    "whole chunks, keys in increasing memcmp order, pool indexes of known layouts at chunk\n"
    "starts. Unlike SuperPMI's mcs, a damaged context is an error: its number and byte offset\n"
    "are printed and mcs exits 1. A packet id the table does not know (see -printJITEEVersion\n"
    "--list) is a warning with the number of contexts holding it.\n",
    mcs_check_options};

int mcs_check_contexts(mcs_input *in, const char *what, bool strict, uint64_t *checked)
{
    tool_progress progress;
    tool_progress_start(&progress, what, in->contexts, in->raw_bytes);
    uint64_t count = 0;
    tool_check check = {.strict = strict, .jit_ee = mcs_input_jit_ee(in)};
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_diag d;
        mcz_diag_clear(&d);
        if (tool_check_context(&check, &mc, NULL, &d) != MCZ_OK) {
            rc = -1;
            tool_progress_end(&progress);
            mcs_input_context_error(in, &mc, &d);
            break;
        }
        count++;
        tool_progress_update(&progress, count, in->read_bytes);
    }
    tool_progress_end(&progress);
    tool_check_warn(&check);
    *checked = count;
    return rc < 0 ? -1 : 0;
}

int mcs_check_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, mcs_input *in,
                   bool *strict)
{
    const char *pos[1];
    check_args a = {false};
    assert(u->options == mcs_check_options);
    if (mcs_parse_args(run, argc, argv, u, &a, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    *strict = a.strict;
    return mcs_input_open(run, in, pos[0]) == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}

int cmd_integ(mcs_run *run, int argc, char **argv)
{
    mcs_input in;
    bool strict;
    int exit_code = mcs_check_args(run, argc, argv, &usage_integ, &in, &strict);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    double start = tool_now();
    uint64_t checked = 0;
    int rc = mcs_check_contexts(&in, "checking", strict, &checked);
    mcs_input_close(&in);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    double elapsed = tool_now() - start;
    double rate = elapsed > 0 ? (double)checked / elapsed : (double)checked;
    tool_info("Checked the integrity of %" PRIu64 " methodContexts at %.0f per second", checked,
             rate);
    return MCS_EXIT_OK;
}
