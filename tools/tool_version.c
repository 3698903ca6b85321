/* tool_version.c - --version, and the check that the library loaded is one built for. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

void tool_print_version(void)
{
    printf("%s (mcz) %s\n", tool_program(), MCZ_VERSION_STRING);
    printf("libmcz %s\n", mcz_version_string());
}

/* The ABI promise (mcz.h: Version): same MAJOR, and a MINOR at least the one built against. */
int tool_check_library(void)
{
    unsigned loaded = mcz_version_number();
    unsigned built_minor = MCZ_VERSION_MAJOR * 10000u + MCZ_VERSION_MINOR * 100u;
    if (loaded / 10000 == MCZ_VERSION_MAJOR && loaded >= built_minor)
        return 0;
    tool_error("built for libmcz %s, but libmcz %s was loaded", MCZ_VERSION_STRING,
               mcz_version_string());
    return -1;
}

bool tool_wants_version(int argc, char **argv)
{
    return argc == 2 && strcmp(argv[1], "--version") == 0;
}
