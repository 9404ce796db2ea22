#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `tinyldp keys` (docs/gate.md "Provisioning"): each device's report key
is the first 32 bytes of ChaCha20 under the fleet secret, block 0, nonce "TLDK" ‖ id ‖ 0 —
checked against a ChaCha20 written here from RFC 8439 (its §2.3.2 test vector first) —, in id
order, in a file only its owner may read; bad secrets and ranges are refused and leave no file.
usage: test_cli_keys.py <path to tinyldp>"""
import os
import stat
import struct
import tempfile

from cli_harness import check, finish, run

MASK = 0xFFFFFFFF


def rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & MASK


def quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK
    s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK
    s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce):
    """RFC 8439 §2.3: 64 bytes of keystream."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *struct.unpack("<8I", key), counter,
             *struct.unpack("<3I", nonce)]
    s = list(state)
    for _ in range(10):
        quarter(s, 0, 4, 8, 12)
        quarter(s, 1, 5, 9, 13)
        quarter(s, 2, 6, 10, 14)
        quarter(s, 3, 7, 11, 15)
        quarter(s, 0, 5, 10, 15)
        quarter(s, 1, 6, 11, 12)
        quarter(s, 2, 7, 8, 13)
        quarter(s, 3, 4, 9, 14)
    return struct.pack("<16I", *[(x + y) & MASK for x, y in zip(s, state)])


# RFC 8439 §2.3.2: key 00 01 … 1f, counter 1, nonce 00 00 00 09 00 00 00 4a 00 00 00 00.
rfc = chacha20_block(bytes(range(32)), 1, bytes.fromhex("000000090000004a00000000"))
check(rfc.hex() == ("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                    "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"),
      "this test's ChaCha20 gives RFC 8439's block")


def device_key(secret, device_id):
    return chacha20_block(secret, 0, b"TLDK" + struct.pack("<II", device_id, 0))[:32]


tmp = tempfile.mkdtemp(prefix="tinyldp-keys-")


def path(name):
    return os.path.join(tmp, name)


secret = os.urandom(32)
with open(path("fleet.key"), "wb") as f:
    f.write(secret)

# A range: the keys in id order, 32 bytes each, owner-only, no partial file left.
run("keys", "--fleet-secret", path("fleet.key"), "--devices", "4094-4101", "-o", path("k.bin"))
data = open(path("k.bin"), "rb").read()
check(len(data) == 8 * 32, f"8 keys of 32 bytes: {len(data)} bytes")
for i, device in enumerate(range(4094, 4102)):
    check(data[32 * i:32 * i + 32] == device_key(secret, device), f"device {device}'s key is the derivation's")
check(len(set(data[32 * i:32 * i + 32] for i in range(8))) == 8, "every device's key differs")
check(stat.S_IMODE(os.stat(path("k.bin")).st_mode) == 0o600, "the key file is the owner's only")
check(not os.path.exists(path("k.bin.partial")), "no partial file is left")

# One device, the largest id; a second run replaces the file whole.
run("keys", "--fleet-secret", path("fleet.key"), "--devices", str(2**32 - 1), "-o", path("k.bin"))
check(open(path("k.bin"), "rb").read() == device_key(secret, 2**32 - 1), "the last id's key, alone in the file")

# Another secret gives other keys.
other = os.urandom(32)
with open(path("other.key"), "wb") as f:
    f.write(other)
run("keys", "--fleet-secret", path("other.key"), "--devices", "7", "-o", path("o.bin"))
check(open(path("o.bin"), "rb").read() == device_key(other, 7) != device_key(secret, 7),
      "the key is the fleet's: another secret, another key")

# Refusals: exit 2 with a reason, no output file.
with open(path("zero.key"), "wb") as f:
    f.write(bytes(32))
with open(path("short.key"), "wb") as f:
    f.write(secret[:31])
for args, reason in [
    (["--fleet-secret", path("zero.key"), "--devices", "1"], "all-zero"),
    (["--fleet-secret", path("short.key"), "--devices", "1"], "32"),
    (["--fleet-secret", path("missing.key"), "--devices", "1"], "missing.key"),
    (["--fleet-secret", path("fleet.key"), "--devices", "9-5"], "--devices 9-5"),
    (["--fleet-secret", path("fleet.key"), "--devices", "x"], "--devices x"),
    (["--fleet-secret", path("fleet.key"), "--devices", "4294967296"], "below 2^32"),
    (["--fleet-secret", path("fleet.key"), "--devices", "0-16777216"], "at most 16777216"),
]:
    p = run("keys", *args, "-o", path("refused.bin"), expect=2)
    check(reason in p.stderr, f"keys {' '.join(args)}: says why ({reason!r}): {p.stderr.strip()}")
    check(not os.path.exists(path("refused.bin")) and not os.path.exists(path("refused.bin.partial")),
          f"keys {' '.join(args)}: writes no file")
p = run("keys", "--fleet-secret", path("fleet.key"), "--devices", "1", "-o", os.path.join(tmp, "no", "k.bin"), expect=2)
check("cannot create" in p.stderr, f"an unwritable output is refused: {p.stderr.strip()}")
p = run("keys", "--fleet-secret", path("fleet.key"), "-o", path("k.bin"), expect=1)
check("--devices" in p.stderr, "--devices is required")

finish()
