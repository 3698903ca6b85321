/* verb_fracture.c - mcs -fracture: splits a collection into files of N contexts each. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"

typedef struct fracture_args {
    bool thin;
    const char *format; /* IN's kind when NULL */
} fracture_args;

static const mcs_option fracture_options[] = {
    {.name = "thin", .type = MCS_OPT_FLAG, MCS_FIELD(fracture_args, thin),
     .help = "re-serialize the contexts without their compile results"},
    {.name = "--format", .type = MCS_OPT_VALUE, MCS_FIELD(fracture_args, format), .arg = "mch|mcz",
     .help = "the pieces' kind (default: IN's)"},
    MCS_OPTIONS_END};

const mcs_usage usage_fracture = {
    "-fracture RANGE IN OUTPREFIX",
    "split into files of N contexts each (N: the first number of RANGE)",
    "Contexts 1..N go to OUTPREFIX-00000.mch, N+1..2N to OUTPREFIX-00001.mch, and so on: the\n"
    "name is \"%s-%05d.mch\" as SuperPMI really forms it, so prefix b- gives b--00000.mch.\n"
    "The pieces are of IN's kind unless --format says otherwise: of an archive IN, archives\n"
    "named OUTPREFIX-00000.mcz with its settings (level, chunk size, dictionary, hashes); of\n"
    "an MCH file, MCH files. Every context is deep-checked. Each piece appears only once\n"
    "complete; on an error every piece written by the run is removed.\n",
    fracture_options};

typedef struct fracture_run {
    mcs_run *run;
    mcs_input in;
    const char *prefix;
    bool archives;
    mcz_mc_builder *thin;
    uint64_t per_file, loaded, pieces;
    mcs_output *out; /* the piece being written */
    char *path;      /* its name */
} fracture_run;

static char *piece_name(const fracture_run *f, uint64_t index)
{
    size_t len = strlen(f->prefix) + 32;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s-%05" PRIu64 "%s", f->prefix, index, f->archives ? ".mcz" : ".mch");
    return path;
}

/* Puts the finished piece in place. */
static int piece_close(fracture_run *f)
{
    if (!f->out)
        return 0;
    int rc = mcs_output_commit(f->out);
    f->out = NULL;
    free(f->path);
    f->path = NULL;
    f->pieces += rc == 0;
    return rc;
}

static int piece_open(fracture_run *f)
{
    f->path = piece_name(f, f->pieces);
    if (!f->path) {
        tool_error("out of memory");
        return -1;
    }
    f->out = mcs_output_open(f->run, f->path, f->archives ? MCS_OUTPUT_MCZ : MCS_OUTPUT_MCH, NULL,
                            true);
    return f->out && mcs_output_offer_settings(f->out, &f->in) == 0 ? 0 : -1;
}

/* Removes the pieces an unsuccessful run put in place. */
static void pieces_remove(fracture_run *f)
{
    mcs_output_abort(f->out);
    f->out = NULL;
    free(f->path);
    for (uint64_t i = 0; i < f->pieces; i++) {
        char *path = piece_name(f, i);
        if (path)
            mcz_os_unlink(path);
        free(path);
    }
}

static int fracture_all(fracture_run *f)
{
    tool_progress progress;
    tool_progress_start(&progress, "fracturing", f->in.contexts, f->in.raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(&f->in, &mc)) > 0) {
        if (f->loaded % f->per_file == 0 && (piece_close(f) != 0 || piece_open(f) != 0))
            break;
        if (mcs_output_put_checked(f->out, f->thin, &f->in, &mc) != 0)
            break;
        f->loaded++;
        tool_progress_update(&progress, f->loaded, f->in.read_bytes);
    }
    tool_progress_end(&progress);
    if (rc != 0)
        return -1;
    return piece_close(f);
}

/* The number of contexts per file: the first number of the list. */
static int fracture_size(mcs_run *run, const char *arg, uint64_t *per_file)
{
    mcz_list list = {0};
    int rc = mcs_parse_list(run, arg, &list);
    if (rc != MCS_EXIT_OK)
        return rc;
    *per_file = list.count ? list.ranges[0].first : 0;
    mcz_list_free(&list);
    if (*per_file == 0)
        return mcs_usage_error(&usage_fracture, "RANGE must give a number of contexts");
    return MCS_EXIT_OK;
}

int cmd_fracture(mcs_run *run, int argc, char **argv)
{
    fracture_args a = {0};
    const char *pos[3];
    if (mcs_parse_args(run, argc, argv, &usage_fracture, &a, pos, 3, 3) < 0)
        return MCS_EXIT_USAGE;
    if (a.format && tool_strcasecmp(a.format, "mch") != 0 &&
        tool_strcasecmp(a.format, "mcz") != 0)
        return mcs_usage_error(&usage_fracture, "--format: '%s' is neither mch nor mcz", a.format);
    fracture_run f = {.run = run,
                      .prefix = pos[2],
                      .archives = a.format && tool_strcasecmp(a.format, "mcz") == 0};
    int exit_code = fracture_size(run, pos[0], &f.per_file);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    if (a.thin && !(f.thin = mcz_mc_builder_create())) {
        tool_error("out of memory");
        return MCS_EXIT_FAIL;
    }
    int rc = mcs_input_open(run, &f.in, pos[1]);
    if (rc == 0 && !a.format)
        f.archives = f.in.archive != NULL; /* an archive's pieces stay archives */
    if (rc == 0) {
        rc = fracture_all(&f);
        if (rc != 0)
            pieces_remove(&f);
        mcs_input_close(&f.in);
    }
    mcz_mc_builder_free(f.thin);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("Loaded %" PRIu64 ", wrote %" PRIu64 " files", f.loaded, f.pieces);
    return MCS_EXIT_OK;
}
