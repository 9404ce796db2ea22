#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""No variable-time operation on a report path, in the code a target runs.

Disassembles constant_time_guest and follows the direct calls and tail calls from every
report case (the functions ct_report_* and the instances of the templates ct_report<Entry>, one
per mechanism of the device list, and ct_report_coarse<Entry>; or those --roots names). In every function reached it
flags:
  - calls to libgcc's multiply and divide helpers (their time can depend on the operands:
    __aeabi_lmul's carry branch is issue #14's F1), on every core;
  - the core's variable-latency instructions: on Cortex-M3 the long multiplies (UMULL, SMULL,
    UMLAL, SMLAL terminate early on small operands) and the divides; on Cortex-M4(F) the
    divides (its long multiplies take one cycle); on RV32 the divides and remainders, and the
    high-half multiplies (without Zkt nothing promises their latency; see
    docs/privacy-model.md). Cortex-M0 has neither divides nor long multiplies; its MULS has a
    fixed latency per implementation (1 or 32 cycles).
An entry of the allow-list (core, function, instruction or helper, reason) admits a use whose
operands are public.

usage: check_report_path.py --objdump OBJDUMP --elf GUEST --core cortex-m0|cortex-m3|cortex-m4f|rv32imac
       --allow ALLOW_LIST [--roots NAME ...] [--expect-violation]
"""
import argparse
import re
import subprocess
import sys

HELPERS = {
    "__aeabi_lmul", "__aeabi_ldivmod", "__aeabi_uldivmod", "__aeabi_idiv", "__aeabi_uidiv",
    "__aeabi_idivmod", "__aeabi_uidivmod", "__muldi3", "__mulsi3", "__divdi3", "__udivdi3",
    "__moddi3", "__umoddi3", "__divsi3", "__udivsi3", "__modsi3", "__umodsi3", "__udivmoddi4",
    "__divmoddi4",
}
# (The 64-bit shift helpers __aeabi_llsl/llsr/lasr branch on the shift count only, and every
# shift count on a report path is a configuration constant or a count of public draws.)
VARIABLE_LATENCY = {
    "cortex-m0": set(),
    "cortex-m3": {"umull", "smull", "umlal", "smlal", "udiv", "sdiv"},
    "cortex-m4f": {"udiv", "sdiv"},
    "rv32imac": {"div", "divu", "rem", "remu", "mulh", "mulhu", "mulhsu"},
}
FUNCTION = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2,8}(?: [0-9a-f]{4})?\s+)?(\S+)\s*(.*)$")
TARGET = re.compile(r"<([^>+]+)>")  # a call or jump to the start of a function


def disassemble(objdump, elf):
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", elf], check=True,
                          capture_output=True, text=True).stdout
    functions, current = {}, None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = functions.setdefault(m.group(2), [])
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            current.append((m.group(2).split(".")[0], m.group(3)))
    return functions


def is_branch(mnemonic):
    return mnemonic in {"bl", "blx", "b", "bx", "jal", "j", "tail", "call", "jalr"} or (
        mnemonic.startswith("b") and len(mnemonic) <= 4 and mnemonic not in {"bic", "bics", "bfi", "bfc"})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--objdump", required=True)
    p.add_argument("--elf", required=True)
    p.add_argument("--core", required=True, choices=sorted(VARIABLE_LATENCY))
    p.add_argument("--allow", required=True)
    p.add_argument("--roots", nargs="*")
    p.add_argument("--expect-violation", action="store_true")
    a = p.parse_args()
    allowed = set()
    with open(a.allow) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                core, function, what, *reason = line.split(None, 3)
                if not reason:
                    sys.exit(f"allow-list entry without a reason: {line}")
                if core in (a.core, "*"):
                    allowed.add((function, what))
    functions = disassemble(a.objdump, a.elf)
    roots = a.roots or [name for name in functions if name.startswith(("ct_report_", "_Z9ct_reportI", "_Z16ct_report_coarseI"))]
    if not roots or any(r not in functions for r in roots):
        sys.exit(f"FAIL: report functions not found in {a.elf}: {roots}")
    seen, queue, violations = set(), list(roots), []
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        for mnemonic, operands in functions.get(name, []):
            target = TARGET.search(operands) if is_branch(mnemonic) else None
            callee = target.group(1) if target else None
            if callee in HELPERS and (name, callee) not in allowed and ("*", callee) not in allowed:
                violations.append(f"{name}: calls {callee}")
            elif callee and callee != name and callee in functions:
                queue.append(callee)
            if mnemonic in VARIABLE_LATENCY[a.core] and (name, mnemonic) not in allowed:
                violations.append(f"{name}: {mnemonic} {operands}")
    for v in violations:
        print(v)
    print(f"{len(seen)} functions on the report paths of {len(roots)} case(s); "
          f"{len(violations)} variable-time operation(s)")
    if a.expect_violation:
        if not violations:
            sys.exit("FAIL: the planted division was not found")
        print("the planted violation was caught")
    elif violations:
        sys.exit("FAIL: a variable-time operation on a report path (allow-list: " + a.allow + ")")


if __name__ == "__main__":
    main()
