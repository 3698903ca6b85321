/* verb_info.c - mcs -info: what a collection holds and how it is stored. */
#include <inttypes.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

/* Why an MCH file shows no GUID: its container has no place for one. */
#define MCH_RECORDS_NONE "an MCH file has no place for one; -convert --jit-ee-guid records one"

typedef struct info_args {
    bool chunks;
} info_args;

static const mcs_option info_options[] = {
    {.name = "--chunks", .type = MCS_OPT_FLAG, MCS_FIELD(info_args, chunks),
     .help = "for an archive, also its chunk table from the index, one chunk\n"
             "per line: index, file offset of the chunk header, stored bytes,\n"
             "raw bytes, first context number, context count, XXH3 of the raw\n"
             "bytes"},
    MCS_OPTIONS_END};

const mcs_usage usage_info = {
    "-info FILE",
    "show contexts, sizes and, for an archive, chunks, ratio and dictionary",
    "For an MCH file every context's container is read to count them; so for a zip holding\n"
    "one member *.mch (superpmi.py's X.mch.zip), whose member is inflated to do it.\n",
    info_options};

/* The two JIT-EE facts, one line each, so they cannot read as two answers to one question:
 * the GUID (FORMAT.md §2a: only what the producer gave, never guessed) and the packet table the
 * bytes are read with, whose own GUID, when shown, is said to be inferred from the table. */
static void print_guid(const char *recorded, const char *why_none)
{
    if (recorded)
        printf("JIT-EE GUID:   %s, recorded at conversion (-convert --jit-ee-guid)\n", recorded);
    else
        printf("JIT-EE GUID:   none recorded (%s)\n", why_none);
}

static void print_table(const mcz_jit_ee *v, const char *how, const char *recorded)
{
    static const struct { const char *how, *text; } hows[] = {
        {"given", "given by --jit-ee"},
        {"recorded", "recorded in the archive"},
        {"detected", "detected from the packets"},
        {"newest", "the newest: the packets do not tell"},
    };
    const char *text = how;
    for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++)
        if (strcmp(hows[i].how, how) == 0)
            text = hows[i].text;
    const char *guid = mcz_jit_ee_guid(v);
    printf("packet table:  %s, %s; ", mcz_jit_ee_name(v), text);
    if (!guid)
        printf("its GUID is not known\n");
    else if (recorded && strcmp(recorded, guid) == 0)
        printf("its GUID is the one recorded\n");
    else
        printf("its GUID %s is inferred from the table, %s\n", guid,
               recorded ? "not the one recorded" : "not recorded");
}

static void print_numbers(uint64_t contexts, uint64_t first, uint64_t last)
{
    if (contexts)
        printf("contexts:      %" PRIu64 " (numbers %" PRIu64 "-%" PRIu64 ")\n", contexts, first,
               last);
    else
        printf("contexts:      0\n");
}

/* What the archive records about its collection (FORMAT.md §2a), never guessed, and the
 * packet table its bytes are read with. */
static void print_record(const mcs_input *in)
{
    const char *guid = mcz_reader_jit_ee_guid(in->archive), *os, *arch;
    mcz_reader_target(in->archive, &os, &arch);
    print_guid(guid, "-convert --jit-ee-guid records one");
    print_table(in->jit_ee, in->jit_ee_how, guid);
    if (os || arch)
        printf("target:        %s %s\n", os ? os : "(OS not recorded)",
               arch ? arch : "(architecture not recorded)");
    else
        printf("target:        none recorded\n");
}

static void print_archive(const mcs_input *in)
{
    const char *path = in->path;
    const mcz_reader *r = in->archive;
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    printf("file:          %s\nformat:        mcz archive, version %" PRIu32 "\n", path,
           info.version);
    print_numbers(info.contexts, info.first_number, info.last_number);
    printf("chunks:        %" PRIu64 "\n", info.chunks);
    printf("raw size:      %" PRIu64 " bytes (the equivalent MCH file)\n", info.raw_bytes);
    printf("stored size:   %" PRIu64 " bytes\n", info.file_bytes);
    if (info.file_bytes)
        printf("ratio:         %.2f\n", (double)info.raw_bytes / (double)info.file_bytes);
    if (info.dict_id || info.dict_size)
        printf("dictionary:    id %" PRIu32 ", %" PRIu32 " bytes\n", info.dict_id,
               info.dict_size);
    else if (info.codec == MCZ_CODEC_XZ)
        printf("dictionary:    none (xz chunks take none)\n");
    else /* the format records no reason: the two the writer has are both named */
        printf("dictionary:    none (not stored: written with --no-dict, or a dictionary "
               "trained on these contexts did not pay for itself; the archive does not say "
               "which)\n");
    printf("hashes:        %s\n", info.hashes ? "stored" : "none (computed from the contexts "
                                                            "when needed)");
    printf("codec:         %s\n", info.codec == MCZ_CODEC_XZ ? "xz" : "zstd");
    printf("layout:        %s\n",
           mcz_reader_layout(r) == MCZ_LAYOUT_PACKETS ? "packets" : "plain");
    printf("level:         %d\n", info.level);
    printf("chunk target:  %" PRIu32 " bytes\n", info.chunk_size);
    print_record(in);
}

static void print_chunks(const mcz_reader *r)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    printf("%6s %14s %10s %10s %10s %7s %16s\n", "chunk", "offset", "stored", "raw", "first",
           "count", "xxh3");
    for (uint64_t i = 0; i < info.chunks && !mcs_stdout_failed(); i++) {
        mcz_chunk_info c;
        if (mcz_reader_chunk(r, i, &c) != MCZ_OK)
            break;
        printf("%6" PRIu64 " %14" PRIu64 " %10" PRIu32 " %10" PRIu32 " %10" PRIu32 " %7" PRIu32
               " %016" PRIx64 "\n",
               i, c.offset, c.stored_size, c.raw_size, c.first_number, c.count, c.checksum);
    }
}

static int print_mch(mcs_input *in)
{
    uint64_t count = 0;
    uint32_t first = 0, last = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        if (count++ == 0)
            first = mc.number;
        last = mc.number;
    }
    if (rc < 0)
        return -1;
    printf("file:          %s\nformat:        mch\n", in->path);
    print_numbers(count, first, last);
    printf("size:          %" PRIu64 " bytes\n", in->read_bytes);
    const char *toc = mcz_source_toc(in->source); /* beside a file, or on the URL's server */
    if (toc)
        printf("toc:           %s\n", toc);
    return 0;
}

/* A zip holding a collection (superpmi.py's X.mch.zip): its member, read through. */
static int print_zip(mcs_run *run, const char *path)
{
    mcs_zip_summary z;
    if (mcs_zip_scan(run, path, &z) != 0)
        return MCS_EXIT_FAIL;
    printf("file:          %s\nformat:        zip, member %s (%s, %" PRIu64 " bytes stored)\n",
           path, z.member, z.method, z.stored);
    print_numbers(z.contexts, 1, z.contexts);
    printf("size:          %" PRIu64 " bytes (the member)\n", z.size);
    print_guid(NULL, MCH_RECORDS_NONE);
    print_table(z.jit_ee, z.jit_ee_how, NULL);
    return MCS_EXIT_OK;
}

int cmd_info(mcs_run *run, int argc, char **argv)
{
    info_args a = {0};
    const char *pos[1];
    mcs_input in;
    if (mcs_parse_args(run, argc, argv, &usage_info, &a, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    if (tool_is_zip(pos[0]))
        return print_zip(run, pos[0]);
    if (mcs_input_open(run, &in, pos[0]) != 0)
        return MCS_EXIT_FAIL;
    int rc = 0;
    if (in.archive)
        print_archive(&in);
    else
        rc = print_mch(&in);
    if (rc == 0 && !in.archive) {
        print_guid(NULL, MCH_RECORDS_NONE);
        print_table(in.jit_ee, in.jit_ee_how, NULL);
    }
    if (in.archive && a.chunks)
        print_chunks(in.archive);
    mcs_input_close(&in);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
