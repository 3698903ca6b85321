/* version.c - which library was loaded (mcz.h: Version). */
#include "mcz_common.h"

unsigned mcz_version_number(void)
{
    return MCZ_VERSION_NUMBER;
}

const char *mcz_version_string(void)
{
    return MCZ_VERSION_STRING;
}
