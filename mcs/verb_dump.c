/* verb_dump.c - mcs -dump: every map of each context, item by item. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"
#include "mcz_agnostic.h"

const mcs_usage usage_dump = {
    "-dump [RANGE] FILE [-simple]",
    "print every map of each context",
    "Per context a line \"***...*** method context #N IDENTITY\" (the identity string with\n"
    "names; without it under -simple), then for every map present, in the order SuperPMI writes\n"
    "them, \"NAME - COUNT\" and one line per item \"I-TEXT\". TEXT is exactly SuperPMI's for\n"
    "CompileMethod and GetJitFlags (signatures as {flg-.. na-.. cc-.. ci-.. mc-.. mi-.. args-..\n"
    "scp-.. tok-..}); other packets print as \"key HEX, value HEX\" (the item's bytes in file\n"
    "order; a dense map's key is its index in 8 hex digits; \"item HEX\" when the key size is\n"
    "unknown). A context lacking what the identity\n"
    "needs prints <identity unavailable: REASON> instead, and dumping goes on.\n"};

#define STARS "*****************************************"

static void print_hex(FILE *f, const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

static void print_sig(FILE *f, const uint8_t *sig)
{
    fprintf(f,
            "{flg-%08X na-%" PRIu32 " cc-%" PRIu32 " ci-%" PRIu32 " mc-%" PRIu32 " mi-%" PRIu32
            " args-%016" PRIX64 " scp-%016" PRIX64 " tok-%08X}",
            mcs_le32(sig + MCZ_SIG_FLAGS), mcs_le32(sig + MCZ_SIG_NUM_ARGS),
            mcs_le32(sig + MCZ_SIG_CLASS_INST_COUNT), mcs_le32(sig + MCZ_SIG_CLASS_INST_INDEX),
            mcs_le32(sig + MCZ_SIG_METH_INST_COUNT), mcs_le32(sig + MCZ_SIG_METH_INST_INDEX),
            mcs_le64(sig + MCZ_SIG_ARGS), mcs_le64(sig + MCZ_SIG_SCOPE),
            mcs_le32(sig + MCZ_SIG_TOKEN));
}

/* dmpCompileMethod. */
static void dump_compile_method(FILE *f, uint32_t key, const uint8_t *v, uint32_t value_size)
{
    fprintf(f,
            "CompileMethod key %" PRIu32 ", value ftn-%016" PRIX64 " scp-%016" PRIX64
            " ilo-%" PRIu32 " ils-%" PRIu32 " ms-%" PRIu32 " ehc-%" PRIu32 " opt-%" PRIu32
            " rk-%" PRIu32 " args-",
            key, mcs_le64(v + MCZ_MI_FTN), mcs_le64(v + MCZ_MI_SCOPE),
            mcs_le32(v + MCZ_MI_IL_OFFSET), mcs_le32(v + MCZ_MI_IL_SIZE),
            mcs_le32(v + MCZ_MI_MAX_STACK), mcs_le32(v + MCZ_MI_EH_COUNT),
            mcs_le32(v + MCZ_MI_OPTIONS), mcs_le32(v + MCZ_MI_REGION_KIND));
    print_sig(f, v + MCZ_MI_ARGS);
    fputs(" locals-", f);
    print_sig(f, v + MCZ_MI_LOCALS);
    fprintf(f, " flg-%08X os-", mcs_le32(v + MCZ_CM_FLAGS));
    if (value_size >= MCZ_CM_SIZE)
        fprintf(f, "%" PRIu32, mcs_le32(v + MCZ_CM_OS));
    else
        fputs(MCS_UNKNOWN, f);
}

/* dmpGetJitFlags: the stored CORJIT_FLAGS' first word, by name. */
static void dump_jit_flags(FILE *f, const mcz_map *m, uint32_t key, const uint8_t *v)
{
    uint8_t word[8] = {0};
    const uint8_t *raw;
    uint32_t len = 0, size = mcs_le32(v + MCS_DD_B);
    char text[1024] = MCS_UNKNOWN;
    if (mcz_map_buffer(m, mcs_le32(v + MCS_DD_A), &raw, &len) == MCZ_OK) {
        uint32_t n = size < len ? size : len;
        memcpy(word, raw, n < 8 ? n : 8);
        mcs_jit_flags_text(mcs_le64(word), text, sizeof text);
    }
    fprintf(f, "GetJitFlags key %" PRIu32 " sizeof %" PRIu32 " value %s", key, size, text);
}

static void dump_item(FILE *f, uint8_t id, const mcz_map *m, uint32_t i)
{
    const uint8_t *key = m->dense ? NULL : mcz_map_key(m, i);
    const uint8_t *value = mcz_map_value(m, i);
    if (id == MCZ_PACKET_COMPILE_METHOD && key && m->key_size == 4 &&
        m->value_size >= MCZ_CM_SIZE_NO_OS)
        dump_compile_method(f, mcs_le32(key), value, m->value_size);
    else if (id == MCZ_PACKET_GET_JIT_FLAGS && key && m->key_size == 4 &&
             m->value_size == MCZ_DD_SIZE)
        dump_jit_flags(f, m, mcs_le32(key), value);
    else if (m->dense) {
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
    fprintf(f, "%s - %" PRIu32 "\n", mcz_packet_name(v, id, name, sizeof name), m.count);
    for (uint32_t i = 0; i < m.count && !ferror(f); i++) {
        fprintf(f, "%" PRIu32 "-", i);
        dump_item(f, id, &m, i);
        fputc('\n', f);
    }
}

/* Why the identity could not be built, without the "context N: " the library leads with. */
static const char *identity_problem(const mcz_mc *mc, const mcz_diag *d, int64_t code)
{
    if (!d->message[0])
        return mcz_error_name(code < 0 ? (int)code : MCZ_ENOMEM);
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "context %" PRIu32 ": ", mc->number);
    bool led = n > 0 && strncmp(d->message, prefix, (size_t)n) == 0;
    return led ? d->message + n : d->message;
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
            fprintf(f, " <identity unavailable: %s>", identity_problem(mc, &d, len));
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

int cmd_dump(int argc, char **argv)
{
    bool simple = false;
    const mcs_option opts[] = {{"simple", NULL, &simple}, {NULL, NULL, NULL}};
    const char *pos[1];
    mcz_list list;
    int exit_code = mcs_parse_ranged(argc, argv, &usage_dump, opts, 1, pos, &list);
    if (exit_code != MCS_EXIT_OK)
        return exit_code;
    int rc = mcs_for_each_context(pos[0], &list, NULL, dump_one, &simple, NULL);
    mcz_list_free(&list);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
