#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fails if any given object or archive references the heap, operator new/delete, exception
# machinery or — with --no-float — soft-float helper routines, or if it defines writable
# static data (.data/.bss symbols: the core keeps no static mutable state).
# usage: check_freestanding.sh <nm> [--no-float] <object|archive>...
#        check_freestanding.sh <nm> [--no-float] --expect "<sym> <sym>…" <object>…
#   (STATIC_STATE in the list stands for writable static data; --expect inverts the verdict: it passes only if every listed symbol is reported; this
#    is how the check itself is tested against a deliberately bad object.)
set -u
nm=$1; shift
no_float=0; expect=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-float) no_float=1; shift ;;
    --expect) expect=$2; shift 2 ;;
    *) break ;;
  esac
done
heap='malloc|calloc|realloc|free|_sbrk|_Znw[jmy]|_Zna[jmy]|_Zdl[Pv]|_Zda[Pv]|_ZdlPv[jm]|_ZdaPv[jm]'
exceptions='__cxa_[a-z_]+|__gxx_personality_v0|_Unwind_[A-Za-z_]+'
soft_float='__aeabi_[df][a-z0-9]+|__aeabi_[ul]?[2a-z]*(d|f)2[a-z]+|__(add|sub|mul|div|neg)[sdt]f3|__(fix|fixuns)[sdt]f[sdt]i|__float(un)?[sdt]i[sdt]f|__(extend|trunc)[sdt]f[sdt]f2|__(eq|ne|lt|le|gt|ge|unord|cmp)[sdt]f2'
pattern="^($heap|$exceptions)\$"
[ "$no_float" -eq 1 ] && pattern="^($heap|$exceptions|$soft_float)\$"

found=$("$nm" -u "$@" 2>/dev/null | awk '{print $NF}' | grep -E "$pattern" | sort -u)
state=$("$nm" -A --defined-only "$@" 2>/dev/null | awk '$(NF-1) ~ /^[bBdDcC]$/')
[ -n "$state" ] && found="$found
STATIC_STATE"
if [ -n "$expect" ]; then
  status=0
  for sym in $expect; do
    echo "$found" | grep -qx "$sym" || { echo "check missed $sym"; status=1; }
  done
  [ $status -eq 0 ] && echo "check reports every planted violation: $(echo $found)"
  exit $status
fi
if [ -n "$state" ]; then
  echo "static mutable state defined:"
  echo "$state"
  exit 1
fi
if [ -n "$found" ]; then
  echo "freestanding violation(s):"
  "$nm" -A -u "$@" 2>/dev/null | grep -E " ($(echo "$found" | tr '\n' '|' | sed 's/|$//'))\$"
  exit 1
fi
echo "clean: $# file(s) checked (no heap, no exceptions$( [ "$no_float" -eq 1 ] && echo ', no soft float'))"
