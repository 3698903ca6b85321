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

#include "program.h"
#include "tool.h"
#include "worker.h"

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
/* Its system part is the platform's (platform/program.h: the sparse stand-in file; worker.h:
 * the stop signals watched, which end the request loop rather than the process). */

/* ---- Finding programs (dropin_find.c) ---- */

/* The PATH entry holding the executable file name (searched as execvp does; an empty entry is
 * "."): malloc'd, NULL when none does. */
char *dropin_path_dir_of(const char *name);
/* dir/name, with the system's suffix of program files (mcz_os_program_suffix); malloc'd. */
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
