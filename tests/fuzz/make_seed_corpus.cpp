// SPDX-License-Identifier: Apache-2.0
// Writes the fuzzer's seed corpus: valid reports of every mechanism the fuzzer knows (records
// included: a record of value 1 in every attribute; with
// and without optional fields), a valid aggregate state, a pair of states to merge and a valid
// report-file header (version 2 for sd and dlaplace), each prefixed with the selector byte the
// fuzz target dispatches on.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "fuzz_mechanisms.hpp"

namespace tinyldp::collector {
namespace {

int write_seed_corpus(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  int count = 0;
  auto save = [&](std::uint8_t selector, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(dir + "/seed-" + std::to_string(count++), std::ios::binary);
    f.put(static_cast<char>(selector));
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  port::InsecureTestSource src(1);
  RandomBits<port::InsecureTestSource> rng(src);
  port::MemoKey key;  // the memoized mechanisms' device secret (a fixed one: a simulation)
  const std::uint8_t secret[32] = {7};
  key.set(secret, 0);
  for (const Mechanism& m : fuzz_mechanisms()) {
    Aggregator a(m);
    for (std::uint8_t fields : {std::uint8_t{0}, std::uint8_t{wire::known_fields}}) {
      wire::Header h;
      h.fields = fields;
      std::vector<std::uint8_t> r;
      // Category 1, or lo + 1 of a numeric range (in it: hi > lo); a record: value 1 of every
      // attribute.
      const std::vector<std::uint32_t> ones(m.config().attribute_sizes.size(), 1);
      const std::int64_t value = m.numeric() ? std::int64_t{m.config().lo} + 1 : 1;
      const Status s = m.record() ? m.privatize_record(ones, rng, key, h, r) : m.privatize(value, rng, key, h, r);
      if (s != Status::ok) {
        std::cerr << "make_seed_corpus: " << name_of(m.config().id) << " refused its seed report (status "
                  << static_cast<int>(s) << ")\n";
        return 1;
      }
      save(0, r);
      a.ingest(r);
    }
    const auto state = a.serialize();
    save(1, state);
    save(2, report_file_header(m));
    // Two states to merge (selector 3): the first one's length (u16), then both.
    std::vector<std::uint8_t> pair = {static_cast<std::uint8_t>(state.size()),
                                      static_cast<std::uint8_t>(state.size() >> 8)};
    pair.insert(pair.end(), state.begin(), state.end());
    pair.insert(pair.end(), state.begin(), state.end());
    save(3, pair);
    // The same pair with both report counts at 2^63 (each a valid state: every support ≤ it),
    // whose sum overflows: a merge that must be refused, exercised on every run.
    for (std::size_t end : {2 + state.size(), pair.size()}) {
      const std::size_t reports_at = end - 8 * std::size_t{m.domain()} - 8;
      for (std::size_t i = 0; i < 8; ++i) pair[reports_at + i] = i == 7 ? 0x80 : 0;
    }
    save(3, pair);
  }
  return 0;
}

}  // namespace
}  // namespace tinyldp::collector

int main(int argc, char** argv) { return tinyldp::collector::write_seed_corpus(argc, argv); }
