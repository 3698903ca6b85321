/*
 * replay_plugin.c - loading a replay plugin (mcz_replay.h) and calling it for one context.
 * The parent loads the plugin once before forking, so a missing file, a missing symbol or an ABI
 * mismatch is one clear error before any work starts; each worker then calls init() itself.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

int replay_plugin_load(const char *path, const mcz_replay_plugin_desc **out, char *msg,
                       size_t cap)
{
    *out = NULL;
    void *lib = replay_os_library_open(path, msg, cap);
    if (!lib)
        return MCZ_EINVAL;
    void *sym = mcz_os_library_symbol(lib, MCZ_REPLAY_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(msg, cap, "plugin %s does not export %s()", path, MCZ_REPLAY_ENTRY_SYMBOL);
        mcz_os_library_close(lib);
        return MCZ_EINVAL;
    }
    mcz_replay_plugin_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
    const mcz_replay_plugin_desc *given = entry();
    uint32_t version = given ? given->abi_version : 0;
    size_t need = version == 1 ? MCZ_REPLAY_DESC_V1_SIZE : sizeof *given;
    if (!given || version < MCZ_REPLAY_ABI_VERSION_MIN || version > MCZ_REPLAY_ABI_VERSION ||
        given->struct_size < need) {
        snprintf(msg, cap, "plugin %s: ABI version %u, mcz-replay speaks versions %u to %u",
                 path, version, MCZ_REPLAY_ABI_VERSION_MIN, MCZ_REPLAY_ABI_VERSION);
        mcz_os_library_close(lib);
        return MCZ_EVERSION;
    }
    /* a version 1 struct ends before the version 2 members: they read as NULL (one plugin per
     * process, so one copy) */
    static mcz_replay_plugin_desc loaded;
    mcz_replay_plugin_desc *desc = &loaded;
    memset(desc, 0, sizeof *desc);
    memcpy(desc, given, need);
    if (!desc->init || !desc->replay) {
        snprintf(msg, cap, "plugin %s: init() and replay() are required", path);
        mcz_os_library_close(lib);
        return MCZ_EINVAL;
    }
    if (desc->diffs && !desc->replay_diff) {
        snprintf(msg, cap, "plugin %s: diffs() without replay_diff()", path);
        mcz_os_library_close(lib);
        return MCZ_EINVAL;
    }
    *out = desc; /* it and the library stay for the life of the process */
    return MCZ_OK;
}

int replay_plugin_context(const mcz_replay_plugin_desc *p, void *state, const mcz_mc *mc,
                          char *msg, size_t cap)
{
    msg[0] = '\0';
    int status = p->replay(state, mc->number, mc->bytes, mc->size, msg, cap);
    msg[cap - 1] = '\0';
    switch (status) {
    case MCZ_REPLAY_SUCCESS:
        return REPLAY_SUCCESS;
    case MCZ_REPLAY_MISSING:
        return REPLAY_MISSING;
    case MCZ_REPLAY_FAILURE:
        return REPLAY_FAILURE;
    default:
        if (!msg[0])
            snprintf(msg, cap, "plugin returned unknown status %d", status);
        return REPLAY_FAILURE;
    }
}

static const char *status_result(int status)
{
    return status == MCZ_REPLAY_SUCCESS ? "Success" : status == MCZ_REPLAY_MISSING ? "Miss"
                                                                                   : "Error";
}

int replay_plugin_diff(const mcz_replay_plugin_desc *p, void *state, const mcz_mc *mc,
                       char *row, size_t row_cap, bool *miss, char *msg, size_t cap)
{
    mcz_replay_diff d;
    memset(&d, 0, sizeof d);
    msg[0] = '\0';
    p->replay_diff(state, mc->number, mc->bytes, mc->size, &d, msg, cap);
    msg[cap - 1] = '\0';
    /* the row under replay_default_header(REPLAY_STYLE_SPMI_DIFFS), Context left out */
    snprintf(row, row_cap, "%zu,\"\",,%s,%s,%s,%s,%llu,%llu,%llu,%llu,%.2f,%.2f\n", mc->size,
             status_result(d.base_status), status_result(d.diff_status),
             d.minopts ? "True" : "False", d.has_diff ? "True" : "False",
             (unsigned long long)d.base_instructions, (unsigned long long)d.diff_instructions,
             (unsigned long long)d.base_code_bytes, (unsigned long long)d.diff_code_bytes,
             d.base_perfscore, d.diff_perfscore);
    *miss = d.base_status == MCZ_REPLAY_MISSING || d.diff_status == MCZ_REPLAY_MISSING;
    bool failed = (d.base_status != MCZ_REPLAY_SUCCESS && d.base_status != MCZ_REPLAY_MISSING) ||
                  (d.diff_status != MCZ_REPLAY_SUCCESS && d.diff_status != MCZ_REPLAY_MISSING);
    return failed ? REPLAY_FAILURE : *miss ? REPLAY_MISSING
                                           : d.has_diff ? REPLAY_DIFF : REPLAY_SUCCESS;
}
