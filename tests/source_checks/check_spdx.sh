#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fails if a source file of the project lacks its SPDX line ("SPDX-License-Identifier:
# Apache-2.0" in its first three lines). Source files: C and C++ headers and sources, assembly,
# linker scripts, CMake files and templates, shell and Python scripts (any file starting with
# "#!"). Not docs or data (Markdown, JSON, SVG, plain text other than CMakeLists.txt).
# The files are git's (tracked and untracked, not ignored) in a checkout, else every file under
# the root outside build directories.
# usage: check_spdx.sh <root>
#        check_spdx.sh --selftest <scratch-dir>   (the check must name each planted file)
set -eu

line="SPDX-License-Identifier: Apache-2.0"

list_files() {
  if [ -z "${no_git:-}" ] && git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$1" ls-files --cached --others --exclude-standard
  else
    (cd "$1" && find . -path './build*' -prune -o -type f -print | sed 's|^\./||')
  fi
}

is_source() {  # $1: path relative to the root, $2: the root
  case "$1" in
    *.md | *.json | *.svg) return 1 ;;
    *CMakeLists.txt) return 0 ;;
    *.c | *.h | *.cpp | *.hpp | *.inc | *.S | *.s | *.ld | *.cmake | *.py | *.sh | *.in) return 0 ;;
  esac
  [ "$(head -c 2 "$2/$1" 2>/dev/null)" = "#!" ]
}

check() {  # prints each source file under $1 without the line
  list_files "$1" | while IFS= read -r f; do
    [ -f "$1/$f" ] || continue
    is_source "$f" "$1" || continue
    head -n 3 "$1/$f" | grep -q "$line" || echo "$f"
  done
}

if [ "${1:-}" = "--selftest" ]; then
  dir="$2/spdx_selftest"
  rm -rf "$dir" && mkdir -p "$dir/sub"
  printf '// %s\nint f();\n' "$line" >"$dir/good.hpp"
  printf '#!/bin/sh\n# %s\n' "$line" >"$dir/good_script"
  printf 'int g();\n' >"$dir/sub/bad.cpp"
  printf '#!/bin/sh\necho hi\n' >"$dir/bad_script"
  printf 'project(x)\n' >"$dir/sub/CMakeLists.txt"
  printf 'MEMORY {}\n' >"$dir/bad.ld"
  printf '# notes\n' >"$dir/notes.md"
  printf 'data\n' >"$dir/data.txt"
  found=$(no_git=1 check "$dir" | sort | tr '\n' ' ')
  expected="bad.ld bad_script sub/CMakeLists.txt sub/bad.cpp "
  if [ "$found" != "$expected" ]; then
    echo "selftest: the check named '$found', expected '$expected'" >&2
    exit 1
  fi
  echo "selftest: the check names every planted file without an SPDX line"
  exit 0
fi

missing=$(check "$1")
if [ -n "$missing" ]; then
  echo "$missing" | sed 's/^/missing SPDX line: /' >&2
  exit 1
fi
echo "every source file has its SPDX line"
