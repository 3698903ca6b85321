/* verb_integ.c - mcs -integ: deep-checks every context of a collection. */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_integ = {
    "-integ FILE",
    "deep-check every context (and, for an archive, its chunk checksums)",
    "Checks every packet, map, canary and trailer of every context. Unlike SuperPMI's mcs,\n"
    "a damaged context is an error: its number and byte offset are printed and mcs exits 1.\n"
    "Packets whose item sizes differ from this build's packet table (see -printJITEEVersion)\n"
    "are counted in a warning: the collection may come from another JIT-EE version.\n"};

/* Counts contexts that disagree with this build's packet table, and warns once at the end with
 * the first of them: sound framing with other item sizes means another JIT-EE version. */
typedef struct table_mismatches {
    uint64_t count;
    mcz_diag first;
} table_mismatches;

static void note_table_mismatch(table_mismatches *t, const mcs_input *in, const mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_mc_check_table(mcs_input_jit_ee(in), mc, &d) != MCZ_EVERSION)
        return;
    if (t->count++ == 0)
        t->first = d;
}

static void report_table_mismatches(const table_mismatches *t)
{
    if (t->count > 0)
        tool_warn("%" PRIu64 " contexts have packets this build's packet table sizes differently "
                 "(first: %s)", t->count, t->first.message);
}

int mcs_check_contexts(mcs_input *in, const char *what, uint64_t *checked)
{
    tool_progress progress;
    tool_progress_start(&progress, what, in->contexts, in->raw_bytes);
    uint64_t count = 0;
    table_mismatches mismatches = {0};
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_diag d;
        mcz_diag_clear(&d);
        if (mcz_mc_check(&mc, &d) != MCZ_OK) {
            rc = -1;
            tool_progress_end(&progress);
            mcs_input_context_error(in, &mc, &d);
            break;
        }
        note_table_mismatch(&mismatches, in, &mc);
        count++;
        tool_progress_update(&progress, count, in->read_bytes);
    }
    tool_progress_end(&progress);
    report_table_mismatches(&mismatches);
    *checked = count;
    return rc < 0 ? -1 : 0;
}

int cmd_integ(int argc, char **argv)
{
    mcs_input in;
    int exit_code = mcs_input_from_args(argc, argv, &usage_integ, &in);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    double start = tool_now();
    uint64_t checked = 0;
    int rc = mcs_check_contexts(&in, "checking", &checked);
    mcs_input_close(&in);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    double elapsed = tool_now() - start;
    double rate = elapsed > 0 ? (double)checked / elapsed : (double)checked;
    tool_info("Checked the integrity of %" PRIu64 " methodContexts at %.0f per second", checked,
             rate);
    return MCS_EXIT_OK;
}
