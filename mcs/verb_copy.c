/* verb_copy.c - mcs -copy: writes only the listed contexts, as they are or (-thin) thinned. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_context.h"
#include "mcs_verbs.h"

const mcs_usage usage_copy = {
    "-copy RANGE IN OUT",
    "write only the listed contexts, in order, byte for byte",
    "RANGE is a list such as 1-5,9 or a .mcl file. Contexts are read by number (through IN's\n"
    ".mct when it has one that agrees with IN, else by scanning with a warning; or through the\n"
    "archive's index). OUT is an archive when it ends in .mcz.\n"
    "Listed numbers that IN does not hold are reported in a warning. Unlike SuperPMI's mcs,\n"
    "contexts are copied as they are, not re-serialized, unless -thin. From an archive into an\n"
    "archive, a chunk whose contexts are all listed is copied without recompressing it.\n"
    MCS_COMPRESS_INHERIT_HELP,
    mcs_list_verb_options};

typedef struct copy_state {
    mcs_input in;
    mcs_output *out;
    mcz_mc_builder *thin; /* NULL unless -thin */
    tool_progress progress;
    uint64_t saved;
    uint64_t missing;
} copy_state;

/* How many numbers of l, from `number` in range `index` onwards, are left. */
static uint64_t numbers_from(const mcz_list *l, size_t index, uint64_t number)
{
    uint64_t left = l->ranges[index].last - number + 1;
    for (size_t i = index + 1; i < l->count; i++)
        left += (uint64_t)l->ranges[i].last - l->ranges[i].first + 1;
    return left;
}

/* Copies context `number`: 1 copied, 0 not held, -1 on error (printed). */
static int copy_one(copy_state *s, uint32_t number)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_mc mc;
    int rc = mcs_input_get(&s->in, number, &mc, &d);
    if (rc == MCZ_ENOTFOUND)
        return 0;
    if (rc != MCZ_OK) {
        if (d.context < 0)
            d.context = number;
        tool_progress_end(&s->progress);
        mcs_error_diag(s->in.run, s->in.path, &d);
        return -1;
    }
    int put = s->thin ? mcs_output_put_checked(s->out, s->thin, &s->in, &mc)
                      : mcs_output_put(s->out, &mc);
    if (put != 0)
        return -1;
    s->saved++;
    tool_progress_update(&s->progress, s->saved, 0);
    return 1;
}

/* Copies the listed numbers until one is not held: an MCH file numbers its contexts 1..N. */
static int copy_until_missing(copy_state *s, const mcz_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        for (uint64_t n = list->ranges[i].first; n <= list->ranges[i].last; n++) {
            int rc = copy_one(s, (uint32_t)n);
            if (rc <= 0) {
                s->missing += rc == 0 ? numbers_from(list, i, n) : 0;
                return rc;
            }
        }
    }
    return 0;
}

/* An MCH file: context by context, through its .mct when it has one. */
static int copy_listed(copy_state *s, const mcz_list *list)
{
    tool_progress_start(&s->progress, "copying", mcz_list_size(list), 0);
    int rc = copy_until_missing(s, list);
    tool_progress_end(&s->progress);
    return rc;
}

static int keep_listed(void *arg, mcs_chunk_walk *walk, const mcz_context_info *ci)
{
    (void)walk;
    return mcz_list_contains(arg, ci->number);
}

/* An archive: chunk by chunk (mcs_chunks.h); chunks without a listed context are not read. */
static int copy_chunks(copy_state *s, mcz_list *list)
{
    const mcs_copy_rules rules = {s->thin, false, "copying"};
    mcs_copy_counts counts = {0};
    int rc = mcs_chunks_copy(&s->in, s->out, &rules, keep_listed, list, &counts);
    s->saved = counts.saved;
    s->missing = mcz_list_size(list) - counts.saved;
    return rc;
}

int cmd_copy(mcs_run *run, int argc, char **argv)
{
    const char *pos[3];
    mcz_list list;
    copy_state s = {0};
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    int exit_code = mcs_parse_list_verb(run, argc, argv, &usage_copy, pos, &list, &s.thin, &opt);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    int rc = mcs_input_open(run, &s.in, pos[1]);
    if (rc == 0) {
        s.out = mcs_output_open(run, pos[2], MCS_OUTPUT_BY_EXTENSION, &opt, true);
        if (!s.out)
            rc = -1;
        else
            rc = s.in.archive ? copy_chunks(&s, &list) : copy_listed(&s, &list);
        if (rc == 0 && s.missing) /* a number that is not there is an error: no output */
            rc = mcs_list_check_held(&s.in, &list);
        mcs_input_close(&s.in); /* before the output's index is made: mcs_output_commit */
        if (rc == 0)
            rc = mcs_output_commit(s.out);
        else
            mcs_output_abort(s.out);
    }
    mcz_list_free(&list);
    mcz_mc_builder_free(s.thin);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("Loaded %" PRIu64 ", Saved %" PRIu64, s.saved, s.saved);
    return MCS_EXIT_OK;
}
