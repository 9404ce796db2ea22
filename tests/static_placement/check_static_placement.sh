#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Static placement without tricks (#17 item 3), checked on a built firmware image and on the
# objects and libraries linked into it: its contexts are plain globals, so
#   - the image has no .data at all (nothing initialized to non-zero bytes: no flash copy, no
#     start-up copy loop) — the examples' own state is zero-initialized too;
#   - nothing registers a destructor or runs a static constructor: no __cxa_atexit,
#     __aeabi_atexit, atexit or __register_exitproc in the image or referenced by an object, no
#     destructor or constructor function (_GLOBAL__sub_D_/_I_) and no .init_array, .fini_array,
#     .ctors or .dtors bytes in any object (GCC with -fno-use-cxa-atexit puts destructors in
#     .fini_array, which a bare-metal linker script may drop without a trace in the image);
#   - each named global is in .bss.
# usage: check_static_placement.sh <nm> <objdump> <elf> <global>... -- <object or archive>...
set -eu
nm=$1 objdump=$2 elf=$3
shift 3
globals=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  globals="$globals $1"
  shift
done
[ $# -gt 0 ] && shift  # the objects and archives follow
fail=0

section_size() {  # bytes of section $2 in file $1 (0 if absent)
  hex=$("$objdump" -h "$1" | awk -v s="$2" '$2 == s { print $3 }' | head -n 1)
  echo $((0x${hex:-0}))
}

data=$(section_size "$elf" .data)
if [ "$data" -ne 0 ]; then
  echo "FAIL: $elf has $data bytes of .data:"
  "$nm" -S --size-sort "$elf" | awk '$3 ~ /^[dD]$/'
  fail=1
fi
for section in .init_array .fini_array; do
  if [ "$(section_size "$elf" $section)" -ne 0 ]; then
    echo "FAIL: $elf has a $section"
    fail=1
  fi
done
exit_hooks='^(__cxa_atexit|__aeabi_atexit|atexit|__register_exitproc)$'
registered=$("$nm" "$elf" | awk -v re="$exit_hooks" '$NF ~ re { print $NF }')
if [ -n "$registered" ]; then
  echo "FAIL: $elf registers destructors:" $registered
  fail=1
fi
for object in "$@"; do
  if [ ! -f "$object" ]; then
    echo "FAIL: no such object or library: $object"
    fail=1
    continue
  fi
  found=$("$nm" "$object" |
    awk -v re="$exit_hooks" '$NF ~ re || $NF ~ /^_GLOBAL__sub_[ID]_/ { print $NF }' | sort -u)
  if [ -n "$found" ]; then
    echo "FAIL: $object registers destructors or constructors:" $found
    fail=1
  fi
  tables=$("$objdump" -h "$object" |
    awk '$2 ~ /^\.(init_array|fini_array|ctors|dtors)/ && $3 !~ /^0+$/ { print $2 }' | sort -u)
  if [ -n "$tables" ]; then
    echo "FAIL: $object has constructor or destructor tables:" $tables
    fail=1
  fi
done
for global in $globals; do
  kind=$("$nm" "$elf" | awk -v g="$global" '$NF == g { print $(NF - 1) }')
  case "$kind" in
    b | B) ;;
    *) echo "FAIL: $global is not in .bss (nm kind: '${kind:-missing}')"; fail=1 ;;
  esac
done
if [ "$fail" -eq 0 ]; then
  echo "ok: $elf — no .data; no destructor or constructor registered in it or in its $# objects" \
    "and libraries; in .bss:$globals"
fi
exit "$fail"
