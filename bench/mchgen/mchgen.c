/*
 * mchgen.c - command line of the synthetic SuperPMI collection generator.
 *
 *   mchgen --seed N --contexts N --out F.mch [--preset NAME] [--report]
 *
 * Same seed and options give the same bytes. Exit codes: 0 success, 1 failure, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mchgen_model.h"
#include "tool.h"

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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mchgen [--seed N] [--contexts N] [--out F.mch] [--preset NAME] [--jit-ee V]\n"
            "              [--report]\n"
            "\n"
            "Writes a synthetic SuperPMI collection (.mch): method contexts with the packets,\n"
            "sizes and redundancy of real collections, deterministic per seed and options.\n"
            "\n"
            "  --seed N       seed of the collection: runs, handles, methods (default 1)\n"
            "  --contexts N   number of contexts (default: the preset's, 20000 for default)\n"
            "  --out F.mch    output file, written atomically (nothing there unless complete)\n"
            "  --preset NAME  model variant (default: default)\n"
            "  --jit-ee V     JIT-EE version to write (name or GUID; default B): its packet\n"
            "                 table, write order and CorInfoType numbering\n"
            "  --report       validate every context and print size, IL and compression figures\n"
            "                 (zstd level 3: per context, with a dictionary, 1 MiB chunks)\n"
            "                 next to the published targets (dictionary trained on 300\n"
            "                 held-out contexts of other runs); alone, works in memory\n"
            "  --help         this text\n"
            "  --version      the version of mchgen and of its libraries\n"
            "\n"
            "presets:\n");
    for (size_t i = 0; presets[i]; i++)
        fprintf(f, "  %-8s %s\n", presets[i]->name, presets[i]->help);
    fprintf(f, "\nAt least one of --out and --report is required. Exit codes: 0 success,\n"
               "1 failure, 2 usage error.\n");
}

static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    return tool_parse_count(text, false, 0, max, out) == MCZ_OK;
}

static int usage_error(const char *what, const char *arg)
{
    tool_error("%s%s%s", what, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "try 'mchgen --help'\n");
    return EXIT_USAGE;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, options *o)
{
    o->seed = 1;
    o->preset = &preset_default;
    o->jit_ee = mcz_jit_ee_find("B");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            tool_print_version();
            return 0;
        } else if (strcmp(a, "--report") == 0) {
            o->report = true;
            continue;
        } else if (!v) {
            return usage_error(strncmp(a, "--", 2) == 0 ? "missing value for" : "unknown argument",
                               a);
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_u64(v, UINT64_MAX, &o->seed))
                return usage_error("bad seed", v);
        } else if (strcmp(a, "--contexts") == 0) {
            if (!parse_u64(v, 100000000, &n) || n == 0)
                return usage_error("bad context count (1..100000000)", v);
            o->contexts = (uint32_t)n;
        } else if (strcmp(a, "--out") == 0) {
            o->out = v;
        } else if (strcmp(a, "--jit-ee") == 0) {
            o->jit_ee = mcz_jit_ee_find(v);
            if (!o->jit_ee)
                return usage_error("unknown JIT-EE version", v);
        } else if (strcmp(a, "--preset") == 0) {
            o->preset = mg_preset_find(v);
            if (!o->preset)
                return usage_error("unknown preset", v);
        } else {
            return usage_error("unknown argument", a);
        }
        i++;
    }
    if (!o->out && !o->report)
        return usage_error("nothing to do: give --out, --report or both", NULL);
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
