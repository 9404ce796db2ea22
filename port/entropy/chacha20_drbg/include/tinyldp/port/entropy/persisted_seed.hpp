// SPDX-License-Identifier: Apache-2.0
// tinyldp/port/entropy/persisted_seed.hpp — reboot safety for the ChaCha20 DRBG on devices that boot
// without (enough) fresh entropy: a seed kept in a storage Record is advanced and rewritten
// before the generator's first output after every boot.
//
// restore_seed(drbg, record): reads the 32-byte seed, mixes it into the generator (with an
// optional personalization string, e.g. the device id), draws the *next* seed from the
// generator and writes it back; only when that write is durable does it answer ok. A storage
// or generator failure wipes the generator (it answers `failed` until seeded again;
// not_provisioned leaves it as it was), so a boot whose rewrite did not land emits nothing,
// and the next boot — which may read the same old seed — cannot repeat any output that was
// ever used. Distinct seeds on successive boots give unrelated
// output streams (ChaCha20 as a PRF). Mixing adds to any seeding already done: with a TRNG,
// seed from it as well; the persisted seed then covers a TRNG that is weak early after boot.
// save_seed(drbg, record): persists a seed drawn from a (freshly) seeded generator — at
// provisioning, and after every reseed from a real source.
// An attacker who reads the stored seed can predict the next boot's outputs unless fresh
// entropy is mixed in; keep it in storage the application's threat model treats as secret.
// Cost: one flash record write per boot (one slot erase + 48 bytes programmed), one extra
// DRBG refill; code ~170 bytes on top of Record (Cortex-M0, -Os); stack 96 bytes on top of
// the deeper of Record::write and ChaCha20Drbg::fill.
#ifndef TINYLDP_PORT_PERSISTED_SEED_HPP
#define TINYLDP_PORT_PERSISTED_SEED_HPP

#include <stddef.h>
#include <stdint.h>

#include "tinyldp/port/entropy/chacha20_drbg.hpp"
#include "tinyldp/storage.hpp"

namespace tinyldp::port {

inline constexpr size_t persisted_seed_bytes = 32;

enum class SeedResult : uint8_t {
  ok = 0,
  not_provisioned,  // no valid seed stored: seed from a real source, then save_seed
  storage_failed,   // the record could not be read or rewritten (the generator is wiped)
  generator_failed  // the generator was not seeded or failed (it is wiped)
};

namespace persisted_seed_detail {
inline void zero(uint8_t* p, size_t n) {
  volatile uint8_t* v = p;
  for (size_t i = 0; i < n; ++i) v[i] = 0;
}
}  // namespace persisted_seed_detail

// Draws the next seed from `drbg` and makes it durable in `record`.
template <StorageDevice D>
SeedResult save_seed(ChaCha20Drbg& drbg, Record<D>& record) {
  uint8_t next[persisted_seed_bytes];
  if (!drbg.seeded() || drbg.fill(next, sizeof next, TINYLDP_ENTROPY_BLOCKING) != EntropyResult::ok) {
    drbg.wipe();
    return SeedResult::generator_failed;
  }
  const StorageResult r = record.write(next, sizeof next);
  persisted_seed_detail::zero(next, sizeof next);
  if (r != StorageResult::ok) {
    drbg.wipe();
    return SeedResult::storage_failed;
  }
  return SeedResult::ok;
}

// At boot, before the generator's first use: loads the seed, advances it, rewrites it.
template <StorageDevice D>
SeedResult restore_seed(ChaCha20Drbg& drbg, Record<D>& record,
                        const uint8_t* personalization = nullptr,
                        size_t personalization_length = 0) {
  uint8_t seed[persisted_seed_bytes];
  size_t length = 0;
  const StorageResult r = record.read(seed, sizeof seed, &length);
  if (r == StorageResult::not_found) return SeedResult::not_provisioned;
  if (r == StorageResult::too_large || (r == StorageResult::ok && length != sizeof seed)) {
    persisted_seed_detail::zero(seed, sizeof seed);
    return SeedResult::not_provisioned;  // the record holds something else
  }
  if (r != StorageResult::ok) {
    drbg.wipe();
    return SeedResult::storage_failed;
  }
  drbg.seed_from_bytes(seed, sizeof seed);
  persisted_seed_detail::zero(seed, sizeof seed);
  if (personalization != nullptr && personalization_length > 0)
    drbg.seed_from_bytes(personalization, personalization_length, false);
  return save_seed(drbg, record);
}

}  // namespace tinyldp::port

#endif
