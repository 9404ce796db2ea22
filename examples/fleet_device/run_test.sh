#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ctest's example_fleet_device: two rounds (two runs: a reboot) of a fleet of 20 devices; the
# second round must find every device's flash as the first left it (memo key and ledger: the
# unchanged values cost no budget). usage: run_test.sh WORKDIR [EMULATOR…] FLEET_DEVICE
set -eu
work=$1
shift
mkdir -p "$work"
rm -f "$work/flash.bin" "$work/uart.bin"
printf '\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' >"$work/values.bin"
first=$("$@" "$work/flash.bin" "$work/values.bin" 0 20 "$work/uart.bin" 2>&1)
echo "$first"
second=$("$@" "$work/flash.bin" "$work/values.bin" 1 20 "$work/uart.bin" 2>&1)
echo "$second"
echo "$first" | grep -q "round 0: 20 reports sent, 0 refused by the ledger (epoch budget spent), 0 failed; 20 devices spent"
echo "$second" | grep -q "round 1: 20 reports sent, 0 refused by the ledger (epoch budget spent), 0 failed; 0 devices spent"
echo "$second" | grep -q "over the devices' lives 2.000 on average, 2.000 at most"
[ "$(wc -c <"$work/flash.bin")" -eq $((20 * 512)) ]
echo "fleet_device: the second boot kept every memo and ledger"
