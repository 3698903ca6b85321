#!/usr/bin/env python3
"""What stops each source file of mcz compiling for Windows (make windows-todo).

    windows-todo.py CC SYSROOT OUTPUT.md

Compiles every source file of the library's layers, tools/, the programs and the unit tests
alone with CC
(-fsyntax-only, the Makefile's language and include flags, the Windows sysroot's headers) and
writes OUTPUT.md: per file, the headers Windows lacks and the functions, types, struct members
and constants it does not declare, then every such name with the files that use it. A header
that cannot be found is replaced by an empty one and the file compiled again, so that the
compiler goes on to report the calls behind it. Anything else the compiler stops on is listed
verbatim, so nothing is lost. Exits 0 whatever it finds (it is a report), 1 when it cannot run.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIBRARY = ["common", "platform", "io", "superpmi", "format", "writer", "reader"]
PROGRAMS = ["tools", "mcs", "parallel-replay", "superpmi-dropin", "bench/mchgen"]
UNIT_TESTS = ["tests/unit"]
# The Makefile's flags: every file, then the library's own, then what programs add.
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wformat=2", "-D_GNU_SOURCE", "-Iinclude", "-pthread",
         "-D__USE_MINGW_ANSI_STDIO=1", "-DCURL_STATICLIB", "-DLZMA_API_STATIC", "-DZIP_STATIC",
         "-D_FILE_OFFSET_BITS=64", "-DMCZ_NO_LIBMURMURHASH"]
# No header is forced ahead of any file (packaging/windows.mk): every system call is platform/'s.
LIBRARY_FLAGS = ["-Icommon", "-Iplatform", "-DMCZ_BUILDING_LIBRARY"]
PROGRAM_FLAGS = ["-Itools", "-Iplatform"]
MAX_PASSES = 40
# Headers of the libraries .ci/deps-windows.sh builds: missing means not in the sysroot.
DEPENDENCY_HEADERS = {"zstd.h", "zdict.h", "zstd_errors.h", "lzma.h", "xxhash.h",
                      "murmurhash.h", "cmocka.h", "zip.h", "curl/curl.h"}

MISSING_HEADER = re.compile(r"fatal error: ([^:]+): No such file or directory")
DIAGNOSTIC = re.compile(r"^([^:\s]+):(\d+):\d+: (error|warning|fatal error): (.*)$")
PATTERNS = [
    ("functions", re.compile(r"implicit declaration of function '(\w+)'")),
    ("types", re.compile(r"unknown type name '(\w+)'")),
    ("types", re.compile(r"'((?:struct|union|enum) \w+)'")),
    ("constants", re.compile(r"'(\w+)' undeclared")),
    ("members", re.compile(r"'((?:struct|union) \w+)' has no member named '(\w+)'")),
    ("differs", re.compile(r"(?:too (?:many|few) arguments to function|conflicting types for) '(\w+)'")),
]
# Warnings that show an assumption of a 64-bit long (Windows' long has 32 bits: LLP64) or of
# glibc's printf (format(printf) means Microsoft's printf to GCC for mingw: no %zu).
PORTABILITY = re.compile(r"shift count >= width of type|format '%[^']*' expects argument of type"
                         r"|unknown conversion type character|changes value from"
                         r"|overflow in conversion|conversion from '.*' to '.*long.*'")
KINDS = ["headers", "functions", "types", "members", "constants", "differs", "llp64", "other"]
TITLES = {"headers": "headers Windows lacks", "functions": "functions", "types": "types",
          "members": "struct members", "constants": "constants and variables",
          "differs": "declared otherwise on Windows",
          "llp64": "printf formats and long size", "other": "other errors"}
TABLE = KINDS[:-2]  # the columns; the warnings and other errors are listed under the table


def sources():
    for group, dirs in (("library", LIBRARY), ("programs", PROGRAMS), ("tests", UNIT_TESTS)):
        for d in dirs:
            path = os.path.join(ROOT, d)
            for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
                # the Windows build compiles platform/'s Windows files, not its POSIX ones
                # (sources.mk: MCZ_PLATFORM_WIN32, not MCZ_PLATFORM_POSIX)
                if name.endswith(".c") and not (d == "platform" and name.endswith("_posix.c")):
                    yield group, os.path.join(d, name)


def compile_once(cc, sysroot, group, path, stubs):
    group_flags = {"library": LIBRARY_FLAGS, "programs": PROGRAM_FLAGS,
                   "tests": ["-Icommon", "-Itools", "-Iplatform", "-Iparallel-replay", "-Imcs"]}
    flags = FLAGS + group_flags[group]
    cmd = [cc, "-fsyntax-only", "-fno-diagnostics-show-caret", "-fdiagnostics-color=never",
           *flags, "-isystem", os.path.join(sysroot, "include"), "-idirafter", stubs, path]
    env = dict(os.environ, LC_ALL="C")  # plain quotes in the messages
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    return run.returncode, run.stderr


def source_line(path, line):
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text
    except OSError:
        pass
    return ""


def findings(path, stderr):
    """The names of one compiler run, by kind; a name from a header says which."""
    found = collections.defaultdict(set)
    for raw in stderr.splitlines():
        m = DIAGNOSTIC.match(raw)
        if not m:
            continue
        where, line, level, message = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if where.startswith("/"):
            continue  # inside a system header: a consequence, not a cause
        suffix = "" if where == path else f" ({where})"
        matched = False
        for kind, pattern in PATTERNS:
            for hit in pattern.finditer(message):
                name = ".".join(hit.groups()) if kind == "members" else hit.group(1)
                if kind == "types" and name.startswith("enum "):
                    continue
                found[kind].add(name + suffix)
                matched = True
        if not matched and "storage size of" in message:
            # gcc names the variable, not its type: the type is on the source line
            for hit in re.finditer(r"\b((?:struct|union) \w+)", source_line(where, line)):
                found["types"].add(hit.group(1) + suffix)
                matched = True
        if not matched and level == "warning" and PORTABILITY.search(message):
            found["llp64"].add(f"{where}:{line}: {message}")
        elif not matched and level != "warning":
            found["other"].add(f"{where}:{line}: {message}")
    if "members" in found:  # a struct with a missing member is listed there, not as a type
        structs = {m.split(".")[0] for m in found["members"]}
        found["types"] = {t for t in found["types"] if t.split(" (")[0] not in structs}
    return found


def examine(cc, sysroot, group, path):
    with tempfile.TemporaryDirectory() as stubs:
        headers = []
        for _ in range(MAX_PASSES):
            rc, stderr = compile_once(cc, sysroot, group, path, stubs)
            missing = MISSING_HEADER.search(stderr)
            if not missing:
                break
            header = missing.group(1)
            headers.append(header)
            stub = os.path.join(stubs, header)
            os.makedirs(os.path.dirname(stub), exist_ok=True)
            open(stub, "w").close()
        found = findings(path, stderr)
        found["headers"] = set(headers)
        compiles = not headers and rc == 0 and not any(found[k] for k in TABLE)
        return compiles, found


def cell(names):
    def shown(name):
        name, _, header = name.partition(" (")
        note = f" ({header}" if header else ""
        if name in DEPENDENCY_HEADERS:
            note = " (a dependency not in the sysroot)"
        return f"`{name}`{note}"
    return ", ".join(shown(n) for n in sorted(names)) if names else ""


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: windows-todo.py CC SYSROOT OUTPUT.md")
    cc, sysroot, output = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    try:
        version = subprocess.run([cc, "-dumpfullversion"], capture_output=True, text=True,
                                 check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"windows-todo.py: cannot run {cc}: {e}")
    results = []
    for group, path in sources():
        compiles, found = examine(cc, sysroot, group, path)
        results.append((group, path, compiles, found))
        print(f"{'ok ' if compiles else 'no '} {path}", file=sys.stderr)

    index = collections.defaultdict(lambda: collections.defaultdict(set))
    for _, path, _, found in results:
        for kind in TABLE:
            for name in found[kind]:
                index[kind][name.split(" (")[0]].add(path)

    ok = sum(1 for r in results if r[2])
    out = ["# The Windows port: what stops each source file compiling", "",
           "Made by `make windows-todo` (tests/cross/windows-todo.py): run it again rather",
           "than edit this file. Each source file of the library's layers, tools/, the",
           "programs and the unit tests is compiled alone with `-fsyntax-only`, the Makefile's",
           f"flags and the headers that .ci/deps-windows.sh built, by `{os.path.basename(cc)}`",
           f"(GCC {version}). A header Windows lacks is replaced by an empty one and the file",
           "compiled again, so that the calls behind it show too. A name met in an included",
           "header names that header in brackets.", "",
           f"{ok} of {len(results)} files compile for Windows as they are.", ""]
    headings = {"library": "The library", "programs": "tools/ and the programs",
                "tests": "The unit tests (tests/unit/)"}
    for group in headings:
        out += [f"## {headings[group]}", "",
                "| file | " + " | ".join(TITLES[k] for k in TABLE) + " |",
                "|" + " --- |" * (len(TABLE) + 1)]
        notes = {"llp64": [], "other": []}
        for g, path, compiles, found in results:
            if g != group:
                continue
            for kind in notes:
                notes[kind] += [f"- {o}" for o in sorted(found[kind])]
            if compiles:
                out.append(f"| {path} | compiles |" + " |" * (len(TABLE) - 1))
            else:
                out.append(f"| {path} | " + " | ".join(cell(found[k]) for k in TABLE) + " |")
        if notes["llp64"]:
            out += ["", "Warnings of printf formats and of a 32-bit long (Windows' long has 32",
                    "bits; GCC for mingw checks a function declared `format(printf, ...)` as",
                    "Microsoft's printf, which has no `%zu`: such declarations want",
                    "`format(gnu_printf, ...)` there, as include/mcz.h's MCZ_DIAG_PRINTF",
                    "has):", ""]
            out += sorted(set(notes["llp64"]))
        if notes["other"]:
            out += ["", "Other errors (often consequences of the names above):", ""]
            out += sorted(set(notes["other"]))
        out.append("")
    out += ["## Every name, and the files that use it", ""]
    for kind in TABLE:
        if not index[kind]:
            continue
        out += [f"### {TITLES[kind][0].upper()}{TITLES[kind][1:]}", ""]
        for name in sorted(index[kind], key=lambda n: (-len(index[kind][n]), n)):
            files = sorted(index[kind][name])
            out.append(f"- `{name}` ({len(files)}): " + ", ".join(files))
        out.append("")
    with open(os.path.join(ROOT, output) if not os.path.isabs(output) else output, "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")
    print(f"windows-todo: {ok} of {len(results)} files compile for Windows; {output}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
