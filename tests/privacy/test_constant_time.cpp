// SPDX-License-Identifier: Apache-2.0
// The ctgrind technique, on the private value and on the noise: the value handed to each
// mechanism and every random byte the mechanisms draw are marked *undefined* for valgrind's
// memcheck, so any branch or memory address that depends on either is reported as a use of an
// uninitialised value — a value-dependent branch, a sampler loop whose trip count follows the
// noise magnitude, a table index picked by the draw. The report is a function of value and
// noise, so an observer who could time the noise and read the report would learn the value:
// no mechanism may branch on either. Runs every mechanism on every value of small domains (and
// on out-of-domain values, which take the same path) under
//   valgrind --error-exitcode=99 test_constant_time
// and passes only if valgrind reports nothing. The checks of the check itself, which valgrind
// must report: --planted-leak runs a deliberately branchy function of the value,
// --planted-noise-leak a geometric sampler written the naive way (loop until a 0 bit).
// (Valgrind does not see variable-time instructions such as division; the k-RR step computes
// its index without one, see krr.hpp.)
#include <valgrind/memcheck.h>

#include <cstdio>
#include <cstring>

#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

namespace tinyldp::test {
namespace {

// The test source, with every byte it hands out marked undefined.
class SecretNoiseSource {
 public:
  explicit SecretNoiseSource(uint64_t seed) : inner_(seed) {}
  EntropyResult fill(uint8_t* out, size_t length, uint32_t flags) {
    const EntropyResult r = inner_.fill(out, length, flags);
    VALGRIND_MAKE_MEM_UNDEFINED(out, length);
    return r;
  }

 private:
  port::InsecureTestSource inner_;
};
using Rng = RandomBits<SecretNoiseSource>;

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

// Runs mechanism.privatize on a secret value with secret noise; returns the declassified
// status and leaves the declassified report in `report`.
template <class Mechanism, class Value, class Report>
Status privatize_secret(const Mechanism& mechanism, Value value, Rng& rng, Report& report) {
  Status s = mechanism.privatize(secret(value), rng, report);
  declassify(s);
  declassify(report);
  return s;
}

// A secret-dependent branch, as a careless mechanism might write it.
__attribute__((noinline)) uint32_t leaky_pick(uint32_t v) {
  volatile uint32_t sink = 0;
  if (v > 3) {
    sink = sink + 7;
    sink = sink * 3;
  }
  return sink;
}

// Geometric noise the naive way: the loop runs as long as the noise is large.
__attribute__((noinline)) uint32_t leaky_geometric(Rng& rng) {
  uint32_t z = 0;
  while (rng.draw(1) != 0 && z < 64) ++z;
  return z;
}

int run(int argc, char** argv) {
  SecretNoiseSource source(7);
  Rng rng(source);
  if (argc > 1 && std::strcmp(argv[1], "--planted-leak") == 0) {
    uint32_t r = leaky_pick(secret(uint32_t{5}));
    declassify(r);
    std::printf("planted leak ran (%u)\n", r);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--planted-noise-leak") == 0) {
    uint32_t z = leaky_geometric(rng);
    declassify(z);
    std::printf("planted noise leak ran (%u)\n", z);
    return 0;
  }

  constexpr auto rr = BinaryRr::make(Epsilon::from_double(1.0));
  for (uint32_t v = 0; v < 3; ++v) {
    uint8_t r = 0;
    const Status s = privatize_secret(rr, v, rng, r);
    expect(v < 2 ? s == Status::ok && r < 2 : s == Status::value_out_of_domain && r == 0, "rr");
  }

  const uint32_t domains[] = {2, 3, 37, 1000};
  for (uint32_t k : domains) {
    KaryRr krr;
    expect(KaryRr::configure(Epsilon::from_double(1.0), k, krr) == Status::ok, "krr configure");
    for (uint32_t v = 0; v < 40; ++v) {
      uint32_t r = 0;
      expect(privatize_secret(krr, v % k, rng, r) == Status::ok && r < k, "k-rr");
    }
    uint32_t r = 0;
    expect(privatize_secret(krr, k + 3, rng, r) == Status::value_out_of_domain && r == 0,
           "k-rr out of domain");
  }

  // Unary encoding: OUE and SUE, the word-by-word ladder (d = 70 and 100, every value of d = 70)
  // and, on 64-bit machines, the bulk one (d = 1024).
  const uint32_t ue_domains[] = {70, 100, 1024};
  for (uint32_t d : ue_domains) {
    for (int sue = 0; sue < 2; ++sue) {
      UnaryEncoding ue;
      expect((sue ? UnaryEncoding::configure_sue(Epsilon::from_double(1.0), d, ue)
                  : UnaryEncoding::configure_oue(Epsilon::from_double(1.0), d, ue)) == Status::ok,
             "ue configure");
      static uint8_t report[128];
      const uint32_t step = d < 100 ? 1 : d / 10;
      for (uint32_t v = 0; v <= d; v += step) {  // v = d: out of domain
        Status s = ue.privatize(secret(v), rng, report, sizeof report);
        declassify(s);
        VALGRIND_MAKE_MEM_DEFINED(report, sizeof report);
        expect(s == (v < d ? Status::ok : Status::value_out_of_domain), "unary encoding");
      }
    }
  }

  const Epsilon local_epsilons[] = {Epsilon::from_double(0.5), Epsilon::from_double(2.0), Epsilon::from_double(9.0)};
  for (Epsilon eps : local_epsilons) {
    for (int blh = 0; blh < 2; ++blh) {
      LocalHashing lh;
      expect((blh ? LocalHashing::configure_blh(eps, 50, lh) : LocalHashing::configure_olh(eps, 50, lh)) ==
                 Status::ok,
             "lh configure");
      for (uint32_t v = 0; v <= 50; ++v) {
        LocalHashingReport r;
        const Status s = privatize_secret(lh, v, rng, r);
        expect(v < 50 ? s == Status::ok && r.value < lh.range() : s == Status::value_out_of_domain,
               "local hashing");
      }
    }
  }

  constexpr auto hr = HadamardResponse::make(Epsilon::from_double(1.0), 50);
  for (uint32_t v = 0; v <= 50; ++v) {
    HadamardReport r;
    const Status s = privatize_secret(hr, v, rng, r);
    expect(v < 50 ? s == Status::ok && r.row < 64 && r.bit < 2 : s == Status::value_out_of_domain,
           "hadamard");
  }

  const uint32_t level_counts[] = {2, 7, 200};
  for (uint32_t levels : level_counts) {
    StochasticDiscretization sd;
    expect(StochasticDiscretization::configure(Epsilon::from_double(1.0), -50, 77, levels, sd) == Status::ok,
           "sd configure");
    for (int32_t v = -51; v <= 78; ++v) {  // -51 and 78: out of domain
      uint32_t r = 0;
      const Status s = privatize_secret(sd, v, rng, r);
      expect(v >= -50 && v <= 77 ? s == Status::ok && r < levels : s == Status::value_out_of_domain,
             "discretization");
    }
  }

  static uint64_t table[41];
  const uint32_t sensitivities[] = {1, 40};
  for (uint32_t delta : sensitivities) {
    DiscreteLaplace dl;
    expect(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -20, 20, delta, table, 41, dl) == Status::ok,
           "dlaplace configure");
    for (int32_t v = -21; v <= 21; ++v) {  // -21 and 21: out of domain
      int32_t r = 0;
      const Status s = privatize_secret(dl, v, rng, r);
      expect(v >= -20 && v <= 20 ? s == Status::ok && r >= -20 && r <= 20
                                 : s == Status::value_out_of_domain,
             "dlaplace");
    }
  }

  {  // Histogram encoding: SHE (every component's noise scan, the packing of y_i + T) and THE.
    static uint64_t she_table[SummationHistogram::table_entries(14)];
    SummationHistogram she;
    expect(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 12, she_table,
                                                  sizeof she_table / sizeof she_table[0], she) == Status::ok,
           "she configure");
    constexpr auto the = ThresholdHistogram::make(Epsilon::from_double(1.0), 12);
    for (uint32_t v = 0; v <= 12; ++v) {  // 12: out of the domain, the same path
      uint8_t report[8];
      Status s = she.privatize(secret(v), rng, report, sizeof report);
      declassify(s);
      declassify(report);
      expect(s == (v < 12 ? Status::ok : Status::value_out_of_domain), "she");
      s = the.privatize(secret(v), rng, report, sizeof report);
      declassify(s);
      declassify(report);
      expect(s == (v < 12 ? Status::ok : Status::value_out_of_domain), "the");
    }
  }

  {  // The longitudinal protocols with the real memo key: the value (L-GRR), its hash (LOLOHA)
     // or its grid index (1BitMean) becomes the ChaCha20 nonce of the memo stream, whose
     // keystream is then as secret as the value.
    port::MemoKey key;
    const uint8_t secret_key[32] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
                                    2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5};
    key.set(secret_key, 0);
    constexpr auto l_grr = LongitudinalGrr::make(Epsilon::from_double(2.0), Epsilon::from_double(1.0), 37);
    for (uint32_t v = 0; v <= 37; ++v) {  // 37: out of the domain, the same path
      uint32_t r;
      Status s = l_grr.privatize(secret(v), key, rng, r);
      declassify(s);
      declassify(r);
      expect(v < 37 ? s == Status::ok && r < 37 : s == Status::value_out_of_domain && r == 0, "l-grr");
    }
    constexpr auto loloha = Loloha::make_optimal(Epsilon::from_double(5.0), Epsilon::from_double(2.0), 50);
    for (uint32_t v = 0; v <= 50; ++v) {
      LocalHashingReport r;
      Status s = loloha.privatize(secret(v), key, rng, r);
      declassify(s);
      declassify(r);
      expect(v < 50 ? s == Status::ok && r.value < loloha.range() : s == Status::value_out_of_domain, "loloha");
    }
    constexpr auto mean = OneBitMean::make(Epsilon::from_double(2.0), Epsilon::from_double(1.0),
                                                    OneBitMean::Grid{100, 10});
    for (uint32_t v = 0; v <= 101; ++v) {  // 101: out of range
      uint8_t r;
      Status s = mean.privatize(secret(v), key, rng, r);
      declassify(s);
      declassify(r);
      expect(v <= 100 ? s == Status::ok && r < 2 : s == Status::value_out_of_domain && r == 0, "1bitmean");
    }
  }

  std::printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures == 0 ? 0 : 1);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tinyldp::test

int main(int argc, char** argv) { return tinyldp::test::run(argc, argv); }
