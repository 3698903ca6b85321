/*
 * mchgen.c - command line of the synthetic SuperPMI collection generator.
 *
 *   mchgen --seed N --contexts N --out F.mch [--preset NAME] [--report]
 *
 * Same seed and options give the same bytes. Exit codes: 0 success, 1 failure, 2 usage. Its
 * options: one table (tools/tool_options.h), --help made from it.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mchgen_model.h"
#include "tool.h"
#include "tool_options.h"

#define EXIT_USAGE 2

/* Contexts of the held-out sample the dictionary is trained on (--report): about 3 MB, the
 * same whatever the corpus size, so the ratio does not drift with it. */
#define HELD_OUT_CONTEXTS 300

/* ---- Presets ---- */

/* The calibrated model (bench/README.md, "mchgen"); presets differ in the fields named in
 * MODEL(). MinOpts contexts are drawn at 54% of fresh roots: recompilations (Tier1 after
 * Tier0) turn some into optimized ones, which leaves about the 39% of real collections. The
 * values were tuned together against --report; each moves all three ratios. */
#define MODEL(NAME, HELP, CONTEXTS, RUN, NO_NAMES, CR, GIANT)                                 \
    {                                                                                          \
        .name = NAME, .help = HELP, .default_contexts = CONTEXTS, .run_median = RUN,           \
        .minopts_share = 0.54, .no_names_share = NO_NAMES, .pgo_share = 0.12, .cr_share = CR,  \
        .giant_interval = GIANT, .inline_chance = 1.0, .inline_depth = 10,                     \
        .inline_budget = 2000, .inline_max_il = 200, .callee_name_share = 0.0,                 \
        .cluster_share = 0.5, .cluster_mean = 3, .candidate_share = 0.3,                       \
        .variant_share = 0.35, .requery_share = 0.7,                                           \
    }

static const mg_preset preset_default =
    MODEL("default", "the calibrated model: thin, ~39% MinOpts, 15% without names, PGO",
          20000, 300, 0.15, 0.0, 8000);
static const mg_preset preset_small =
    MODEL("small", "the default model; 300 contexts unless --contexts (for tests)", 300, 300,
          0.15, 0.0, 0);
static const mg_preset preset_release =
    MODEL("release", "as default, but 80% of contexts lack name packets (release JIT)", 20000,
          300, 0.80, 0.0, 8000);
static const mg_preset preset_full =
    MODEL("full", "as default, with compile results (ProcessName, CompileMethod, AllocMem...)",
          20000, 300, 0.15, 1.0, 8000);

static const mg_preset *const presets[] = {&preset_default, &preset_small, &preset_release,
                                           &preset_full, NULL};

const mg_preset *mg_preset_find(const char *name)
{
    for (size_t i = 0; presets[i]; i++)
        if (strcmp(presets[i]->name, name) == 0)
            return presets[i];
    return NULL;
}

const mg_preset *const *mg_preset_list(void) { return presets; }

/* ---- Command line ---- */

typedef struct options {
    uint64_t seed;
    uint32_t contexts; /* 0: the preset's default */
    const char *out;
    const mg_preset *preset;
    const mcz_jit_ee *jit_ee; /* the version written (default B: bench figures stay comparable) */
    bool report;
} options;

static bool set_out(void *arg, const char *value)
{
    options *o = arg;
    if (value[0] == '-' && value[1] == '-')
        return false; /* "--out --report": the name forgotten (--out=./--x names such a file) */
    o->out = value;
    return *value != '\0';
}

static bool set_preset(void *arg, const char *value)
{
    options *o = arg;
    o->preset = mg_preset_find(value);
    return o->preset != NULL;
}

#define FLAG(f) TOOL_FLAG(options, f)
#define COUNT(f, lo, hi) TOOL_COUNT(options, f, lo, hi)

/* In --help's order. */
static const tool_option options_table[] = {
    {.name = "seed", .arg = "N", COUNT(seed, 0, UINT64_MAX), .want = "want a number from 0",
     .help = "seed of the collection: runs, handles, methods (default 1)"},
    {.name = "contexts", .arg = "N", COUNT(contexts, 1, 100000000),
     .want = "want a number of contexts from 1 to 100000000",
     .help = "number of contexts (default: the preset's, 20000 for default)"},
    {.name = "out", .arg = "F.mch", TOOL_SETTER(set_out), .want = "want a file name",
     .help = "output file, written atomically (nothing there unless complete)"},
    {.name = "preset", .arg = "NAME", TOOL_SETTER(set_preset),
     .want = "want one of the presets (mchgen --help lists them)",
     .help = "model variant (default: default; the presets below)"},
    {.name = "jit-ee", .arg = "V", TOOL_JIT_EE(options, jit_ee),
     .help = "JIT-EE version to write (name or GUID; default B): its packet\n"
             "table, write order and CorInfoType numbering"},
    {.name = "report", FLAG(report),
     .help = "validate every context and print size, IL and compression figures\n"
             "(zstd level 3: per context, with a dictionary, 1 MiB chunks)\n"
             "next to the published targets (dictionary trained on 300\n"
             "held-out contexts of other runs); alone, works in memory"},
    {.name = "h", .alias = "help", .type = TOOL_OPT_HELP, .help = "this text"},
    {.name = "version", .type = TOOL_OPT_VERSION,
     .help = "the version of mchgen and of its libraries"},
};

static const char help_head[] =
    "Usage: mchgen [options]\n"
    "\n"
    "Writes a synthetic SuperPMI collection (.mch): method contexts with the packets,\n"
    "sizes and redundancy of real collections, deterministic per seed and options.\n"
    "\n"
    "options:\n";

/* --help's text after the options: the presets, from their table. */
static char help_tail[1024];

static tool_options_def options_def = {
    .options = options_table,
    .count = sizeof options_table / sizeof *options_table,
    .help_head = help_head,
    .help_tail = help_tail,
    .usage_exit = EXIT_USAGE,
    .fail_exit = 1,
    .usage_hint = "try 'mchgen --help'",
};

static void help_tail_make(void)
{
    size_t len = (size_t)snprintf(help_tail, sizeof help_tail, "\npresets:\n");
    for (size_t i = 0; presets[i] && len < sizeof help_tail; i++)
        len += (size_t)snprintf(help_tail + len, sizeof help_tail - len, "  %-8s %s\n",
                                presets[i]->name, presets[i]->help);
    if (len < sizeof help_tail)
        snprintf(help_tail + len, sizeof help_tail - len,
                 "\nAt least one of --out and --report is required. Exit codes: 0 success,\n"
                 "1 failure, 2 usage error.\n");
    assert(len < sizeof help_tail); /* the presets fit */
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, options *o)
{
    o->seed = 1;
    o->preset = &preset_default;
    o->jit_ee = mcz_jit_ee_find("B");
    help_tail_make();
    char **operands = calloc((size_t)argc + 1, sizeof *operands);
    if (!operands) {
        tool_error("out of memory");
        return 1;
    }
    size_t operand_count;
    int code = tool_options_parse(&options_def, argc, argv, o, operands, &operand_count);
    if (code < 0 && operand_count)
        code = tool_options_usage_error(&options_def, "unexpected argument '%s'", operands[0]);
    free(operands);
    if (code >= 0)
        return code;
    if (!o->out && !o->report)
        return tool_options_usage_error(&options_def,
                                        "nothing to do: give --out, --report or both");
    if (!o->contexts)
        o->contexts = o->preset->default_contexts;
    return -1;
}

/* ---- Generation ---- */

/* The corpus kept in memory for --report. */
typedef struct image {
    uint8_t *data;
    size_t len, cap;
} image;

static int image_append(image *im, const uint8_t *bytes, size_t size)
{
    if (!im->data || size > im->cap - im->len) { /* memcpy wants a buffer even for 0 bytes */
        size_t cap = im->cap ? im->cap : 64u << 20;
        while (cap - im->len < size)
            cap *= 2;
        uint8_t *grown = realloc(im->data, cap);
        if (!grown)
            return MCZ_ENOMEM;
        im->data = grown;
        im->cap = cap;
    }
    memcpy(im->data + im->len, bytes, size);
    im->len += size;
    return MCZ_OK;
}

/* Appends every context g still has to give to out and/or im. */
static int drain(mg_generator *g, mcz_outfile *out, image *im)
{
    const uint8_t *bytes;
    size_t size;
    int rc;
    while ((rc = mg_generator_next(g, &bytes, &size)) == 1) {
        if (out && (rc = mcz_outfile_write(out, bytes, size)) != MCZ_OK)
            break;
        if (im && (rc = image_append(im, bytes, size)) != MCZ_OK)
            break;
    }
    return rc;
}

/* The corpus to out (and im for --report), then the held-out training sample to train. */
static int generate(const options *o, mcz_outfile *out, image *im, image *train)
{
    mg_generator *g = mg_generator_create(o->preset, o->jit_ee, o->seed, o->contexts);
    if (!g) {
        tool_error("out of memory");
        return MCZ_ENOMEM;
    }
    int rc = drain(g, out, im);
    if (rc == 0 && train) {
        mg_generator_hold_out(g, HELD_OUT_CONTEXTS);
        rc = drain(g, NULL, train);
    }
    if (rc != 0)
        tool_error("%s", mcz_error_name(rc));
    mg_generator_free(g);
    return rc;
}

int main(int argc, char **argv)
{
    tool_set_program("mchgen");
    mcz_os_stdio_binary();
    if (tool_check_library() != 0)
        return 1;
    tool_signals_install();
    options o = {0};
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    mcz_diag diag;
    mcz_outfile *out = NULL;
    if (o.out && !(out = mcz_outfile_open(o.out, &diag))) {
        tool_error("%s", diag.message); /* it names the file */
        return 1;
    }
    image im = {0}, train = {0};
    int rc = generate(&o, out, o.report ? &im : NULL, o.report ? &train : NULL);
    if (rc == 0 && out) {
        rc = mcz_outfile_commit(out, &diag);
        out = NULL;
        if (rc != MCZ_OK)
            tool_error("%s", diag.message);
    }
    mcz_outfile_abort(out);
    if (rc == 0 && o.report)
        rc = mg_report(im.data, im.len, train.data, train.len);
    free(im.data);
    free(train.data);
    if (tool_close_stdout() != 0)
        return 1;
    return rc == 0 ? 0 : 1;
}
