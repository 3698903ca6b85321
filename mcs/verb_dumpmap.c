/* verb_dumpmap.c - mcs -dumpMap: one CSV row per context: name, signature, JIT flags, os. */
#include <inttypes.h>
#include <stdlib.h>

#include "mcs_context.h"
#include "mcs_verbs.h"
#include "mcz_agnostic.h"

const mcs_usage usage_dumpmap = {
    "-dumpMap FILE",
    "print one CSV row per context",
    "Header: index,method name,full signature,jit flags,os. Each row as SuperPMI's mcs writes\n"
    "it: N,CLASS:METHOD,\"ATTR RET METHOD[INST](ARGS)\", FLAGS, OS, where FLAGS is each set\n"
    "flag's name after a space (so the column starts with two spaces when any is set).\n"
    "Where SuperPMI's mcs stops on missing data, <unknown> is printed instead and the rows go\n"
    "on. A field holding a comma, quote or line break is quoted as RFC 4180 says (quotes\n"
    "doubled); rows that need no quoting are byte for byte SuperPMI's.\n",
    NULL};

enum { PACKET_GET_METHOD_SIG_KEY_SIZE = 16 }; /* DLDL {ftn, memberParent} */

/* The instantiations of GetMethodSig(ftn, 0): class then method. */
static void print_instantiation(FILE *f, const mcz_mc *mc, uint64_t ftn)
{
    mcz_map m;
    uint8_t key[PACKET_GET_METHOD_SIG_KEY_SIZE] = {0};
    for (int i = 0; i < 8; i++)
        key[i] = (uint8_t)(ftn >> (8 * i));
    const uint8_t *sig = mcs_map_of(mc, MCZ_PACKET_GET_METHOD_SIG, &m, NULL) == 1
                             ? mcz_map_find(&m, key, sizeof key) : NULL;
    if (!sig || m.value_size < MCZ_SIG_SIZE) {
        fputs(MCS_UNKNOWN, f);
        return;
    }
    mcs_print_inst(f, mc, mcz_get_le32(sig + MCZ_SIG_CLASS_INST_COUNT),
                   mcz_get_le32(sig + MCZ_SIG_CLASS_INST_INDEX));
    mcs_print_inst(f, mc, mcz_get_le32(sig + MCZ_SIG_METH_INST_COUNT),
                   mcz_get_le32(sig + MCZ_SIG_METH_INST_INDEX));
}

/* "<attr><ret> <method><inst>(<args>)" into a string (malloc'ed), or NULL. */
static char *full_signature(const mcz_jit_ee *v, const mcz_mc *mc, const mcs_method *method,
                            const char *name)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = mcz_os_memstream_open(&text, &len);
    if (!f)
        return NULL;
    if (method) {
        const uint8_t *args = method->info + MCZ_MI_ARGS;
        uint64_t ftn = mcz_get_le64(method->info + MCZ_MI_FTN);
        mcs_print_attributes(f, mc, ftn);
        mcs_print_prim(f, v, mc, mcz_get_le32(args + MCZ_SIG_RET_TYPE),
                       mcz_get_le64(args + MCZ_SIG_RET_TYPE_CLASS));
        fprintf(f, " %s", name);
        print_instantiation(f, mc, ftn);
        fputc('(', f);
        mcs_print_sig_args(f, v, mc, args);
        fputc(')', f);
    } else {
        fputs(MCS_UNKNOWN, f);
    }
    bool failed = ferror(f) != 0;
    if (mcz_os_stream_close(f) != 0 || failed) {
        free(text);
        return NULL;
    }
    return text;
}

static int dumpmap_row(const mcz_jit_ee *v, const mcz_mc *mc)
{
    mcs_method method;
    bool have_method = mcs_method_load(mc, &method, NULL) == 1;
    uint64_t ftn = have_method ? mcz_get_le64(method.info + MCZ_MI_FTN) : 0;
    char cls[MCS_NAME_SIZE] = MCS_UNKNOWN, name[MCS_NAME_SIZE] = MCS_UNKNOWN;
    if (have_method) {
        mcs_method_class_name(mc, ftn, cls);
        mcs_print_name(mc, MCZ_PACKET_PRINT_METHOD_NAME, ftn, name);
    }
    char *signature = full_signature(v, mc, have_method ? &method : NULL, name);
    if (!signature)
        return -1;
    char column[2 * MCS_NAME_SIZE + 1];
    snprintf(column, sizeof column, "%s:%s", cls, name);
    printf("%" PRIu32 ",", mc->number);
    tool_csv_field(stdout, column);
    putchar(',');
    tool_csv_quoted(stdout, signature); /* always quoted, as SuperPMI writes it */
    free(signature);
    uint64_t flags;
    char text[1024] = MCS_UNKNOWN;
    if (mcs_jit_flags(mc, &flags, NULL) == 1)
        mcs_jit_flags_text(flags, text, sizeof text);
    printf(", %s, ", text);
    if (have_method && method.has_os)
        printf("%d\n", (int)mcz_get_le32(method.info + MCZ_CM_OS));
    else
        printf("%s\n", MCS_UNKNOWN);
    return 0;
}

static int dumpmap_one(void *unused, mcs_input *in, const mcz_mc *mc)
{
    (void)unused;
    if (dumpmap_row(mcs_input_jit_ee(in), mc) == 0)
        return 0;
    tool_error("out of memory");
    return -1;
}

int cmd_dumpmap(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(run, argc, argv, &usage_dumpmap, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    printf("index,method name,full signature,jit flags,os\n");
    mcz_list all = {0};
    int rc = mcs_for_each_sound_context(run, pos[0], &all, NULL, dumpmap_one, NULL, NULL);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
