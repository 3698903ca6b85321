/*
 * source.c - the one way bytes come in (source.h): the opener by name, what every backend
 * shares (views, references), and the local backends: a mapped file (a stream spooled first,
 * file.c) and bytes in memory.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "source.h"

bool mcz_src_is_url(const char *name)
{
    return name && (strncasecmp(name, "http://", 7) == 0 || strncasecmp(name, "https://", 8) == 0);
}

int mcz_path_is_url(const char *path)
{
    return mcz_src_is_url(path);
}

mcz_src *mcz_src_new(const mcz_src_backend *backend, const char *name, void *impl)
{
    mcz_src *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(name ? name : ""))) {
        free(s);
        return NULL;
    }
    s->backend = backend;
    s->impl = impl;
    s->refs = 1;
    return s;
}

mcz_src *mcz_src_ref(mcz_src *s)
{
    if (s)
        atomic_fetch_add((_Atomic int *)&s->refs, 1);
    return s;
}

void mcz_src_close(mcz_src *s)
{
    if (!s || atomic_fetch_sub((_Atomic int *)&s->refs, 1) != 1)
        return;
    if (s->backend->close)
        s->backend->close(s);
    free(s->name);
    free(s);
}

int mcz_src_view(mcz_src *s, uint64_t off, uint64_t len, const uint8_t **view, mcz_diag *diag)
{
    if (!mcz_fits(s->size, off, len))
        return mcz_fail_at(diag, s->name, MCZ_ECORRUPT, mcz_at_offset((int64_t)off), MCZ_NO_CONTEXT,
                           "%llu bytes at %llu are past its end (%llu bytes)",
                           (unsigned long long)len, (unsigned long long)off,
                           (unsigned long long)s->size);
    mcz_src_range r = {off, len};
    int rc = len && s->backend->fetch ? s->backend->fetch(s, &r, 1, diag) : MCZ_OK;
    if (rc == MCZ_OK)
        *view = s->image + off;
    return rc;
}

int mcz_src_prefetch(mcz_src *s, const mcz_src_range *ranges, size_t n, mcz_diag *diag)
{
    for (size_t i = 0; i < n; i++)
        if (!mcz_fits(s->size, ranges[i].off, ranges[i].len))
            return mcz_fail_at(diag, s->name, MCZ_EINVAL, mcz_at_offset((int64_t)ranges[i].off),
                               MCZ_NO_CONTEXT, "prefetch past its end");
    return n && s->remote && s->backend->fetch ? s->backend->fetch(s, ranges, n, diag) : MCZ_OK;
}

void mcz_src_keep(mcz_src *s, const mcz_src_range *ranges, size_t n)
{
    if (s && s->backend->keep)
        s->backend->keep(s, ranges, n);
}

void mcz_src_drop_behind(const mcz_src *s, uint64_t *dropped, uint64_t pos)
{
    if (s && s->backend->drop_behind)
        s->backend->drop_behind(s, dropped, pos);
}

uint64_t mcz_src_data_end(const mcz_src *s, uint64_t *at)
{
    if (s && s->backend->data_end)
        return s->backend->data_end(s, at);
    if (!s || *at >= s->size)
        return *at = s ? s->size : 0;
    return s->size;
}

/* ---- A mapped file (a stream spooled first) ---- */

static void file_drop_behind(const mcz_src *s, uint64_t *dropped, uint64_t pos)
{
    mcz_file_drop_behind(s->impl, dropped, pos);
}

static uint64_t file_data_end(const mcz_src *s, uint64_t *at)
{
    return mcz_file_data_end(s->impl, at);
}

static void file_close(mcz_src *s)
{
    mcz_file_unmap(s->impl);
    free(s->impl);
}

static const mcz_src_backend file_backend = {
    .drop_behind = file_drop_behind,
    .data_end = file_data_end,
    .close = file_close,
};

static mcz_src *open_file(const char *name, mcz_diag *diag)
{
    mcz_file *f = calloc(1, sizeof *f);
    mcz_src *s = f ? mcz_src_new(&file_backend, name, f) : NULL;
    if (!s) {
        free(f);
        mcz_fail_at(diag, name, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    if (mcz_file_map(name, f, diag) != MCZ_OK) {
        mcz_src_close(s);
        return NULL;
    }
    s->image = f->data;
    s->size = f->size;
    s->stream = strcmp(name, "-") == 0 || mcz_file_spooled(f); /* "-": even a file redirected */
    return s;
}

/* ---- Bytes in memory ---- */

static const mcz_src_backend memory_backend = {0};

mcz_src *mcz_src_memory(const uint8_t *data, size_t size, const char *name, mcz_diag *diag)
{
    static const uint8_t empty[1];
    mcz_src *s = mcz_src_new(&memory_backend, name, NULL);
    if (!s) {
        mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        return NULL;
    }
    s->image = data ? data : empty;
    s->size = data ? size : 0;
    return s;
}

mcz_src *mcz_src_open(const char *name, uint32_t probe, mcz_diag *diag)
{
    if (!name) {
        mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "mcz_src_open: NULL name");
        return NULL;
    }
    if (mcz_src_is_url(name))
        return mcz_src_open_http(name, probe ? probe : MCZ_SRC_PROBE_DEFAULT, diag);
    return open_file(name, diag);
}
