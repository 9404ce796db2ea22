#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ctest's example_fleet_device: two rounds (two runs: a reboot) of a fleet of 20 devices; the
# second round must find every device's flash as the first left it (memo key and ledger: the
# unchanged values cost no budget; the report key and counter). The report keys are any
# non-zero bytes here (the device does not check them; tinyldp keys derives real ones), and a
# device whose key is all zero is refused at provisioning and sends nothing.
# usage: run_test.sh WORKDIR [EMULATOR…] FLEET_DEVICE
set -eu
work=$1
shift
mkdir -p "$work"
rm -f "$work/flash.bin" "$work/uart.bin" "$work/zero_flash.bin"
printf '\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' >"$work/values.bin"
# 20 keys of 32 bytes: "key" and the device's number, repeated.
awk 'BEGIN { for (d = 0; d < 20; ++d) for (i = 0; i < 8; ++i) printf "k%02d.", d }' >"$work/keys.bin"
first=$("$@" "$work/flash.bin" "$work/values.bin" 0 20 "$work/keys.bin" "$work/uart.bin" 2>&1)
echo "$first"
second=$("$@" "$work/flash.bin" "$work/values.bin" 1 20 "$work/keys.bin" "$work/uart.bin" 2>&1)
echo "$second"
echo "$first" | grep -q "round 0: 20 reports sealed and sent, 0 refused by the ledger (epoch budget spent), 0 failed; 20 devices spent"
echo "$second" | grep -q "round 1: 20 reports sealed and sent, 0 refused by the ledger (epoch budget spent), 0 failed; 0 devices spent"
echo "$second" | grep -q "over the devices' lives 2.000 on average, 2.000 at most"
[ "$(wc -c <"$work/flash.bin")" -eq $((20 * 768)) ]
# An all-zero report key: that device is refused at provisioning (no default key), sends nothing.
head -c 32 /dev/zero >"$work/zero_keys.bin"
zero=$("$@" "$work/zero_flash.bin" "$work/values.bin" 0 1 "$work/zero_keys.bin" "$work/uart.bin" 2>&1) && {
  echo "$zero"
  echo "fleet_device: a zero report key was accepted" >&2
  exit 1
}
echo "$zero"
echo "$zero" | grep -q "round 0: 0 reports sealed and sent, 0 refused by the ledger (epoch budget spent), 1 failed"
# A missing keys file: refused before anything is sent.
if "$@" "$work/zero_flash2.bin" "$work/values.bin" 0 1 "$work/no_such_keys.bin" "$work/uart.bin" >/dev/null 2>&1; then
  echo "fleet_device: ran without a keys file" >&2
  exit 1
fi
echo "fleet_device: the second boot kept every memo, ledger and report key; a zero key and a missing keys file were refused"
