/*
 * os_win32.h - what the Windows files of platform/ share: the one table of Windows errors,
 * and UTF-8 paths as Windows' wide characters. Included by platform/'s Windows files only (its
 * functions are built for Windows alone).
 */
#ifndef MCZ_PLATFORM_OS_WIN32_H
#define MCZ_PLATFORM_OS_WIN32_H

#include <wchar.h>

/* errno for a Windows error code (GetLastError's) of a file or process call; EIO for one
 * without a counterpart (os_win32.c). */
int mcz_os_errno_of_win32(unsigned long error);
/* UTF-8 as wide characters, and back (malloc'ed), or NULL with errno set. */
wchar_t *mcz_os_wide(const char *text);
char *mcz_os_utf8(const wchar_t *w);

#endif
