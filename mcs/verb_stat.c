/* verb_stat.c - mcs -stat: one CSV row of map statistics per context. */
#include <inttypes.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"

const mcs_usage usage_stat = {
    "-stat [RANGE] IN OUT.csv",
    "write per-context map statistics as CSV",
    "Header: Title,MC#, then for every map in the order SuperPMI writes them NAME,NAME SZ,\n"
    "(compile results are named CR_NAME). Each row: the process name (from CR_ProcessName,\n"
    "empty without it), the context number, then per map its item count and its serialized\n"
    "size (both empty when the map is absent), each followed by a comma, as SuperPMI's mcs\n"
    "writes them. Lines end in \"\\n\" (one SuperPMI version writes \"\\r\\n\"). A process name\n"
    "holding a comma, quote or line break is quoted as RFC 4180 says; every other row is\n"
    "byte for byte SuperPMI's. OUT appears only once complete.\n",
    NULL};

/* The CSV being written: its columns are the packets of the input's JIT-EE version, so the
 * header waits for the first row (or the end, for an input without contexts). */
typedef struct stat_out {
    FILE *f;
    bool header_done;
} stat_out;

static void stat_header(stat_out *s, const mcz_jit_ee *v)
{
    FILE *f = s->f;
    if (s->header_done)
        return;
    s->header_done = true;
    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(v, &count);
    fputs("Title,MC#,", f);
    for (size_t i = 0; i < count; i++) {
        char name[64];
        mcz_packet_name(v, order[i], name, sizeof name);
        fprintf(f, "%s,%s SZ,", name, name);
    }
    fputc('\n', f);
}

/* One row of a checked context; packets the table does not place (other JIT-EE versions) are
 * not counted. */
static int stat_row(void *arg, mcs_input *in, const mcz_mc *mc)
{
    stat_out *s = arg;
    const mcz_jit_ee *v = mcs_input_jit_ee(in);
    stat_header(s, v);
    FILE *f = s->f;
    uint32_t counts[256] = {0}, sizes[256] = {0};
    bool present[256] = {false};
    uint32_t pos = 0;
    mcz_packet p;
    mcz_map m;
    while (mcz_packet_next(mc, &pos, &p, NULL) == 1 && mcz_map_parse(v, &p, &m, NULL) == MCZ_OK) {
        present[p.id] = true; /* the last packet of an id is the one SuperPMI keeps */
        counts[p.id] = m.count;
        sizes[p.id] = p.size;
    }
    char process[4096];
    if (mcs_process_name(mc, process, sizeof process))
        tool_csv_field(f, process);
    fprintf(f, ",%" PRIu32 ",", mc->number);
    size_t count;
    const uint8_t *order = mcz_jit_ee_write_order(v, &count);
    for (size_t i = 0; i < count; i++) {
        uint8_t id = order[i];
        if (present[id] && counts[id])
            fprintf(f, "%" PRIu32, counts[id]);
        fputc(',', f);
        if (present[id])
            fprintf(f, "%" PRIu32, sizes[id]);
        fputc(',', f);
    }
    fputc('\n', f);
    return 0;
}

int cmd_stat(mcs_run *run, int argc, char **argv)
{
    const char *pos[2];
    mcz_list list;
    mcs_text_out out;
    uint64_t loaded = 0;
    int rc = mcs_parse_ranged(run, argc, argv, &usage_stat, NULL, 2, pos, &list);
    if (rc != MCS_EXIT_OK)
        return rc;
    tool_note_input(pos[0]);
    rc = mcs_text_open(run, &out, pos[1]);
    if (rc == 0) {
        stat_out s = {out.stream, false};
        rc = mcs_for_each_context(run, pos[0], &list, "stat", stat_row, &s, &loaded);
        stat_header(&s, run->forced_jit_ee);
        if (rc == 0)
            rc = mcs_text_commit(&out);
        else
            mcs_text_abort(&out);
    }
    mcz_list_free(&list);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("Loaded %" PRIu64 ", Stat'd %" PRIu64, loaded, loaded);
    return MCS_EXIT_OK;
}
