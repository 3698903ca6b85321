/*
 * input.c - the public face of sources (io/source.h): an input opened once by name and given
 * to the reader, the collection source and recovery, which each take a reference of their own.
 * A remote input is probed for an archive's footer (the first request fetches its last
 * MCZ_ARC_FOOTER_SIZE bytes), as mcz_reader_open would, so opening an input first costs nothing.
 */
#include <stdio.h>
#include <string.h>

#include "mcz_common.h"
#include "reader_impl.h"

mcz_input *mcz_input_open(const char *name, mcz_diag *diag)
{
    return mcz_src_open(name, MCZ_ARC_FOOTER_SIZE, diag);
}

void mcz_input_close(mcz_input *in)
{
    mcz_src_close(in);
}

uint64_t mcz_input_size(const mcz_input *in)
{
    return in ? mcz_src_size(in) : 0;
}

bool mcz_input_remote(const mcz_input *in)
{
    return in && mcz_src_remote(in);
}

bool mcz_input_stream(const mcz_input *in)
{
    return in && mcz_src_stream(in);
}

void mcz_input_drop_behind(const mcz_input *in, uint64_t *dropped, uint64_t pos)
{
    if (in && dropped)
        mcz_src_drop_behind(in, dropped, pos);
}

int mcz_input_view(mcz_input *in, uint64_t off, uint64_t len, const uint8_t **view,
                   mcz_diag *diag)
{
    if (!in || !view)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_input_view: NULL argument");
    return mcz_src_view(in, off, len, view, diag);
}

mcz_reader *mcz_reader_open_input(mcz_input *in, mcz_diag *diag)
{
    if (!in) {
        mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "mcz_reader_open_input: NULL input");
        return NULL;
    }
    return mcz_rd_open_src(in, diag);
}

mcz_source *mcz_source_open_input(mcz_input *in, mcz_diag *diag)
{
    if (!in) {
        mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "mcz_source_open_input: NULL input");
        return NULL;
    }
    return mcz_rd_source_open_src(in, mcz_src_name(in), diag);
}

size_t mcz_input_file_name(const char *name, char *buf, size_t cap)
{
    if (!name || !buf || cap == 0)
        return 0;
    const char *file = name;
    size_t len = strlen(name);
    if (mcz_src_is_url(name)) { /* the last segment of the URL's path, no query or fragment */
        const char *path = strchr(strstr(name, "://") + 3, '/');
        size_t end = path ? strcspn(path, "?#") : 0, start = end;
        while (start > 0 && path[start - 1] != '/')
            start--;
        file = path ? path + start : "";
        len = end - start;
        if ((len == 1 && file[0] == '.') || (len == 2 && strncmp(file, "..", 2) == 0))
            len = 0;
    }
    if (len >= cap)
        return 0;
    memcpy(buf, file, len);
    buf[len] = '\0';
    return len;
}
