/*
 * tool_os.h - what the portable files of tools/ and the pair of platform files
 * (tool_os_posix.c, tool_os_win32.c) ask of each other. The programs see none of it: their
 * interface to the system is tool.h's section "The operating system".
 */
#ifndef MCZ_TOOL_OS_H
#define MCZ_TOOL_OS_H

#include "tool.h"

/* ---- Implemented by tool_undo.c, for the handlers of the platform files ---- */

/* Undoes every registered truncation and removal, and the library's temporaries, once each;
 * returns how many things it undid. Async-signal-safe (only atomics, unlink, ftruncate).
 * tool_undo_all is the two others, truncations first (they need their descriptors open;
 * Windows can remove a file only once no descriptor holds it open). */
unsigned tool_undo_truncations(void);
unsigned tool_undo_removals(void);
unsigned tool_undo_all(void);

/* ---- Implemented once per system ---- */

/* Delivers the test event NAME (MCZ_TEST_SIGNAL: INT, TERM, HUP, PIPE) the way the system
 * delivers it; a name the system has no counterpart for is ignored. */
void tool_os_test_signal(const char *name);

/* The entries of a directory, one at a time, in the system's order. */
typedef struct tool_os_dir tool_os_dir;
tool_os_dir *tool_os_dir_open(const char *dir); /* NULL with errno set */
/* The next name (valid until the next call), . and .. included; NULL at the end (errno 0)
 * or on an error (errno set). */
const char *tool_os_dir_next(tool_os_dir *d);
void tool_os_dir_close(tool_os_dir *d);

#ifdef _WIN32
#include <wchar.h>
/* UTF-8 as wide characters, and back (malloc'ed), or NULL with errno set (tool_os_win32.c). */
wchar_t *tool_os_wide(const char *text);
char *tool_os_utf8(const wchar_t *w);
#endif

#endif
