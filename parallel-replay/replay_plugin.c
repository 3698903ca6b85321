/*
 * replay_plugin.c - loading a replay plugin (mcz_replay.h) and calling it for one context.
 * The parent loads the plugin once before forking, so a missing file, a missing symbol or an ABI
 * mismatch is one clear error before any work starts; each worker then calls init() itself.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

int replay_plugin_load(const char *path, const mcz_replay_plugin_desc **out, char *msg,
                       size_t cap)
{
    *out = NULL;
    /* dlopen() searches the library path for a bare name; a plugin is a file the user names. */
    char local[4096];
    if (!strchr(path, '/')) {
        snprintf(local, sizeof local, "./%s", path);
        path = local;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(msg, cap, "cannot load plugin: %s", dlerror());
        return MCZ_EINVAL;
    }
    void *sym = dlsym(lib, MCZ_REPLAY_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(msg, cap, "plugin %s does not export %s()", path, MCZ_REPLAY_ENTRY_SYMBOL);
        dlclose(lib);
        return MCZ_EINVAL;
    }
    mcz_replay_plugin_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
    const mcz_replay_plugin_desc *desc = entry();
    if (!desc || desc->abi_version != MCZ_REPLAY_ABI_VERSION ||
        desc->struct_size < sizeof *desc) {
        snprintf(msg, cap, "plugin %s: ABI version %u, mcz-replay speaks version %u", path,
                 desc ? desc->abi_version : 0, MCZ_REPLAY_ABI_VERSION);
        dlclose(lib);
        return MCZ_EVERSION;
    }
    if (!desc->init || !desc->replay) {
        snprintf(msg, cap, "plugin %s: init() and replay() are required", path);
        dlclose(lib);
        return MCZ_EINVAL;
    }
    *out = desc; /* the library stays loaded for the life of the process */
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
