#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails if a comment, doc or script names a file of the project that does not exist.

A reference is any word that looks like a path with a source or doc suffix
(`collector/src/mechanism.cpp`, `tinyldp/wire.hpp`, `docs/cli.md`). It is found when a file of
the tree is that path or ends with it after a "/" (so `collector/mechanism.hpp` finds
`collector/include/tinyldp/collector/mechanism.hpp`, the shorthand the headers use). Headers of
other libraries and files that builds or tests make (EXTERNAL below) are not references, nor
is anything CHANGELOG.md names (it records renames).

usage: check_references.py <root>
       check_references.py --selftest <scratch-dir>   (must name each planted dangling reference)
"""
import os
import re
import subprocess
import sys

REFERENCE = re.compile(
    r"(?<![\w./-])((?:\.\./|\./)?[A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)+"
    r"\.(?:hpp|cpp|h|c|md|py|cmake|sh|inc))\b")
# Other libraries' headers, files the build or install writes, placeholders in usage lines and
# the planted files of the repository's self-tests.
EXTERNAL = re.compile(
    r"^(gtest|gmock|benchmark|CLI|nlohmann|pybind11|openssl|sys|valgrind|Eigen|LDP|sqlite3|"
    r"mosquitto|OUT|DIR|dir|sub|package|lib/cmake)/"
    r"|(^|/)version\.hpp$|tinyldp-config(-version)?\.cmake$")
TEXT_SUFFIXES = (".hpp", ".cpp", ".h", ".c", ".inc", ".md", ".py", ".cmake", ".sh", ".txt",
                 ".in", ".json")


def tracked_files(root):
    """git's files (tracked, and untracked but not ignored) when root is a checkout's top."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if os.path.samefile(top, root):
            out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                                  "--exclude-standard"], capture_output=True, text=True,
                                 check=True)
            return [f for f in out.stdout.splitlines()
                    if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith("build") and d != ".git"]
        found += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    return found


def is_text(path):
    if path.endswith(TEXT_SUFFIXES):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def dangling(root):
    """(file, line, reference) for every reference no file of the tree answers."""
    files = tracked_files(root)
    paths = set(files)
    suffixes = set()
    for f in files:
        parts = f.split("/")
        suffixes.update("/".join(parts[i:]) for i in range(1, len(parts)))
    problems = []
    for f in sorted(files):
        full = os.path.join(root, f)
        # The changelog names files as they were when each entry was written (renames too).
        if f == "CHANGELOG.md" or os.path.samefile(full, __file__) or not is_text(full):
            continue
        with open(full, encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                for match in REFERENCE.finditer(line):
                    ref = match.group(1)
                    bare = re.sub(r"^(\.\./|\./)+", "", ref)
                    if EXTERNAL.search(bare):
                        continue
                    relative = os.path.normpath(os.path.join(os.path.dirname(f), ref))
                    if bare in paths or bare in suffixes or relative in paths:
                        continue
                    problems.append((f, number, ref))
    return problems


def selftest(scratch):
    root = os.path.join(scratch, "references_selftest")
    os.makedirs(os.path.join(root, "lib/include/tinyldp"), exist_ok=True)
    os.makedirs(os.path.join(root, "docs"), exist_ok=True)
    files = {
        "lib/include/tinyldp/wire.hpp": "// see docs/wire.md and tinyldp/gone.hpp\n",
        "docs/wire.md": "Shorthand tinyldp/wire.hpp; relative ../lib/include/tinyldp/wire.hpp;\n"
                        "an old name collector/mechanism_table.hpp; <gtest/gtest.h>\n",
        "run.sh": "#!/bin/sh\n# see docs/missing.md\n",
    }
    for name, text in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
    found = sorted((f, ref) for f, _, ref in dangling(root))
    expected = [("docs/wire.md", "collector/mechanism_table.hpp"),
                ("lib/include/tinyldp/wire.hpp", "tinyldp/gone.hpp"),
                ("run.sh", "docs/missing.md")]
    if found != expected:
        print(f"selftest: the check named {found}, expected {expected}", file=sys.stderr)
        return 1
    print("selftest: the check names every planted dangling reference and no good one")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--selftest":
        return selftest(argv[2])
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = dangling(argv[1])
    for f, number, ref in problems:
        print(f"{f}:{number}: names {ref}, which is not a file of the tree")
    if problems:
        print(f"{len(problems)} dangling reference(s)", file=sys.stderr)
        return 1
    print("every file a comment, doc or script names exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
