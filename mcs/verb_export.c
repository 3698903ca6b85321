/* verb_export.c - mcs -export: writes an archive's contexts back as an MCH file. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

const mcs_usage usage_export = {
    "-export IN.mcz OUT.mch",
    "write an archive back as an MCH file, byte for byte the original",
    "Every chunk's checksum is checked as it is decompressed. OUT appears only once complete.\n"};

int cmd_export(int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(argc, argv, &usage_export, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    uint64_t count, bytes;
    if (mcs_copy_file(pos[0], pos[1], MCS_OUTPUT_MCH, NULL, "exporting", &count, &bytes) != 0)
        return MCS_EXIT_FAIL;
    tool_info("Exported %" PRIu64 " contexts (%" PRIu64 " bytes) to %s", count, bytes, pos[1]);
    return MCS_EXIT_OK;
}
