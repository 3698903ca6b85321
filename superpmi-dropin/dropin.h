/*
 * dropin.h - mcz-superpmi, a drop-in for superpmi: over an mcz archive it runs mcz-replay, which
 * runs the real superpmi once per unit of the archive; over anything else it is the real
 * superpmi (mcz_os_exec, the same words).
 */
#ifndef MCZ_DROPIN_H
#define MCZ_DROPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tool.h"

/* superpmi's exit code for bad arguments and fatal errors (-1). */
#define DROPIN_FATAL 255

/* ---- Words (dropin_words.c): a growing NULL-terminated argv ---- */

typedef struct dropin_words {
    char **word;
    size_t count;
    size_t cap;
} dropin_words;

/* Appends a copy of each word; exits with DROPIN_FATAL when out of memory. */
void dropin_words_add(dropin_words *w, const char *word);
void dropin_words_free(dropin_words *w);

/* ---- superpmi's command line (dropin_args.c) ---- */

/* What superpmi would make of a command line, in so far as mcz-superpmi needs it. */
typedef struct dropin_cmd {
    bool usage;        /* superpmi would print its usage or refuse the words (its own message) */
    const char *input; /* the input it would read (the last named); NULL: none */
    bool compile;      /* -compile given */
    bool parallel;     /* -parallel given */
    long workers;      /* -parallel's count; 0: none given */
} dropin_cmd;

/* Reads argv as superpmi's CommandLine::Parse does, checking what it checks before it reads
 * any file. An input may also be named .mcz (superpmi would refuse that name; an archive is
 * served whatever its name). */
void dropin_read(int argc, char **argv, dropin_cmd *cmd);

/* The mcz-replay command line for an archive input: out gets replay's path, its options, the
 * real superpmi and the words it keeps as --exec-word, then the input. 0, or -1 with why set
 * (a switch not served over archives). */
int dropin_translate(int argc, char **argv, const dropin_cmd *cmd, const char *replay,
                     const char *real, dropin_words *out, char *why, size_t cap);

/* The workers superpmi -p would start: -parallel's count, else the processors online (its
 * GetDefaultWorkerCount); 1 without -parallel. */
long dropin_workers(const dropin_cmd *cmd);

/* With -parallel at the verbose level, superpmi -p's banner on to (dropin_banner.c): self
 * named as the program every worker runs, the arguments each is given, -f, -details and the
 * worker count. Nothing otherwise. */
void dropin_parallel_banner(int argc, char **argv, const dropin_cmd *cmd, const char *self,
                            long workers, FILE *to);

/* ---- -streaming over an archive (dropin_stream.c) ---- */

/* Whether the command line asks for superpmi's streaming mode (-streaming FILE|stdin):
 * the index of the switch's value in argv, 0 when there is none (dropin_args.c). */
int dropin_streaming_value(char **argv);
/* Runs the real superpmi in streaming mode over the archive cmd->input, each context written
 * into a sparse stand-in file as it is requested. Returns superpmi's exit code, 128+N when
 * stopped by signal N, DROPIN_FATAL when the archive cannot be read. */
int dropin_stream(int argc, char **argv, const dropin_cmd *cmd, const char *real);

/* Its system part (dropin_stream_posix.c, dropin_stream_win32.c). */
/* A new file at path (not there before), read-write and not inherited, of size bytes that take
 * no disk until written where the file system can. The descriptor, or -1 with errno set. */
int dropin_create_sparse(const char *path, uint64_t size);
/* Writes len bytes at offset at (the file position unused). 0, or -1 with errno set. */
int dropin_write_at(int fd, const void *bytes, size_t len, uint64_t at);
/* From now on a stop (SIGINT, SIGTERM, SIGHUP; Windows: a console control event) ends the
 * request loop rather than the process; a write to a superpmi that ended fails (no SIGPIPE). */
void dropin_catch_stops(void);
/* The stop's signal number, 0 while none came. */
int dropin_stopped(void);

/* ---- Finding programs (dropin_find.c) ---- */

/* The PATH entry holding the executable file name (searched as execvp does; an empty entry is
 * "."): malloc'd, NULL when none does. */
char *dropin_path_dir_of(const char *name);
/* dir/name, with the system's suffix of program files (dropin_exe); malloc'd. */
char *dropin_program_in(const char *dir, const char *name);
/* The real superpmi: $MCZ_SUPERPMI, else superpmi.real beside the program. 0 with *path
 * malloc'd, or -1 after saying why on stderr (missing, not executable, mcz-superpmi itself). */
int dropin_find_real(const char *argv0, char **path);
/* mcz-replay: $MCZ_REPLAY, else beside the program, else beside what argv0 links to, else on
 * PATH. 0 with *path malloc'd, or -1 after saying why. */
int dropin_find_replay(const char *argv0, char **path);
/* Joins dir and name with a '/'; malloc'd. */
char *dropin_join(const char *dir, const char *name);
/* A file as a stream of bytes (no line-end translation), not inherited: opened to read, or
 * created (replacing one there) to write. NULL with errno set. */
FILE *dropin_fopen_read(const char *path);
FILE *dropin_fopen_create(const char *path);

/* ---- The system (dropin_os_posix.c, dropin_os_win32.c) ---- */

/* The suffix of program files: "" on POSIX, ".exe" on Windows (superpmi.exe,
 * superpmi.real.exe, mcz-replay.exe). */
extern const char dropin_exe[];
/* What separates PATH's entries: ':' on POSIX, ';' on Windows. */
extern const char dropin_path_sep;

/* The directory the program was run from, the one the installed copy and a link to
 * mcz-superpmi alike sit in (Core_Root), not a link's target's. POSIX: argv0's when it holds
 * a '/', else the PATH entry execvp would have taken it from. Windows: the directory of the
 * program's file (GetModuleFileNameW: the name it was started by). Malloc'd; NULL when
 * neither tells. */
char *dropin_run_dir(const char *argv0);
/* When the program was run through a symbolic link named dir/base(argv0): the directory of
 * the link's target, malloc'd; else NULL (always on Windows, where dropin_run_dir is the
 * file's own directory). */
char *dropin_target_dir(const char *dir, const char *argv0);
/* A regular file the system would run (POSIX: executable by us; Windows: any). */
bool dropin_is_executable_file(const char *path);
/* Whether path is absolute ("/..."; Windows: "X:\..." or "\\server\..."). */
bool dropin_is_absolute(const char *path);
/* Whether a name exists, itself (a dangling symbolic link does); false with errno set. */
bool dropin_name_exists(const char *path);
/* A descriptor to read path, not inherited, and (POSIX) not waiting for a FIFO's writer;
 * -1 with errno set. */
int dropin_open_to_read(const char *path);
/* Makes the open file fd executable (POSIX: mode 0755; Windows: nothing to do). 0, or -1
 * with errno set. */
int dropin_make_executable(int fd);

/* ---- Installing into a Core_Root (dropin_install.c) ---- */

/* Beside the installed copy: the absolute path of the mcz-replay it runs, found when it was
 * installed (a Core_Root holds no mcz-replay, and superpmi.py's PATH need not either). */
#define DROPIN_REPLAY_NOTE "superpmi.mcz-replay"

/* argv0: the installing program's, to find the mcz-replay to record. */
int dropin_install(const char *dir, const char *argv0);
int dropin_uninstall(const char *dir);
/* 1 when the file at path is a copy of mcz-superpmi (any version), 0 when not, -1 when it
 * cannot be read (errno set). */
int dropin_is_ours(const char *path);

#endif
