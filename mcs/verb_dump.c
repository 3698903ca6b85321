/* verb_dump.c - mcs -dump: every map of each context, item by item. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_packet_text.h"
#include "mcs_verbs.h"
#include "mcz_agnostic.h"

typedef struct dump_args {
    bool simple;
} dump_args;

static const mcs_option dump_options[] = {
    {.name = "simple", .type = MCS_OPT_FLAG, MCS_FIELD(dump_args, simple),
     .help = "print each context's first line without its IDENTITY"},
    MCS_OPTIONS_END};

const mcs_usage usage_dump = {
    "-dump [RANGE] FILE",
    "print every map of each context",
    "Per context a line \"***...*** method context #N IDENTITY\" (the identity string with\n"
    "names), then for every map present, in the order SuperPMI writes\n"
    "them, \"NAME - COUNT\" (the map's bare name: \"AllocMem\" for CR_AllocMem) and one line per\n"
    "item \"I-TEXT\". TEXT is SuperPMI's dmp text for CompileMethod, GetMethodInfo, GetJitFlags,\n"
    "GetMethodSig, FindSig, GetArgType, GetArgClass, GetArgNext, GetMethodClass, the Print*Name\n"
    "packets, SigInstHandleMap and the packets of one handle and one number (GetArrayRank,\n"
    "IsValueClass, GetClassSize...); signatures as\n"
    "{callConv-.. retTypeClass-.. retType-..(TYPE) flg-.. na-.. cc-.. ci-.. {..} mc-.. mi-.. {..}\n"
    "args-.. sig-cbSig-.., si-.. sig-{..} msig-.. scp-.. tok-..}. Other packets print as\n"
    "\"key HEX, value HEX\" (the item's bytes in file order; a dense map's key is its index in 8\n"
    "hex digits; \"item HEX\" when the key size is unknown).\n"
    "Where mcz differs from SuperPMI's mcs: a context lacking what the identity needs prints\n"
    "<identity unavailable: REASON> and dumping goes on; TYPE is named as -dumpMap names types\n"
    "(int32, class NAME, <unknown> without its class), not int, class; GetJitFlags prints two\n"
    "instruction-set words (bytes not stored as zeros), names bits 29 and 30 as arm's mcs does\n"
    "and does not name instruction sets; what lies outside the map (a pool index naming no\n"
    "chunk, a SigInstHandleMap index past its end) prints <unknown> or (NO SIG FOUND).\n",
    dump_options};

#define STARS "*****************************************"
#define CR_PREFIX "CR_" /* how mcz's packet table names compile-result packets */

static void print_hex(FILE *f, const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

/* The bytes of an item whose layout is not known here. */
static void dump_raw(FILE *f, const mcz_map *m, uint32_t i)
{
    const uint8_t *key = m->dense ? NULL : mcz_map_key(m, i);
    const uint8_t *value = mcz_map_value(m, i);
    if (m->dense) {
        fprintf(f, "key %08" PRIx32 ", value ", i);
        print_hex(f, value, m->item_size);
    } else if (key && value) {
        fputs("key ", f);
        print_hex(f, key, m->key_size);
        fputs(", value ", f);
        print_hex(f, value, m->value_size);
    } else {
        fputs("item ", f);
        print_hex(f, m->items + (size_t)i * m->item_size, m->item_size);
    }
}

/* The map's name as lightweightmap.h's dumpLWM prints it: the member's bare name, so
 * CR_AllocMem is "AllocMem". */
static const char *map_title(const mcz_jit_ee *v, uint8_t id, const char *name)
{
    const mcz_packet_info *info = mcz_jit_ee_packet(v, id);
    if (info && info->compile_result && strncmp(name, CR_PREFIX, strlen(CR_PREFIX)) == 0)
        return name + strlen(CR_PREFIX);
    return name;
}

static void dump_map(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, uint8_t id)
{
    mcz_map m;
    if (mcs_map_of(mc, id, &m, NULL) != 1)
        return;
    /* The table leaves CompileMethod's value size open: its key is a u32. */
    if (id == MCZ_PACKET_COMPILE_METHOD && !m.dense && m.key_size == 0 && m.item_size > 4) {
        m.key_size = 4;
        m.value_size = m.item_size - 4;
    }
    char name[64];
    mcz_packet_name(v, id, name, sizeof name);
    fprintf(f, "%s - %" PRIu32 "\n", map_title(v, id, name), m.count);
    for (uint32_t i = 0; i < m.count && !ferror(f); i++) {
        fprintf(f, "%" PRIu32 "-", i);
        if (!mcs_packet_text(f, v, mc, name, &m, i))
            dump_raw(f, &m, i);
        fputc('\n', f);
    }
}

/* Why the identity could not be built (the line names the context already). */
static const char *identity_problem(const mcz_diag *d, int64_t code)
{
    return d->message[0] ? d->message : mcz_error_name(code < 0 ? (int)code : MCZ_ENOMEM);
}

static void dump_header(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, bool simple)
{
    fprintf(f, STARS " method context #%" PRIu32, mc->number);
    if (!simple) {
        mcz_diag d;
        mcz_diag_clear(&d);
        int64_t len = mcz_mc_identity(v, mc, false, NULL, 0, &d);
        char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
        if (text && mcz_mc_identity(v, mc, false, text, (size_t)len + 1, NULL) >= 0)
            fprintf(f, " %s", text);
        else
            fprintf(f, " <identity unavailable: %s>", identity_problem(&d, len));
        free(text);
    }
    fputc('\n', f);
}

static void dump_context(FILE *f, const mcz_jit_ee *v, const mcz_mc *mc, bool simple)
{
    bool present[256] = {false}, listed[256] = {false};
    uint32_t pos = 0;
    mcz_packet p;
    while (mcz_packet_next(mc, &pos, &p, NULL) == 1)
        present[p.id] = true;
    dump_header(f, v, mc, simple);
    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(v, &count);
    for (size_t i = 0; i < count; i++) {
        listed[order[i]] = true;
        if (present[order[i]])
            dump_map(f, v, mc, order[i]);
    }
    for (unsigned id = 0; id < 256; id++)
        if (present[id] && !listed[id])
            dump_map(f, v, mc, (uint8_t)id);
}

static int dump_one(void *simple, mcs_input *in, const mcz_mc *mc)
{
    dump_context(stdout, mcs_input_jit_ee(in), mc, *(const bool *)simple);
    return 0;
}

int cmd_dump(mcs_run *run, int argc, char **argv)
{
    dump_args a = {0};
    const char *pos[1];
    mcz_list list;
    int exit_code = mcs_parse_ranged(run, argc, argv, &usage_dump, &a, 1, pos, &list);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    int rc = mcs_for_each_context(run, pos[0], &list, NULL, dump_one, &a.simple, NULL);
    mcz_list_free(&list);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
