/* verb_export.c - mcs -export: writes an archive's contexts back as an MCH file. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

const mcs_usage usage_export = {
    "-export IN.mcz OUT.mch",
    "write an archive back as an MCH file, byte for byte the original",
    "Every chunk's checksum is checked as it is decompressed. OUT appears only once complete.\n",
    NULL};

/* MCH bytes under an .mcz name would pass for a damaged archive: refused as -convert refuses
 * the mirror case, unless the name is a device or FIFO (a stream, whatever its name). */
static int mch_name_check(const char *out)
{
    mcz_os_file_info st;
    if (!mcs_has_extension(out, ".mcz") ||
        (mcz_os_stat(out, &st) == 0 && st.type != MCZ_OS_FILE_REGULAR))
        return 0;
    return mcs_usage_error(&usage_export,
                           "%s: an MCH file would be written under an .mcz name; name it .mch, "
                           "or write an archive with -convert (or -copy, which keeps the chunks)",
                           out);
}

int cmd_export(mcs_run *run, int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(run, argc, argv, &usage_export, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    tool_note_input(pos[0]); /* an output that is the input is refused first, as everywhere */
    if (mcs_output_check(pos[1]) != 0)
        return MCS_EXIT_FAIL;
    if (mch_name_check(pos[1]) != 0)
        return MCS_EXIT_USAGE;
    uint64_t count, bytes;
    if (mcs_copy_file(run, pos[0], pos[1], MCS_OUTPUT_MCH, NULL, "exporting", &count, &bytes) != 0)
        return MCS_EXIT_FAIL;
    tool_info("Exported %" PRIu64 " contexts (%" PRIu64 " bytes) to %s", count, bytes, tool_display_name(pos[1], true));
    return MCS_EXIT_OK;
}
