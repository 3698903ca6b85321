/* verb_recover.c - mcs -recover: rebuilds a complete archive from a damaged one, or from a
 * memory image (a core dump) of a process that ran a MEMORY writer; keeps the complete contexts
 * of a cut or damaged MCH file. */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_recover = {
    "-recover IN OUT",
    "keep what is whole of a damaged or truncated collection, or of a core dump",
    "An archive IN (OUT.mcz): keeps every chunk that decodes and checks out (e.g. of a writer\n"
    "killed mid-run) and prints how many contexts were kept and lost (for an archive cut\n"
    "before its footer: those seen lost, and an unknown number past the cut). IN may be a core\n"
    "dump (gcore, or a crash's core file) or any memory image of a process collecting in\n"
    "MEMORY mode: the archive header, dictionary and chunks are found wherever they lie,\n"
    "chunks kept in context-number order, each once.\n"
    "An MCH file IN cut short or damaged: keeps every complete context before the cut or the\n"
    "damage, and says where that is (the offset where the first lost context starts, as its\n"
    ".mct records it). OUT is an MCH file, or an archive when named .mcz.\n"
    "Fails only when nothing can be recovered.\n",
    NULL};

/* What an image scan found beside what it kept. */
static void report_image(const char *in_name, const char *out_name, const mcz_recovery *rep)
{
    tool_info("%s: memory image: recovered %" PRIu64 " contexts in %" PRIu64
              " chunks into %s; %" PRIu64 " duplicate chunk copies left out, %" PRIu64
              " chunks skipped (did not verify), %" PRIu64 " contexts missing between them",
              in_name, rep->contexts, rep->chunks, out_name, rep->duplicates, rep->skipped,
              rep->lost);
}

/* An archive without its footer: the count it had is gone with it, so the loss is what the
 * bytes show, at least, and whatever lay past the cut. */
static void report_cut(const char *in_name, const char *out_name, const mcz_recovery *rep,
                       uint64_t size)
{
    tool_info("Recovered %" PRIu64 " contexts into %s; lost: %" PRIu64 " seen, and an unknown "
              "number past the cut", rep->contexts, out_name, rep->lost);
    tool_warn("%s: cut short (no footer after its %" PRIu64 " bytes), so how many contexts it "
              "held is not known: those past the cut are lost",
              in_name, size);
}

/* How an MCH salvage ended: d says where the first context not kept starts and why. */
static void report_mch(const mcs_input *in, const char *out_name, uint64_t kept, const mcz_diag *d)
{
    if (d->code == MCZ_OK) {
        tool_info("%s: complete: copied its %" PRIu64 " contexts into %s", in->path, kept,
                  out_name);
        return;
    }
    tool_info("Recovered %" PRIu64 " complete contexts into %s", kept, out_name);
    char text[MCS_DIAG_TEXT_SIZE];
    tool_warn("%s; lost: that context and everything after it",
              mcs_diag_text(in->run, in->path, d, text, sizeof text));
}

/* An MCH file: its contexts up to the first that is cut or damaged, into out. Returns 0, or -1
 * after printing the error (nothing kept, or out failed: no output left). */
static int salvage_mch(mcs_run *run, mcz_input *input, const char *file, const char *in_name,
                       const char *out)
{
    mcs_input in;
    if (mcs_input_open_input(run, &in, file, input) != 0)
        return -1;
    in.path = in_name;
    mcs_output *o = mcs_output_open(run, out, MCS_OUTPUT_BY_EXTENSION, NULL, false);
    mcz_diag d;
    mcz_diag_clear(&d);
    uint64_t kept = 0;
    mcz_mc mc;
    bool out_failed = !o;
    int rc = 0;
    while (!out_failed && (rc = mcz_source_next(in.source, &mc, &d)) > 0) {
        out_failed = mcs_output_put(o, &mc) != 0; /* o is released by a failure */
        kept += !out_failed;
    }
    if (!out_failed && rc < 0 && kept == 0) {
        mcs_error_diag(run, in.path, &d);
        tool_error("%s: nothing to recover: no complete context before that", in.path);
        mcs_output_abort(o);
    }
    if (out_failed || (rc < 0 && kept == 0)) {
        mcs_input_close(&in);
        return -1;
    }
    rc = mcs_output_commit(o);
    if (rc == 0)
        report_mch(&in, tool_display_name(out, true), kept, &d);
    mcs_input_close(&in);
    return rc;
}

/* True when the input begins as an MCH file does, with a context's 'mc' (anything else, a core
 * dump above all, is scanned for an archive). */
static bool is_mch(mcz_input *in)
{
    const uint8_t *head;
    return mcz_input_size(in) >= 2 && mcz_input_view(in, 0, 2, &head, NULL) == MCZ_OK &&
           head[0] == 'm' && head[1] == 'c';
}

/* Recovers the archive or memory image in `in` into out. */
static int recover_archive(mcs_run *run, mcz_input *in, const char *in_name, const char *out,
                           const char *given)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_recovery rep;
    int rc = mcz_recover_input(in, out, &rep, &d);
    tool_diag_rename(&d, given, in_name);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(run, in_name, &d);
        return MCS_EXIT_FAIL;
    }
    if (rep.image)
        report_image(in_name, tool_display_name(out, true), &rep);
    else if (rep.lost_open)
        report_cut(in_name, tool_display_name(out, true), &rep, mcz_input_size(in));
    else
        tool_info("Recovered %" PRIu64 " contexts into %s; lost %" PRIu64, rep.contexts,
                  tool_display_name(out, true), rep.lost);
    if (rep.lost && !rep.image && !rep.lost_open)
        tool_warn("%s: %" PRIu64 " contexts could not be recovered", in_name, rep.lost);
    return MCS_EXIT_OK;
}

int cmd_recover(mcs_run *run, int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(run, argc, argv, &usage_recover, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    if (mcs_input_refuse_empty(pos[0]) != 0)
        return MCS_EXIT_FAIL;
    const char *in_name = tool_display_name(pos[0], false);
    tool_note_input(pos[0]);
    if (mcs_output_check_binary(run, pos[1]) != 0)
        return MCS_EXIT_FAIL;
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_input *in = mcz_input_open(pos[0], &d); /* once: a stream is read only once */
    if (!in) {
        tool_diag_rename(&d, pos[0], in_name);
        mcs_error_diag(run, in_name, &d);
        return MCS_EXIT_FAIL;
    }
    int code;
    if (is_mch(in))
        code = salvage_mch(run, in, pos[0], in_name, pos[1]) == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
    else
        code = recover_archive(run, in, in_name, pos[1], pos[0]);
    mcz_input_close(in);
    return code;
}
