/*
 * A program from outside the tree, built against an installed mcz (pkg-config mcz, or CMake's
 * mcz::mcz and mcz::mcz_static): walks a collection, an archive or an MCH file, and prints the
 * version it was built with and the one it runs with, then "archive|mch contexts N".
 */
#include <mcz.h>

#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: embed_count COLLECTION\n");
        return 2;
    }
    printf("built %s loaded %s\n", MCZ_VERSION_STRING, mcz_version_string());
    mcz_diag d;
    char line[MCZ_DIAG_LINE_SIZE]; /* d as one line */
    mcz_diag_clear(&d);
    mcz_source *s = mcz_source_open(argv[1], &d);
    if (!s) {
        fprintf(stderr, "embed_count: %s [%s]\n", mcz_diag_format(&d, line, sizeof line),
                mcz_error_name(d.code));
        return 1;
    }
    uint64_t count = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_source_next(s, &mc, &d)) == 1)
        count++;
    const char *kind = mcz_source_archive(s) ? "archive" : "mch";
    mcz_source_close(s);
    if (rc < 0) {
        fprintf(stderr, "embed_count: %s [%s]\n", mcz_diag_format(&d, line, sizeof line),
                mcz_error_name(rc));
        return 1;
    }
    printf("%s contexts %llu\n", kind, (unsigned long long)count);
    return 0;
}
