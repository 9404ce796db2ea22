// The ctgrind technique turned on the noise: every random byte the mechanisms draw is marked
// *undefined* for valgrind's memcheck, so a branch or memory address that depends on the noise
// — a sampler loop whose trip count follows the noise magnitude, a table index picked by the
// draw — is reported. The report is a function of value and noise, so an observer who could
// time the noise and read the report would learn the value: local hashing, Hadamard response,
// stochastic discretization and the discrete Laplace scan must not branch on it, nor may k-RR or unary encoding.
//   valgrind --error-exitcode=99 test_constant_time_noise
// passes only if valgrind reports nothing. The value is marked undefined too (as in
// test_constant_time), which also covers the paths that test leaves out (BLH, two levels). --planted-leak runs a geometric sampler written the
// naive way (loop until a 0 bit), which valgrind must report: the test of the check itself.
// (Valgrind does not see variable-time instructions such as division; the k-RR step computes
// its index without one, see krr.hpp.)
#include <valgrind/memcheck.h>

#include <cstdio>
#include <cstring>

#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

using tinyldp::Epsilon;
using tinyldp::Status;

namespace {

// The test source, with every byte it hands out marked undefined.
class SecretNoiseSource {
 public:
  explicit SecretNoiseSource(uint64_t seed) : inner_(seed) {}
  tinyldp::EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    const tinyldp::EntropyResult r = inner_.fill(out, length, flags);
    VALGRIND_MAKE_MEM_UNDEFINED(out, length);
    return r;
  }

 private:
  tinyldp::port::InsecureTestSource inner_;
};
using Rng = tinyldp::RandomBits<SecretNoiseSource>;

template <class T>
T secret(T value) {
  VALGRIND_MAKE_MEM_UNDEFINED(&value, sizeof value);
  return value;
}
template <class T>
void declassify(T& value) {
  VALGRIND_MAKE_MEM_DEFINED(&value, sizeof value);
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL %s\n", what);
    ++failures;
  }
}

// Geometric noise the naive way: the loop runs as long as the noise is large.
__attribute__((noinline)) uint32_t leaky_geometric(Rng& rng) {
  uint32_t z = 0;
  while (rng.draw(1) != 0 && z < 64) ++z;
  return z;
}

}  // namespace

int main(int argc, char** argv) {
  SecretNoiseSource source(7);
  Rng rng(source);
  if (argc > 1 && std::strcmp(argv[1], "--planted-leak") == 0) {
    uint32_t z = leaky_geometric(rng);
    declassify(z);
    std::printf("planted leak ran (%u)\n", z);
    return 0;
  }

  const Epsilon local_epsilons[] = {Epsilon::from_double(0.5), Epsilon::from_double(2.0), Epsilon::from_double(9.0)};
  for (Epsilon eps : local_epsilons) {
    for (int blh = 0; blh < 2; ++blh) {
      tinyldp::LocalHashing lh;
      expect((blh ? tinyldp::LocalHashing::configure_blh(eps, 50, lh) : tinyldp::LocalHashing::configure_olh(eps, 50, lh)) ==
                 Status::ok,
             "lh configure");
      for (uint32_t v = 0; v < 50; ++v) {
        tinyldp::LocalHashingReport r;
        Status s = lh.privatize(secret(v), rng, r);
        declassify(s);
        declassify(r);
        expect(s == Status::ok && r.value < lh.range(), "local hashing");
      }
    }
  }

  // Unary encoding: the word-by-word ladder (d = 100) and, on 64-bit machines, the bulk one.
  const uint32_t ue_domains[] = {100, 1024};
  for (uint32_t d : ue_domains) {
    tinyldp::UnaryEncoding ue;
    expect(tinyldp::UnaryEncoding::configure_oue(Epsilon::from_double(1.0), d, ue) == Status::ok, "ue configure");
    static uint8_t report[128];
    for (uint32_t v = 0; v < d; v += d / 10) {
      Status s = ue.privatize(secret(v), rng, report, sizeof report);
      declassify(s);
      VALGRIND_MAKE_MEM_DEFINED(report, sizeof report);
      expect(s == Status::ok, "unary encoding");
    }
  }

  const uint32_t domains[] = {2, 3, 37, 1000};
  for (uint32_t k : domains) {
    tinyldp::KaryRr krr;
    expect(tinyldp::KaryRr::configure(Epsilon::from_double(1.0), k, krr) == Status::ok, "krr configure");
    for (uint32_t v = 0; v < 40; ++v) {
      uint32_t r = 0;
      Status s = krr.privatize(secret(v % k), rng, r);
      declassify(s);
      declassify(r);
      expect(s == Status::ok && r < k, "k-rr");
    }
  }

  constexpr auto hr = tinyldp::HadamardResponse::make(Epsilon::from_double(1.0), 50);
  for (uint32_t v = 0; v < 50; ++v) {
    tinyldp::HadamardReport r;
    Status s = hr.privatize(secret(v), rng, r);
    declassify(s);
    declassify(r);
    expect(s == Status::ok && r.row < 64 && r.bit < 2, "hadamard");
  }

  const uint32_t level_counts[] = {2, 7, 200};
  for (uint32_t levels : level_counts) {
    tinyldp::StochasticDiscretization sd;
    expect(tinyldp::StochasticDiscretization::configure(Epsilon::from_double(1.0), -50, 77, levels, sd) == Status::ok,
           "sd configure");
    for (int32_t v = -50; v <= 77; v += 3) {
      uint32_t r = 0;
      Status s = sd.privatize(secret(v), rng, r);
      declassify(s);
      declassify(r);
      expect(s == Status::ok && r < levels, "discretization");
    }
  }

  static uint64_t table[41];
  const uint32_t sensitivities[] = {1, 40};
  for (uint32_t delta : sensitivities) {
    tinyldp::DiscreteLaplace dl;
    expect(tinyldp::DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -20, 20, delta, table, 41, dl) == Status::ok,
           "dlaplace configure");
    for (int32_t v = -20; v <= 20; ++v) {
      int32_t r = 0;
      Status s = dl.privatize(secret(v), rng, r);
      declassify(s);
      declassify(r);
      expect(s == Status::ok && r >= -20 && r <= 20, "dlaplace");
    }
  }

  {  // SHE: every component's noise scan and the packing of y_i + T.
    static uint64_t she_table[tinyldp::SummationHistogram::table_entries(14)];
    tinyldp::SummationHistogram she;
    expect(tinyldp::SummationHistogram::configure(Epsilon::from_ratio(1, 1), 12, she_table,
                                                  sizeof she_table / sizeof she_table[0], she) == Status::ok,
           "she configure");
    for (uint32_t v = 0; v < 12; ++v) {
      uint8_t report[8];
      Status s = she.privatize(secret(v), rng, report, sizeof report);
      declassify(s);
      declassify(report);
      expect(s == Status::ok, "she");
    }
  }

  std::printf("%s\n", failures == 0 ? "constant time in the noise: ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
