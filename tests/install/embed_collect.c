/*
 * A program from outside the tree, as a runtime collecting method contexts is: it has the
 * contexts' bytes (here read from an MCH file with stdio) and writes an archive through the
 * collector API alone (pkg-config mcz-writer, or CMake's mcz::writer; libmcz has it too).
 * Prints "appended N".
 */
#include <mcz.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_context(FILE *in, uint8_t **mc, size_t *size)
{
    uint8_t head[6];
    size_t got = fread(head, 1, sizeof head, in);
    if (got == 0 && feof(in))
        return 0;
    if (got != sizeof head || head[0] != 'm' || head[1] != 'c')
        return -1;
    uint32_t len = (uint32_t)head[2] | (uint32_t)head[3] << 8 | (uint32_t)head[4] << 16 |
                   (uint32_t)head[5] << 24;
    if (len > MCZ_MC_MAX_SIZE - MCZ_MC_OVERHEAD)
        return -1;
    *size = (size_t)len + MCZ_MC_OVERHEAD;
    *mc = malloc(*size);
    if (!*mc)
        return -1;
    memcpy(*mc, head, sizeof head);
    if (fread(*mc + sizeof head, 1, *size - sizeof head, in) != *size - sizeof head) {
        free(*mc);
        return -1;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: embed_collect IN.mch OUT.mcz\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    mcz_diag d;
    char line[MCZ_DIAG_LINE_SIZE]; /* d as one line */
    mcz_diag_clear(&d);
    mcz_writer *w = mcz_writer_open(argv[2], &opt, &d);
    if (!w) {
        fprintf(stderr, "embed_collect: %s [%s]\n", mcz_diag_format(&d, line, sizeof line),
                mcz_error_name(d.code));
        fclose(in);
        return 1;
    }
    uint8_t *mc;
    size_t size;
    unsigned appended = 0;
    int got = 0, rc = MCZ_OK;
    while (rc == MCZ_OK && (got = read_context(in, &mc, &size)) == 1) {
        rc = mcz_writer_append(w, mc, size, NULL);
        free(mc);
        appended += rc == MCZ_OK;
    }
    fclose(in);
    if (rc != MCZ_OK || got < 0) {
        fprintf(stderr, "embed_collect: %s: context %u: %s\n", argv[1], appended + 1,
                rc != MCZ_OK ? mcz_error_name(rc) : "not a method context");
        mcz_writer_abort(w);
        return 1;
    }
    if (mcz_writer_close(w, &d) != MCZ_OK) {
        fprintf(stderr, "embed_collect: %s [%s]\n", mcz_diag_format(&d, line, sizeof line),
                mcz_error_name(d.code));
        return 1;
    }
    printf("appended %u\n", appended);
    return 0;
}
