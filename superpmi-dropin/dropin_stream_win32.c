/*
 * dropin_stream_win32.c - superpmi's -streaming over an mcz archive on Windows: not served
 * yet (superpmi-dropin/README.md, "Windows" says what it needs). Empty on other systems,
 * where dropin_stream_posix.c serves it.
 */
#ifdef _WIN32
#include "dropin.h"

int dropin_stream(int argc, char **argv, const dropin_cmd *cmd, const char *real)
{
    (void)argc;
    (void)argv;
    (void)real;
    tool_error("%s: -streaming over an mcz archive is not served on Windows yet (mcs can "
               "convert the archive to an .mch for the real superpmi)", cmd->input);
    return DROPIN_FATAL;
}
#endif /* _WIN32 */
