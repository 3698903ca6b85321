/*
 * windows_dll_probe.c - a program linked against libmcz.dll's import library (libmcz.dll.a)
 * alone, as an embedder's would be: it prints the library's version and, given an archive,
 * what the archive holds, read through the DLL.
 *   windows_dll_probe [ARCHIVE]
 * Exit 0, or 1 with the library's message when the archive cannot be read.
 */
#include <inttypes.h>
#include <stdio.h>

#include "mcz.h"

int main(int argc, char **argv)
{
    printf("libmcz %s (%u)\n", mcz_version_string(), mcz_version_number());
    printf("%s\n", mcz_error_name(MCZ_ECORRUPT));
    if (argc < 2)
        return 0;
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_reader *r = mcz_reader_open(argv[1], &d);
    if (!r) {
        char text[1024];
        fprintf(stderr, "windows_dll_probe: %s\n", mcz_diag_format(&d, text, sizeof text));
        return 1;
    }
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    printf("%s: %" PRIu64 " contexts, %" PRIu64 " chunks\n", argv[1], (uint64_t)info.contexts,
           (uint64_t)info.chunks);
    mcz_reader_close(r);
    return 0;
}
