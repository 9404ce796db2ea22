#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Code, data, bss and worst-case call-graph stack of tinyldp's footprint programs.

Reads the footprint.config that bench/footprint/CMakeLists.txt writes into a target build
directory (the ELF and the object files of every program), and for each program computes

  flash   .text + .rodata + .data initializers of the whole image, and minus the baseline
          image (same board startup, main() and platform stubs, no tinyldp): what the library adds;
  data/bss  bytes of .data/.bss the library defines: every such symbol of the image that is
          neither in the baseline nor an application object (named app_*) — must be 0;
  stack   worst case over every call path from footprint_run(), from GCC's per-function frame
          sizes and call graph (-fcallgraph-info=su, the .ci file next to each object).

Functions without a call graph (libgcc, newlib's mem*) are read from the disassembly: every
stack-pointer decrement is summed (an upper bound) and their direct calls followed. An
indirect call may reach any function whose address is taken in the program's objects (a
relocation other than a call against it), except vector-table and reset entries: its cost is
the largest of theirs. Recursion, an unbounded dynamic frame, an indirect call in code without
a call graph, or a function that is found nowhere makes the analysis fail — it never guesses.
Interrupt entry (8 words on Cortex-M) and handlers are not included.

usage:
  footprint.py measure <build>/footprint.config
  footprint.py check <build>/footprint.config <budgets> [--set metric:program=N]...
                 [--expect-violation metric:program]   (passes only if that one is reported)
  footprint.py report <config>... --budgets <budgets> --commit <id> --out docs/footprint.md
  footprint.py doc-check <build>/footprint.config docs/footprint.md --budgets <budgets>
                 [--plant-stale metric:program]   (passes only if that planted figure is reported)
  footprint.py selftest

doc-check: the figures docs/footprint.md gives for this build's target still hold. Every size in
its tables (library flash and stack of every program; whole-image flash and library .data/.bss
of the firmware programs) must be within DOC_TOLERANCE of this build's measurement, every
measured program must be in the document and every documented one measured, and its budgets
table must equal the budgets file. A build with another compiler version than the document's
is skipped (exit 77, saying so): its figures are not comparable.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from doc_tables import table_rows  # noqa: E402  (bench/doc_tables.py, shared with check_budgets.py)


class AnalysisError(Exception):
    pass


# ---------------------------------------------------------------------------- configuration

Program = collections.namedtuple("Program", "name elf objects")


class Config:
    def __init__(self, path):
        self.path = path
        self.values = {}
        self.programs = collections.OrderedDict()
        # The device list's entries (tests/support/device_mechanisms.hpp), in its order: {name:
        # its parameters in words}; each is also a program.
        self.mechanisms = collections.OrderedDict()
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                key, _, rest = line.partition(" ")
                if key == "program":
                    parts = rest.split()
                    self.programs[parts[0]] = Program(parts[0], parts[1], parts[2:])
                elif key == "mechanism":
                    name, _, about = rest.partition(" ")
                    self.mechanisms[name] = about
                else:
                    self.values[key] = rest.strip()
        for key in ("target", "objdump", "readelf", "nm"):
            if key not in self.values:
                raise AnalysisError(f"{path}: no '{key}' line")
        if "baseline" not in self.programs:
            raise AnalysisError(f"{path}: no baseline program")
        for name in self.mechanisms:
            if name not in self.programs:
                raise AnalysisError(f"{path}: no program for the device list's entry {name}")

    @property
    def target(self):
        return self.values["target"]

    def tool(self, name):
        return self.values[name]


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise AnalysisError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


# ---------------------------------------------------------------------------- sizes

def ram_sections(config, elf):
    """[(start, end, 'data' or 'bss')] of an image's allocated writable sections, and its
    (flash, ram_data, bss) from its section headers."""
    flash = data = bss = 0
    ram = []
    pattern = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)")
    for line in run([config.tool("readelf"), "-S", "-W", elf]).splitlines():
        m = pattern.match(line)
        if not m:
            continue
        kind, addr, size, flags = m.group(2), int(m.group(3), 16), int(m.group(4), 16), m.group(5)
        if "A" not in flags or size == 0:
            continue
        if kind == "NOBITS":
            bss += size
            ram.append((addr, addr + size, "bss"))
        elif "W" in flags:
            data += size
            flash += size  # initial values are stored in flash
            ram.append((addr, addr + size, "data"))
        else:
            flash += size
    return ram, (flash, data, bss)


def section_sizes(config, elf):
    """(flash, ram_data, bss) of an image from its section headers."""
    return ram_sections(config, elf)[1]


def symbols(config, elf):
    """{name: (address, size, type letter)} of the image's defined symbols."""
    out = {}
    for line in run([config.tool("nm"), "-S", "--defined-only", elf]).splitlines():
        parts = line.split()
        if len(parts) == 4:
            addr, size, kind, name = parts
            out[name] = (int(addr, 16), int(size, 16), kind)
        elif len(parts) == 3:
            addr, kind, name = parts
            out.setdefault(name, (int(addr, 16), 0, kind))
    return out


def static_data(syms, baseline_syms, ram):
    """Bytes of .data and .bss defined by the library (not in the baseline, not app_*), their
    names, and the bytes of the application's objects (app_*: a DRBG, a flash image). A weak
    object (nm's V: an inline variable, a template's static member) is placed by its address in
    `ram` (ram_sections); elsewhere it is a constant."""
    data = bss = app = 0
    names = []
    for name, (addr, size, kind) in syms.items():
        if size == 0 or name in baseline_syms:
            continue
        if kind in "dD":
            where = "data"
        elif kind in "bBcC":
            where = "bss"
        elif kind in "vV":
            where = next((w for start, end, w in ram if start <= addr < end), None)
        else:
            where = None
        if where is None:
            continue
        if name.startswith("app_"):
            app += size
            continue
        names.append(name)
        if where == "data":
            data += size
        else:
            bss += size
    return data, bss, names, app


# ---------------------------------------------------------------------------- call graphs

Node = collections.namedtuple("Node", "frame calls indirect")


def parse_ci(text, origin="<ci>"):
    """{title: (frame or None, [callee titles], has_indirect_call)} from one .ci file.
    frame is None for a declaration (a function defined elsewhere)."""
    nodes = {}
    edges = collections.defaultdict(list)
    node_re = re.compile(r'^node: \{ title: "([^"]+)" label: "((?:[^"\\]|\\.)*)"(.*)\}$')
    edge_re = re.compile(r'^edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
    for line in text.splitlines():
        m = node_re.match(line)
        if m:
            title, label = m.group(1), m.group(2)
            if title == "__indirect_call":
                continue
            f = re.search(r"\\n(\d+) bytes \(([a-z,]+)\)$", label)
            if f:
                qualifier = f.group(2)
                if qualifier not in ("static", "dynamic,bounded"):
                    raise AnalysisError(f"{origin}: {title} has a {qualifier} stack frame (unbounded)")
                nodes[title] = int(f.group(1))
            else:
                nodes.setdefault(title, None)
            continue
        m = edge_re.match(line)
        if m:
            edges[m.group(1)].append(m.group(2))
    graph = {}
    for title, frame in nodes.items():
        calls = edges.get(title, [])
        graph[title] = Node(frame, [c for c in calls if c != "__indirect_call"],
                            "__indirect_call" in calls)
    return graph


def bare(title):
    """The symbol name of a .ci node title ('file:name' for file-local functions)."""
    return title.rsplit(":", 1)[-1] if ":" in title else title


class Disassembly:
    """Frames and calls of functions without a call graph (libgcc, newlib), from objdump."""

    def __init__(self, config, elf, syms):
        self.arm = "arm" in os.path.basename(config.tool("objdump"))
        self.by_address = collections.defaultdict(list)
        for name, (addr, _, kind) in syms.items():
            if kind in "tTwW":
                self.by_address[addr & ~1].append(name)
        self.syms = syms
        self.blocks = {}
        current = None
        for line in run([config.tool("objdump"), "-d", "--no-show-raw-insn", elf]).splitlines():
            m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
            if m:
                current = []
                self.blocks[int(m.group(1), 16)] = current
                continue
            if current is not None and re.match(r"^\s+[0-9a-f]+:\s", line):
                current.append(line.split(":", 1)[1].strip())

    def function(self, name):
        if name not in self.syms:
            raise AnalysisError(f"{name}: called, but neither in a call graph nor in the image")
        addr = self.syms[name][0] & ~1
        if addr not in self.blocks:
            raise AnalysisError(f"{name}: no disassembly at {addr:#x}")
        size = max(self.syms[n][1] for n in self.by_address[addr])
        if size == 0:  # assembly without .size: up to the next symbol
            later = [a for a in self.blocks if a > addr]
            size = (min(later) if later else addr + 4 * len(self.blocks[addr]) + 4) - addr

        def outside(args):  # the function a branch leaves to, or None if it stays inside
            m = re.match(r"^(?:\S+,\s*)*([0-9a-f]+) <", args)
            if not m:
                raise AnalysisError(f"{name}: cannot read the branch target in '{args}'")
            to = int(m.group(1), 16)
            if addr <= to < addr + size:
                return None
            if to not in self.by_address:
                raise AnalysisError(f"{name}: branch to {to:#x}, not the start of a function")
            return self.by_address[to][0]
        frame = 0
        calls = []
        for insn in self.blocks[addr]:
            op, _, args = insn.partition("\t")
            op = op.strip()
            args = args.split(";")[0].split("@")[0].strip()
            target = re.search(r"<([^>+]+)(?:\+0x[0-9a-f]+)?>", args)
            if self.arm:
                if op in ("push", "push.w", "stmdb", "stmdb.w", "vpush") and (op.startswith("push") or op == "vpush" or args.startswith("sp!")):
                    regs = args[args.index("{") + 1:args.index("}")]
                    count = 0
                    for r in regs.split(","):
                        r = r.strip()
                        if "-" in r:
                            a, b = r.split("-")
                            count += int(b[1:]) - int(a[1:]) + 1
                        else:
                            count += 1
                    frame += count * (8 if op == "vpush" and "d" in regs else 4)
                elif re.match(r"^sub(s|\.w)?$", op) and re.match(r"^sp,\s*(sp,\s*)?#\d+", args):
                    frame += int(re.search(r"#(\d+)", args).group(1))
                elif re.match(r"^(str|strd)(\.w)?$", op) and "[sp, #-" in args and args.endswith("!"):
                    frame += int(re.search(r"#-(\d+)", args).group(1))
                elif op in ("bl", "blx") and target:
                    calls.append(outside(args) or name)
                elif op == "blx" or (op in ("bx", "mov", "mov.w") and args.startswith("pc") and "lr" not in args):
                    raise AnalysisError(f"{name}: indirect call or jump without a call graph ({insn})")
                elif re.match(r"^b(\.[nw])?$", op) and outside(args):
                    calls.append(outside(args))  # tail call
                elif re.search(r"\bsp\b", args) and re.match(r"^(mov|add|sub)", op) and args.startswith("sp") and "#" not in args:
                    raise AnalysisError(f"{name}: dynamic stack adjustment ({insn})")
            else:
                if op in ("add", "addi", "c.addi16sp", "c.addi") and re.match(r"^sp,\s*sp,\s*-\d+$", args):
                    frame += int(args.rsplit("-", 1)[1])
                elif op in ("jal", "c.jal", "call") and target:
                    calls.append(outside(args) or name)
                elif op in ("j", "c.j", "tail") and outside(args):
                    calls.append(outside(args))  # tail call
                elif op in ("jalr", "c.jalr") or (op in ("jr", "c.jr") and args not in ("ra",)):
                    raise AnalysisError(f"{name}: indirect call without a call graph ({insn})")
                elif (args.startswith("sp,") and op in ("sub", "add", "addi", "mv", "c.mv")
                      and not re.match(r"^sp,\s*sp,\s*-?\d+$", args)):
                    raise AnalysisError(f"{name}: dynamic stack adjustment ({insn})")
        return Node(frame, calls, False)


def address_taken(config, objects, syms):
    """Functions of the image whose address is taken by code or data in the objects (the
    possible targets of an indirect call). Vector tables and reset code are entry points."""
    call_relocs = re.compile(r"^R_(ARM_(THM_)?(CALL|JUMP\d*|PC\d+)|ARM_V4BX|ARM_NONE|RISCV_(CALL|CALL_PLT|JAL|BRANCH|RVC_JUMP|RVC_BRANCH|RELAX|ALIGN|PCREL_LO12_[IS]|TPREL.*))$")
    skip_sections = re.compile(r"^\.rela?(\.isr_vector|\.ARM\.exidx.*|\.debug.*|\.eh_frame|\.text\.start|\.init_array.*|\.comment)$")
    taken = set()
    section = None
    for obj in objects:
        for line in run([config.tool("readelf"), "-r", "-W", obj]).splitlines():
            m = re.match(r"^Relocation section '([^']+)'", line)
            if m:
                section = m.group(1)
                continue
            parts = line.split()
            if len(parts) < 5 or not re.match(r"^[0-9a-f]{8}$", parts[0]) or section is None:
                continue
            if skip_sections.match(section) or call_relocs.match(parts[2]):
                continue
            symbol = parts[4]
            if symbol.startswith(".text."):
                symbol = symbol[len(".text."):]
            if symbol in syms and syms[symbol][2] in "tTwW" and syms[symbol][1] > 0:
                taken.add(symbol)
    return taken


class CallGraph:
    def __init__(self, config, program, syms):
        self.config = config
        self.graph = {}
        self.by_bare = collections.defaultdict(list)
        for obj in program.objects:
            if re.search(r"\.[sS]\.(obj|o)$", obj):
                continue  # assembly: no call graph; its functions are read from the disassembly
            ci = re.sub(r"\.(obj|o)$", "", obj) + ".ci"
            if not os.path.exists(ci):
                raise AnalysisError(f"{ci}: missing (build with -fcallgraph-info=su; a compiler launcher such "
                                    "as ccache skips it on a cache hit: rebuild that object without it)")
            with open(ci) as f:
                for title, node in parse_ci(f.read(), ci).items():
                    self.merge(title, node)
        for title in self.graph:
            self.by_bare[bare(title)].append(title)
        self.syms = syms
        self.disassembly = None
        self.indirect_targets = sorted(address_taken(config, program.objects, syms))
        self.memo = {}

    def merge(self, title, node):
        old = self.graph.get(title)
        if old is None or old.frame is None:
            if old is not None and node.frame is None:
                node = Node(None, old.calls + node.calls, old.indirect or node.indirect)
            self.graph[title] = node
        elif node.frame is not None:  # defined in several objects (inline, templates): max
            self.graph[title] = Node(max(old.frame, node.frame), old.calls + node.calls,
                                     old.indirect or node.indirect)

    def resolve(self, title):
        node = self.graph.get(title)
        if node is not None and node.frame is not None:
            return title, node
        candidates = [t for t in self.by_bare.get(bare(title), []) if self.graph[t].frame is not None]
        if candidates:
            best = max(candidates, key=lambda t: self.graph[t].frame)
            return best, self.graph[best]
        name = bare(title)
        if name in self.syms:  # an alias (e.g. a C1/C2 constructor pair) defined in a call graph
            addr = self.syms[name][0]
            for other, (a, _, kind) in self.syms.items():
                if a == addr and other != name and kind in "tTwW":
                    defined = [t for t in self.by_bare.get(other, []) if self.graph[t].frame is not None]
                    if defined:
                        best = max(defined, key=lambda t: self.graph[t].frame)
                        return best, self.graph[best]
        if bare(title) not in self.syms:
            # GCC lists some helper calls it later expanded inline (e.g. a division by a
            # constant); a call that really exists would have pulled its callee into the image.
            return "absent:" + bare(title), Node(0, [], False)
        if self.disassembly is None:
            self.disassembly = Disassembly(self.config, self.program_elf, self.syms)
        key = "asm:" + bare(title)
        if key not in self.graph:
            self.graph[key] = self.disassembly.function(bare(title))
        return key, self.graph[key]

    def worst(self, title):
        """(bytes, [path]) of the deepest call chain from title."""
        depth, chain, _ = self._worst(title, (), (), False)
        return depth, chain

    def _worst(self, title, path, pointer_edges, indirect):
        """An indirect call may reach any address-taken function; a cycle that goes through
        such a call is cut, not reported: it would be a function reached through a pointer
        calling back into its caller (e.g. a DRBG whose reseed source is that DRBG, which it
        refuses), not a real chain. Cycles of direct calls are recursion: an error. A result
        that cut a cycle depends on the path, so it is not memoized."""
        key, node = self.resolve(title)
        if key in path:
            start = path.index(key)
            if indirect or any(pointer_edges[start + 1:]):
                return 0, [], True
            cycle = [bare(p) for p in path[start:]] + [bare(key)]
            raise AnalysisError("recursion: " + " -> ".join(cycle))
        if key in self.memo:
            return self.memo[key]
        path = path + (key,)
        pointer_edges = pointer_edges + (indirect,)
        deepest, chain, cut = 0, [], False
        callees = [(c, False) for c in node.calls]
        if node.indirect:
            if not self.indirect_targets:
                raise AnalysisError(f"{bare(key)}: indirect call, and no function of the image has its address taken")
            callees += [(c, True) for c in self.indirect_targets]
        for callee, via_pointer in callees:
            d, c, was_cut = self._worst(callee, path, pointer_edges, via_pointer)
            cut = cut or was_cut
            if d > deepest:
                deepest, chain = d, c
        result = (node.frame + deepest, [(bare(key), node.frame)] + chain, cut)
        if not cut:
            self.memo[key] = result
        return result


# ---------------------------------------------------------------------------- measurement

Measure = collections.namedtuple("Measure", "flash data bss lib_flash lib_data lib_bss stack chain static_names app_ram")


def measure(config, names=None):
    baseline = config.programs["baseline"]
    base_syms = symbols(config, baseline.elf)
    base_flash, _, _ = section_sizes(config, baseline.elf)
    results = collections.OrderedDict()
    extras = {}
    results.extras = extras  # headline what-ifs (not budgets)
    for name, program in config.programs.items():
        if names and name not in names:
            continue
        syms = symbols(config, program.elf)
        ram, (flash, data, bss) = ram_sections(config, program.elf)
        lib_data, lib_bss, static_names, app_ram = static_data(syms, base_syms, ram)
        graph = CallGraph(config, program, syms)
        graph.program_elf = program.elf
        stack, chain = graph.worst("footprint_run")
        results[name] = Measure(flash, data, bss, flash - base_flash, lib_data, lib_bss, stack,
                                chain, static_names, app_ram)
        if name == "oue_firmware":
            # Where the stack goes: a report, seeding, and the largest functions.
            _, node = graph.resolve("footprint_run")
            extras["report_path"] = max((graph.worst(c) for c in node.calls if "firmware_report" in c),
                                        default=(0, []))
            extras["seed_path"] = max((graph.worst(c) for c in node.calls if "firmware_maintain" in c),
                                      default=(0, []))
            extras["largest"] = sorted(((size, n) for n, (_, size, kind) in syms.items()
                                        if kind in "tTwWrR" and size > 0 and n not in base_syms),
                                       reverse=True)
        if name == "c_firmware":
            # The C firmware's stack by step: boot (run-time configuration), seeding, a report.
            _, node = graph.resolve("footprint_run")
            for step in ("boot", "maintain", "report"):
                extras[f"c_{step}_path"] = max((graph.worst(c) for c in node.calls
                                                if f"c_firmware_{step}" in c), default=(0, []))
    return results


# ---------------------------------------------------------------------------- budgets

def read_budgets(path):
    """{(metric, program): {target: limit}}; program '*' applies to every program."""
    budgets = collections.OrderedDict()
    targets = None
    with open(path) as f:
        for line in f:
            text = line.split("#", 1)[0].split()
            if not text:
                continue
            if text[0] == "targets":
                targets = text[1:]
                continue
            if targets is None:
                raise AnalysisError(f"{path}: a 'targets' line must come first")
            metric, program, limits = text[0], text[1], text[2:]
            if metric not in ("flash", "lib_flash", "stack", "lib_data", "lib_bss"):
                raise AnalysisError(f"{path}: unknown metric {metric}")
            if len(limits) != len(targets):
                raise AnalysisError(f"{path}: {metric} {program}: {len(limits)} limits for {len(targets)} targets")
            budgets[(metric, program)] = {t: int(v) for t, v in zip(targets, limits)}
    return budgets


def violations(results, budgets, target):
    found, checked = [], 0
    for (metric, program), limits in budgets.items():
        limit = limits.get(target)
        if limit is None:
            continue
        for name, m in results.items():
            if program not in ("*", name) or (program == "*" and name == "baseline"):
                continue
            value = getattr(m, metric)
            checked += 1
            if value > limit:
                found.append((metric, name, value, limit))
    return found, checked


def unbudgeted(results, budgets, target, required):
    """What the budgets leave unchecked on target: an entry of the device list (required) without
    its own flash and stack budget, and a budget naming a program this build did not measure (a
    renamed entry's budgets would otherwise stop applying without a word)."""
    problems = []
    for name in required:
        for metric in ("flash", "stack"):
            if target not in budgets.get((metric, name), {}):
                problems.append(f"{metric} of {name} has no budget on {target}")
    for (metric, program), limits in budgets.items():
        if program != "*" and target in limits and program not in results:
            problems.append(f"a {metric} budget for {program}, which this build did not measure")
    return problems


# ---------------------------------------------------------------------------- report

def markdown(configs, all_results, budgets, commit):
    targets = [c.target for c in configs]
    first = configs[0]
    lines = []
    w = lines.append
    w("# Footprint")
    w("")
    w("Generated by `scripts/footprint` (do not edit by hand): every program in `bench/footprint/` built")
    w("for each target preset at MinSizeRel and measured by `bench/footprint/footprint.py`. The budgets")
    w("are `tests/footprint/budgets.txt`; the `footprint_budgets` test fails on every target preset")
    w("when one is exceeded. The `footprint_doc` test, on every target preset, fails when a size")
    w(f"in the tables below is more than {DOC_TOLERANCE_BYTES} B or {DOC_TOLERANCE_PERCENT:g} % (whichever is larger) from what")
    w("that build measures, or the budgets table differs from the file: run `scripts/footprint` then.")
    w("")
    w(f"- commit: `{commit}`")
    for c in configs:
        w(f"- {c.target}: {c.values.get('compiler_version', '?')} (`{os.path.basename(c.values.get('compiler', '?'))}`),"
          f" flags `{c.values.get('cxx_flags', '?')}`, link `{c.values.get('link_flags', '?')}`")
    w("")
    w("**What the numbers are.** *flash*: `.text` + `.rodata` + `.data` initializers that the")
    w("program adds to the baseline image (board startup, `main`, the platform stubs standing in for")
    w("the firmware's TRNG, radio and sensor; no tinyldp code) — the library's code and constants, the")
    w("wire header included, plus the few bytes of calling code. *stack*: worst case over every call")
    w("path from `footprint_run()` — the report buffers, the `RandomBits` and everything the library")
    w("calls, from GCC's per-function frames and call graph (`-fcallgraph-info=su`); libgcc and newlib")
    w("helpers from their disassembly; an indirect call is charged the deepest function whose address")
    w("is taken; recursion fails the analysis. Interrupt entry frames are not included. *data/bss*:")
    w("static RAM the library defines (objects named `app_*` — a DRBG, a flash image — are the")
    w("application's; their size is given separately).")
    w("")

    def table(names, title, level="##"):
        w(f"{level} {title}")
        w("")
        header = "| program | " + " | ".join(f"{t} flash | {t} stack" for t in targets) + " |"
        w(header)
        w("|" + " --- |" * (1 + 2 * len(targets)))
        for name in names:
            cells = []
            for results in all_results:
                m = results.get(name)
                cells += [str(m.lib_flash), str(m.stack)] if m else ["—", "—"]
            w(f"| `{name}` | " + " | ".join(cells) + " |")
        w("")

    def firmware_table(name):  # one firmware program on every target, with its budgets
        w(f"| target (`{name}`) | library flash | whole image flash | stack from `footprint_run` | library .data / .bss | budget (flash / stack) |")
        w("| --- | --- | --- | --- | --- | --- |")
        for c, results in zip(configs, all_results):
            m = results[name]
            fb = budgets.get(("flash", name), {}).get(c.target, "—")
            sb = budgets.get(("stack", name), {}).get(c.target, "—")
            w(f"| {c.target} | {m.lib_flash} B | {m.flash} B | {m.stack} B | {m.lib_data} / {m.lib_bss} B | {fb} / {sb} B |")
        w("")

    programs = list(all_results[0].keys())
    # The device list's entries: a memoized one's program boots like losue_firmware (the
    # application's DRBG and flash image, app_*), a fresh-noise one's has no application objects.
    listed = first.mechanisms
    memoized = [p for p in listed if all_results[0][p].app_ram > 0]
    fresh = [p for p in listed if p not in memoized]
    ports = [p for p in programs if p in PORTS]
    head = all_results[0].get("oue_firmware")
    w("## Headline: the example firmware (TRNG → health tests → ChaCha20 DRBG → OUE d = 256 → wire)")
    w("")
    w("`examples/oue_firmware/firmware.cpp` itself, on the platform stand-ins: ε = 1, d = 256,")
    w("`RandomBits<ChaCha20Drbg, 8>` (the DRBG buffers already), the DRBG seeded at boot — and")
    w("reseeded by the main loop before a report could run past the reseed interval — from the TRNG")
    w("through the SP 800-90B health tests (start-up test included; cutoffs computed at compile time,")
    w("`HealthPlan`), 39-byte wire report (7-byte header + 32-byte payload). The DRBG object (328")
    w("bytes) is the application's RAM: a plain global in `.bss` (nothing to construct or destroy).")
    w("")
    firmware_table("oue_firmware")
    w("The whole image includes the test board's startup and semihosting exit "
      f"({all_results[0]['baseline'].flash} B on {targets[0]}, the baseline).")
    w("")
    m0 = all_results[0]
    extras = m0.extras
    if head:
        met_flash = head.flash <= 4608
        met_stack = head.stack <= 512
        w(f"**Goal on {targets[0]}: ≤ 4608 B of flash (the 4 KiB goal of OUE + DRBG, plus 512 B for the"
          f" health tests), ≤ 512 B of stack, no library .data/.bss.** "
          f"Flash: {head.flash} B for the whole image — {'met' if met_flash else 'missed'}. "
          f"Library .data/.bss: {head.lib_data} / {head.lib_bss} B — {'met' if head.lib_data == head.lib_bss == 0 else 'missed'}. "
          f"Stack: {head.stack} B worst case — {'met' if met_stack else 'missed'}. Where it goes:")
        w("")
        if "report_path" in extras:
            w(f"- a report (`firmware_report` and below): {extras['report_path'][0]} B on top of"
              f" `footprint_run`'s {head.chain[0][1]} B;")
            w(f"- seeding through the health tests (`firmware_maintain` and below), at boot and when the"
              f" main loop reseeds: {extras['seed_path'][0]} B;")
            w("- no reseed nests inside a report: the firmware sets no reseed source and reseeds from its")
            w("  main loop when `blocks_until_reseed()` runs low, so `fill` links no reseed (it would fail")
            w("  closed rather than run past the interval). The `chacha20_drbg` port program sets one:")
            w("  its stack includes a reseed nested in `fill`.")
        w("")
        w(f"Deepest call path on {targets[0]} (frame bytes per function):")
        w("")
        w("```")
        for fn, frame in head.chain:
            w(f"{frame:5d}  {demangle(first, fn)}")
        w(f"{head.stack:5d}  total")
        w("```")
        w("")
        if "largest" in extras:
            w(f"Largest functions the library adds to the image on {targets[0]} (bytes of flash):")
            w("")
            w("| bytes | function |")
            w("| --- | --- |")
            for size, fn in extras["largest"][:12]:
                w(f"| {size} | `{demangle(first, fn)}` |")
            w("")
    if all("c_firmware" in results for results in all_results):
        w("## The same firmware in C (tinyldp.h)")
        w("")
        w("`examples/c_firmware/firmware.c` itself (C99, through `tinyldp.h` and `tinyldp::c`): the")
        w("headline firmware's steps, with OUE configured at run time from ε = 1 given as ε · 2^32")
        w("(C has no compile-time configuration), the health tests' default plan precomputed")
        w("(`TINYLDP_HEALTH_PLAN_DEFAULT`), and each report's bits drawn through the DRBG's C source")
        w("(`RandomBits<CEntropySource, 8>` inside the library). Its contexts — DRBG and OUE, 376 B on")
        w("32-bit targets — are one application global in `.bss`.")
        w("")
        firmware_table("c_firmware")
        if "c_boot_path" in extras:
            w(f"Stack on {targets[0]} by step: boot (`c_firmware_boot`: the run-time configuration)"
              f" {extras['c_boot_path'][0]} B, seeding (`c_firmware_maintain`)"
              f" {extras['c_maintain_path'][0]} B, a report (`c_firmware_report`)"
              f" {extras['c_report_path'][0]} B. The flash above the C++ firmware's is the run-time"
              " configuration (384-bit integer arithmetic for e^ε) and the other entry points of")
            w("`tinyldp.h` the firmware calls.")
            w("")
    if all("losue_firmware" in results and "fleet_device" in results for results in all_results):
        w("## Memoized reports (reports over time)")
        w("")
        w("`losue_firmware` (`bench/footprint/losue_firmware.cpp`): the TRNG seeds the DRBG, the memo key")
        w("is loaded from (or provisioned into) emulated flash, and one L-OSUE report (OUE at ε∞ = 2")
        w("memoized, then SUE: ε₁ = 1; d = 256; the memo recomputed from the key's ChaCha20 stream) is")
        w("framed and sent. `fleet_device` is the fleet demo's device code itself")
        w("(`examples/fleet_device/device.cpp`): TRNG → health tests → DRBG, memo key, privacy ledger")
        w("and report key in emulated flash (six 128-byte sectors), the ledger's durable charge before")
        w("the report, wire header with device id, epoch and memo generation, the report sealed")
        w("(counter and ChaCha20-Poly1305 tag, port/auth/report_auth), serial framing for the UART.")
        w("")
        w("`losue_firmware`:")
        w("")
        firmware_table("losue_firmware")
        w("`fleet_device`:")
        w("")
        firmware_table("fleet_device")
        m0 = all_results[0]["losue_firmware"]
        w(f"**Goal on {targets[0]} (#15): the L-OSUE firmware within 6 KiB of flash and 768 B of stack.**"
          f" Flash: {m0.flash} B — {'met' if m0.flash <= 6144 else 'missed'}; stack: {m0.stack} B —"
          f" {'met' if m0.stack <= 768 else 'missed'}.")
        w("")
    def parameters(names):  # the list's `about` of each entry, lines broken between entries
        w("")
        line = "Parameters:"
        for i, n in enumerate(names):
            item = f"`{n}` {listed[n]}" + (";" if i + 1 < len(names) else ".")
            if len(line) + 1 + len(item) > 100:
                w(line)
                line = item
            else:
                line += " " + item
        w(line)
        w("")
    w("## Mechanisms (the device list)")
    w("")
    w("Every entry of the device list (`tests/support/device_mechanisms.hpp`) at its example")
    w("configuration: one program per entry (`bench/footprint/mechanism.cpp`, built once per entry)")
    w("reports the sensor's value once through the one report shape (`privatize(value, [key,] rng,")
    w("report, size)`), frames the payload with the wire header and sends it. A mechanism added to")
    w("the list gets its program and its row here.")
    w("")
    table(fresh + [p for p in ("wire",) if p in programs], "Fresh noise per report (ε = 1)", "###")
    w("Each draws from `RandomBits<PlatformTrng>` (the stub TRNG, in the baseline); `wire` only frames")
    w("a 32-byte payload.")
    parameters(fresh)
    if memoized:
        table(memoized, "Memoized (the device's memo key)", "###")
        w("Each boots as `losue_firmware` does — the TRNG seeds the application's ChaCha20 DRBG, the memo")
        w("key is loaded from (or provisioned into) emulated flash — and then reports once, its noise")
        w("from the DRBG (`RandomBits<ChaCha20Drbg, 8>`) and its memos from the key: the rows include")
        w("the DRBG, the memo key's ChaCha20 stream and the flash record (the application's DRBG and")
        w(f"flash image, {all_results[0][memoized[0]].app_ram} B of RAM, are not library RAM).")
        parameters(memoized)
    table(ports, "Ports")
    w("`chacha20_drbg`: seed from the platform TRNG, which is also set as the reseed source (so the")
    w("stack includes a reseed nested in `fill`), + one 32-byte request (the DRBG object, 328 B, is")
    w("`app_drbg`); `health_tests`: `HealthTested<PlatformTrng>`, first fill (start-up test included);")
    w("`nrf51_rng`, `stm32_rng`: the register-level drivers, one blocking 32-byte request;")
    w("`ram_storage`, `emulated_flash`: the core's `Record` (two slots, CRC-32) on that device, one")
    w("32-byte write and read — the rows include `Record`; `persisted_seed`: `restore_seed`/`save_seed`")
    w("on RAM storage plus the DRBG (`Record` and the DRBG included); `report_auth`: authenticated")
    w("reports (`ReportAuth` on RAM storage: load, provisioned from the TRNG if blank, one 47-byte")
    w("report sealed in place into 67 bytes — `Record`, the ChaCha20 block and Poly1305 included).")
    w("`host_os` and `file_storage` are host-only and not listed.")
    w("")
    w("## Budgets")
    w("")
    w("From `tests/footprint/budgets.txt` (bytes; `*` = every program):")
    w("")
    w("| metric | program | " + " | ".join(targets) + " |")
    w("|" + " --- |" * (2 + len(targets)))
    for (metric, program), limits in budgets.items():
        w(f"| {metric} | `{program}` | " + " | ".join(str(limits.get(t, "—")) for t in targets) + " |")
    w("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- doc-check

# How far a documented size may be from the build's before docs/footprint.md counts as stale:
# 16 bytes or 2 % of the documented figure, whichever is larger (docs/footprint.md says so).
DOC_TOLERANCE_BYTES = 16
DOC_TOLERANCE_PERCENT = 2.0
FIRMWARE_HEADER = re.compile(r"^target \(`(\w+)`\)$")


def doc_tolerance(documented):
    return max(DOC_TOLERANCE_BYTES, documented * DOC_TOLERANCE_PERCENT / 100)


def doc_figures(text):
    """What a footprint document states: ({(program, target, metric): bytes},
    {(metric, program): {target: bytes}} of its budgets table, {target: compiler version})."""
    figures, budgets, compilers = {}, {}, {}
    for line in text.splitlines():
        m = re.match(r"^- ([\w-]+): (.+?) \(`", line)
        if m:
            compilers[m.group(1)] = m.group(2)
    for header, cells in table_rows(text.splitlines()):
        number = lambda c: int(c.replace("B", "").strip())  # noqa: E731
        firmware = FIRMWARE_HEADER.match(header[0])
        if firmware:
            program, target = firmware.group(1), cells[0]
            data, _, bss = cells[4].partition("/")
            for metric, value in (("lib_flash", cells[1]), ("flash", cells[2]), ("stack", cells[3]),
                                  ("lib_data", data), ("lib_bss", bss)):
                figures[(program, target, metric)] = number(value)
        elif header[0] == "program":
            program = cells[0].strip("`")
            for title, value in zip(header[1:], cells[1:]):
                target, _, metric = title.rpartition(" ")
                if value != "—":
                    figures[(program, target, "lib_flash" if metric == "flash" else metric)] = number(value)
        elif header[:2] == ["metric", "program"]:
            budgets[(cells[0], cells[1].strip("`"))] = {
                t: int(v) for t, v in zip(header[2:], cells[2:]) if v != "—"}
    return figures, budgets, compilers


def stale_figures(results, figures, target):
    """Every difference beyond the tolerance between the document and this measurement."""
    problems = []
    documented = {(p, m): v for (p, t, m), v in figures.items() if t == target}
    if not documented:
        return [f"no figures for {target}"]
    for (program, metric), value in sorted(documented.items()):
        m = results.get(program)
        if m is None:
            problems.append(f"{program}: documented, but this build has no such program")
            continue
        measured = getattr(m, metric)
        if abs(measured - value) > doc_tolerance(value):
            problems.append(f"{metric} of {program}: documented {value} B, measured {measured} B"
                            f" (tolerance {doc_tolerance(value):.0f} B)")
    for name in results:
        if name != "baseline" and not any(p == name for p, _ in documented):
            problems.append(f"{name}: measured, but not in the document")
    return problems


def doc_check(config, doc_path, budgets_path, plant=None):
    with open(doc_path) as f:
        figures, doc_budgets, compilers = doc_figures(f.read())
    target = config.target
    ours, theirs = config.values.get("compiler_version", "?"), compilers.get(target)
    if theirs != ours:
        print(f"SKIP: {doc_path} was measured on {target} with {theirs}, this build uses {ours}:"
              " its figures are not comparable")
        return 77
    if plant:  # the selftest: move one documented figure past the tolerance
        metric, _, program = plant.partition(":")
        key = (program, target, metric)
        if key not in figures:
            print(f"cannot plant {plant}: {doc_path} has no such figure for {target}")
            return 1
        figures[key] += int(doc_tolerance(figures[key])) + 1
    problems = stale_figures(measure(config), figures, target)
    budgets = read_budgets(budgets_path)
    for key in sorted(set(budgets) | set(doc_budgets)):
        file_value, doc_value = budgets.get(key, {}).get(target), doc_budgets.get(key, {}).get(target)
        if file_value != doc_value:
            problems.append(f"budget {key[0]} {key[1]}: {budgets_path} says {file_value},"
                            f" the document {doc_value}")
    for p in problems:
        print(f"STALE on {target}: {p}")
    checked = sum(1 for (_, t, _) in figures if t == target)
    if plant:
        metric, _, program = plant.partition(":")
        if any(p.startswith(f"{metric} of {program}:") for p in problems):
            print(f"the check reports the planted stale figure ({plant})")
            return 0
        print(f"the planted stale figure {plant} was not reported")
        return 1
    if problems:
        print(f"{doc_path} no longer matches this build on {target}: run scripts/footprint to"
              " regenerate it (and say in the commit why the figures moved)")
        return 1
    print(f"{target}: {checked} figures of {doc_path} within {DOC_TOLERANCE_BYTES} B or"
          f" {DOC_TOLERANCE_PERCENT:g} % of this build's, and its budgets table equal to {budgets_path}")
    return 0


PORTS = ["chacha20_drbg", "health_tests", "nrf51_rng", "stm32_rng", "ram_storage", "emulated_flash",
         "persisted_seed", "report_auth"]


def demangle(config, name):
    tool = config.tool("nm").replace("-nm", "-c++filt")
    try:
        out = subprocess.run([tool, name], stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        return name
    return out or name


# ---------------------------------------------------------------------------- self-test

def selftest():
    """The call-graph arithmetic on synthetic graphs (host ctest: runs without a cross toolchain)."""
    failures = 0

    def expect(cond, what):
        nonlocal failures
        print(("ok   " if cond else "FAIL ") + what)
        failures += 0 if cond else 1

    ci = "\n".join([
        'graph: { title: "t.cpp"',
        'node: { title: "a" label: "int a()\\nt.cpp:1:1\\n16 bytes (static)" }',
        'node: { title: "t.cpp:_ZL1bv" label: "int b()\\nt.cpp:2:1\\n40 bytes (static)" }',
        'node: { title: "c" label: "int c()\\nt.cpp:3:1\\n8 bytes (dynamic,bounded)" }',
        'node: { title: "ext" label: "void ext()\\nt.cpp:9:1" shape : ellipse }',
        'edge: { sourcename: "a" targetname: "t.cpp:_ZL1bv" label: "t.cpp:1:5" }',
        'edge: { sourcename: "a" targetname: "c" label: "t.cpp:1:9" }',
        'edge: { sourcename: "c" targetname: "ext" label: "t.cpp:3:9" }',
        "}"])
    g = parse_ci(ci)
    expect(g["a"].frame == 16 and g["t.cpp:_ZL1bv"].frame == 40 and g["c"].frame == 8, "frames parsed")
    expect(g["ext"].frame is None and g["a"].calls == ["t.cpp:_ZL1bv", "c"], "declarations and edges parsed")

    class Fake(CallGraph):
        def __init__(self, graph, targets=()):
            self.graph = graph
            self.by_bare = collections.defaultdict(list)
            for t in graph:
                self.by_bare[bare(t)].append(t)
            self.indirect_targets = list(targets)
            self.memo = {}
            self.disassembly = None

        def resolve(self, title):
            key = title if title in self.graph else next(
                (t for t in self.by_bare.get(bare(title), []) if self.graph[t].frame is not None), None)
            if key is None:
                raise AnalysisError(f"{title}: unknown")
            return key, self.graph[key]

    g["ext2"] = Node(100, [], False)
    g["ext"] = Node(24, [], False)
    expect(Fake(g).worst("a")[0] == 56, "deepest path: max(16+40, 16+8+24) = 56")
    g2 = dict(g)
    g2["c"] = Node(8, ["ext", "a"], False)
    try:
        Fake(g2).worst("a")
        expect(False, "recursion is an error")
    except AnalysisError as e:
        expect("recursion" in str(e), "recursion is an error: " + str(e))
    g3 = dict(g)
    g3["c"] = Node(8, [], True)
    try:
        Fake(g3).worst("a")
        expect(False, "an indirect call with no possible target is an error")
    except AnalysisError as e:
        expect("indirect" in str(e), "an indirect call with no possible target is an error")
    expect(Fake(g3, ["ext2"]).worst("a")[0] == 16 + 8 + 100, "an indirect call costs the deepest address-taken function")
    g4 = dict(g)
    g4["c"] = Node(8, [], True)
    g4["p"] = Node(60, ["c"], False)  # reached through a pointer, calls back into c
    expect(Fake(g4, ["p"]).worst("a")[0] == 16 + 8 + 60,
           "a cycle through an indirect call is cut, the rest of it counted")
    try:
        parse_ci('node: { title: "d" label: "int d()\\nt.cpp:1:1\\n8 bytes (dynamic)" }')
        expect(False, "an unbounded dynamic frame is an error")
    except AnalysisError:
        expect(True, "an unbounded dynamic frame is an error")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("targets m0 rv\nstack oue 100 120\nlib_bss * 0 0\n")
    budgets = read_budgets(f.name)
    os.unlink(f.name)
    m = Measure(0, 0, 0, 0, 0, 0, 110, [], [], 0)
    found, _ = violations({"oue": m}, budgets, "m0")
    expect([v[:2] for v in found] == [("stack", "oue")], "a stack over budget is reported")
    found, _ = violations({"oue": m}, budgets, "rv")
    expect(found == [], "a stack within budget passes")
    found, _ = violations({"oue": m._replace(lib_bss=4)}, budgets, "rv")
    expect([v[:2] for v in found] == [("lib_bss", "oue")], "library .bss is reported")
    expect(unbudgeted({"oue": m, "krr": m}, budgets, "m0", ["oue", "krr"]) ==
           ["flash of oue has no budget on m0", "flash of krr has no budget on m0", "stack of krr has no budget on m0"],
           "an entry of the device list without its flash and stack budgets is reported")
    expect(unbudgeted({"krr": m}, budgets, "m0", []) == ["a stack budget for oue, which this build did not measure"],
           "a budget naming a program that was not measured is reported")
    ram = [(0x2000, 0x2100, "data"), (0x2100, 0x2400, "bss")]
    syms = {"inline_state": (0x2200, 8, "V"), "constant": (0x100, 56, "V"), "app_drbg": (0x2300, 328, "V"),
            "counter": (0x2000, 4, "d"), "old": (0x2104, 16, "b")}
    expect(static_data(syms, {"old"}, ram) == (4, 8, ["inline_state", "counter"], 328),
           "a weak object in RAM is library .bss, one in flash a constant; app_* is the application's")
    print(f"{failures} failed")
    return 1 if failures else 0


# ---------------------------------------------------------------------------- main

def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("measure")
    p.add_argument("config")
    p = sub.add_parser("check")
    p.add_argument("config")
    p.add_argument("budgets")
    p.add_argument("--set", action="append", default=[], metavar="METRIC:PROGRAM=N",
                   help="override one budget (to show that the check can fail)")
    p.add_argument("--expect-violation", metavar="METRIC:PROGRAM",
                   help="pass only if this violation is reported")
    p = sub.add_parser("report")
    p.add_argument("configs", nargs="+")
    p.add_argument("--budgets", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("doc-check")
    p.add_argument("config")
    p.add_argument("doc")
    p.add_argument("--budgets", required=True)
    p.add_argument("--plant-stale", metavar="METRIC:PROGRAM",
                   help="move this documented figure past the tolerance; pass only if reported")
    sub.add_parser("selftest")
    args = parser.parse_args(argv)

    try:
        if args.command == "selftest":
            return selftest()
        if args.command == "measure":
            config = Config(args.config)
            for name, m in measure(config).items():
                print(f"{config.target:10} {name:15} image {m.flash:6} B  library {m.lib_flash:6} B flash,"
                      f" {m.lib_data} B data, {m.lib_bss} B bss; stack {m.stack:5} B")
            return 0
        if args.command == "check":
            config = Config(args.config)
            budgets = read_budgets(args.budgets)
            for item in args.set:
                key, _, value = item.partition("=")
                metric, _, program = key.partition(":")
                budgets.setdefault((metric, program), {})[config.target] = int(value)
            results = measure(config)
            found, checked = violations(results, budgets, config.target)
            for metric, name, value, limit in found:
                print(f"OVER BUDGET on {config.target}: {metric} of {name} is {value} B, budget {limit} B")
            uncovered = unbudgeted(results, budgets, config.target, config.mechanisms)
            for problem in uncovered:
                print(f"UNCHECKED on {config.target}: {problem} ({args.budgets})")
            if args.expect_violation:
                metric, _, program = args.expect_violation.partition(":")
                hit = [v for v in found if v[0] == metric and v[1] == program]
                if hit:
                    print(f"the check reports the planted violation ({metric} of {program})")
                    return 0
                print(f"expected the violation {args.expect_violation}, got {found}")
                return 1
            if found or uncovered:
                return 1
            head = results.get("oue_firmware")
            print(f"{config.target}: {checked} budgets hold over {len(results) - 1} programs"
                  + (f" (oue_firmware: {head.flash} B image, {head.lib_flash} B library flash,"
                     f" {head.stack} B stack)" if head else ""))
            return 0
        if args.command == "doc-check":
            return doc_check(Config(args.config), args.doc, args.budgets, args.plant_stale)
        if args.command == "report":
            configs = [Config(c) for c in args.configs]
            budgets = read_budgets(args.budgets)
            all_results = [measure(c) for c in configs]
            for c, results in zip(configs, all_results):
                found, _ = violations(results, budgets, c.target)
                for metric, name, value, limit in found:
                    print(f"warning: {c.target}: {metric} of {name} is {value} B, budget {limit} B")
            text = markdown(configs, all_results, budgets, args.commit)
            with open(args.out, "w") as f:
                f.write(text)
            print(f"wrote {args.out}")
            return 0
    except AnalysisError as e:
        print(f"footprint: {e}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
