// Writes the fuzzer's seed corpus: valid reports of every mechanism the fuzzer knows (with
// and without optional fields), a valid aggregate state and a valid report-file header
// (version 2 for sd and dlaplace), each prefixed with the selector byte the fuzz target
// dispatches on.
#include <fstream>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "fuzz_mechanisms.hpp"

using namespace tinyldp;
using namespace tinyldp::collector;

int main(int argc, char** argv) {
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
  for (const Mechanism& m : fuzz_mechanisms()) {
    Aggregator a(m);
    for (std::uint8_t fields : {std::uint8_t{0}, std::uint8_t{wire::known_fields}}) {
      wire::Header h;
      h.fields = fields;
      std::vector<std::uint8_t> r;
      const Status s = m.numeric() ? m.privatize_number(m.config().lo + 1, rng, h, r)
                                   : m.privatize(1, rng, h, r);
      if (s != Status::ok) return 1;
      save(0, r);
      a.ingest(r);
    }
    save(1, a.serialize());
    save(2, report_file_header(m));
  }
  return 0;
}
