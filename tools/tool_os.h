/*
 * tool_os.h - what the portable files of tools/ and the platform files (tools/tool_os_*.c and
 * tool_proc_*.c, and a program's own *_posix.c and *_win32.c) ask of each other. The programs'
 * other files see none of it: their interface to the system is tool.h's section "The operating
 * system".
 */
#ifndef MCZ_TOOL_OS_H
#define MCZ_TOOL_OS_H

#include <wchar.h>

#include "tool.h"

/* ---- Implemented by tool_undo.c, for the handlers of the platform files ---- */

/* Undoes every registered truncation and removal, and the library's temporaries, once each;
 * returns how many things it undid. Async-signal-safe (only atomics, tool_unlink, tool_truncate).
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

/* ---- Windows only (tool_os_win32.c, tool_proc_win32.c): declared everywhere, defined there
 * alone ---- */

/* UTF-8 as wide characters, and back (malloc'ed), or NULL with errno set. */
wchar_t *tool_os_wide(const char *text);
char *tool_os_utf8(const wchar_t *w);
/* errno for a Windows error code (GetLastError's) of a file or process call; EIO for one
 * without a counterpart. */
int tool_errno_of_win32(unsigned long error);

#endif
