/* verb_strip.c - mcs -strip: copies every context except the listed ones. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_context.h"
#include "mcs_verbs.h"

const mcs_usage usage_strip = {
    "-strip RANGE IN OUT",
    "copy all but the listed contexts",
    "RANGE is a list such as 1-5,9 or a .mcl file. Every context is deep-checked; those kept\n"
    "are copied as they are unless -thin.\n"
    "Listed numbers that IN does not hold are reported in a warning. OUT is an archive when it\n"
    "ends in .mcz. From an archive into an archive, a chunk that loses no context is copied\n"
    "without recompressing it.\n" MCS_COMPRESS_INHERIT_HELP,
    mcs_list_verb_options};

typedef struct strip_run {
    mcs_input in;
    mcs_output *out;
    mcz_mc_builder *thin;
    const mcz_list *list;
    uint64_t loaded, saved, listed_seen;
} strip_run;

static int keep_unlisted(void *arg, mcs_chunk_walk *walk, const mcz_context_info *ci)
{
    (void)walk;
    strip_run *s = arg;
    bool listed = mcz_list_contains(s->list, ci->number);
    s->listed_seen += listed;
    return !listed;
}

/* An archive: chunk by chunk (mcs_chunks.h). */
static int strip_chunks(strip_run *s)
{
    const mcs_copy_rules rules = {s->thin, true, "stripping"};
    mcs_copy_counts counts = {0};
    int rc = mcs_chunks_copy(&s->in, s->out, &rules, keep_unlisted, s, &counts);
    s->loaded = counts.loaded;
    s->saved = counts.saved;
    return rc;
}

static int strip_all(strip_run *s)
{
    if (s->in.archive)
        return strip_chunks(s);
    tool_progress progress;
    tool_progress_start(&progress, "stripping", s->in.contexts, s->in.raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(&s->in, &mc)) > 0) {
        s->loaded++;
        if (mcz_list_contains(s->list, mc.number)) {
            s->listed_seen++;
        } else {
            if (mcs_output_put_checked(s->out, s->thin, &s->in, &mc) != 0) {
                rc = -1;
                break;
            }
            s->saved++;
        }
        tool_progress_update(&progress, s->loaded, s->in.read_bytes);
    }
    tool_progress_end(&progress);
    return rc < 0 ? -1 : 0;
}

int cmd_strip(mcs_run *run, int argc, char **argv)
{
    strip_run s = {0};
    const char *pos[3];
    mcz_list list;
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    int rc = mcs_parse_list_verb(run, argc, argv, &usage_strip, pos, &list, &s.thin, &opt);
    if (rc != MCS_EXIT_OK)
        return rc;
    s.list = &list;
    rc = mcs_input_open(run, &s.in, pos[1]);
    if (rc == 0) {
        s.out = mcs_output_open(run, pos[2], MCS_OUTPUT_BY_EXTENSION, &opt, true);
        rc = s.out ? strip_all(&s) : -1;
        mcs_input_close(&s.in); /* before the output's index is made: mcs_output_commit */
        if (rc == 0)
            rc = mcs_output_commit(s.out);
        else
            mcs_output_abort(s.out);
    }
    uint64_t missing = mcz_list_size(&list) - s.listed_seen;
    mcz_list_free(&list);
    mcz_mc_builder_free(s.thin);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    if (missing)
        tool_warn("%s: %" PRIu64 " listed contexts are not in the file", pos[1], missing);
    tool_info("Loaded %" PRIu64 ", Saved %" PRIu64, s.loaded, s.saved);
    return MCS_EXIT_OK;
}
