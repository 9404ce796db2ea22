// Writes the fuzzer's seed corpus: valid reports of every mechanism the fuzzer knows (with
// and without optional fields), a valid aggregate state and a valid report-file header
// (version 2 for sd and dlaplace), each prefixed with the selector byte the fuzz target
// dispatches on.
#include <fstream>
#include <string>
#include <vector>

#include "tinyldp/collector/aggregator.hpp"
#include "tinyldp/collector/report_file.hpp"
#include "tinyldp/port/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

using namespace tinyldp;
using namespace tinyldp::collector;

// A numeric mechanism's configuration: range, levels (sd) and sensitivity (dlaplace).
MechanismConfig numeric(MechanismConfig c, std::int32_t lo, std::int32_t hi, std::uint32_t levels,
                        std::uint32_t sensitivity) {
  c.lo = lo;
  c.hi = hi;
  c.levels = levels;
  c.sensitivity = sensitivity;
  return c;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  int count = 0;
  auto save = [&](std::uint8_t selector, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(dir + "/seed-" + std::to_string(count++), std::ios::binary);
    f.put(static_cast<char>(selector));
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  const MechanismConfig configs[] = {
      {MechanismId::rr, Epsilon::from_ratio(1, 1), 2, {}},
      {MechanismId::krr, Epsilon::from_ratio(2, 1), 13, {}},
      {MechanismId::oue, Epsilon::from_ratio(1, 1), 20, {}},
      {MechanismId::sue, Epsilon::from_ratio(1, 2), 100, {}},
        {MechanismId::olh, Epsilon::from_ratio(2, 1), 50, {}},
        {MechanismId::blh, Epsilon::from_ratio(1, 1), 50, {}},
        {MechanismId::hr, Epsilon::from_ratio(1, 1), 50, {}},
        numeric({MechanismId::sd, Epsilon::from_ratio(1, 1), 0, {}}, -100, 155, 5, 0),
        numeric({MechanismId::dlaplace, Epsilon::from_ratio(1, 1), 0, {}}, -8, 8, 0, 2),
  };
  port::InsecureTestSource src(1);
  RandomBits<port::InsecureTestSource> rng(src);
  for (const auto& c : configs) {
    Mechanism m;
    if (Mechanism::configure(c, m) != Status::ok) return 1;
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
