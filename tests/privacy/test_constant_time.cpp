// The ctgrind technique: the private value is marked *undefined* for valgrind's memcheck, so
// any branch or memory address that depends on it is reported as a use of an uninitialised
// value. Runs each mechanism on every value of its domain under
//   valgrind --error-exitcode=99 test_constant_time
// and passes only if valgrind reports nothing. With --planted-leak it runs a deliberately
// branchy function instead, which valgrind must report (the test of the check itself).
#include <valgrind/memcheck.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"

using tinyldp::Epsilon;
using tinyldp::Status;
using tinyldp::port::InsecureTestSource;
using Rng = tinyldp::RandomBits<InsecureTestSource>;

namespace {

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

// A secret-dependent branch, as a careless mechanism might write it.
__attribute__((noinline)) uint32_t leaky_pick(uint32_t v) {
  volatile uint32_t sink = 0;
  if (v > 3) {
    sink = sink + 7;
    sink = sink * 3;
  }
  return sink;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--planted-leak") == 0) {
    uint32_t r = leaky_pick(secret(uint32_t{5}));
    declassify(r);
    std::printf("planted leak ran (%u)\n", r);
    return 0;
  }
  InsecureTestSource source(1);
  Rng rng(source);

  constexpr auto rr = tinyldp::BinaryRr::make(Epsilon::from_double(1.0));
  for (uint32_t v = 0; v < 2; ++v) {
    uint8_t report = 0;
    Status s = rr.privatize(secret(v), rng, report);
    declassify(s);
    declassify(report);
    expect(s == Status::ok && report < 2, "rr");
  }

  constexpr auto krr = tinyldp::KaryRr::make(Epsilon::from_double(1.0), 37);
  for (uint32_t v = 0; v < 37; ++v) {
    uint32_t report = 0;
    Status s = krr.privatize(secret(v), rng, report);
    declassify(s);
    declassify(report);
    expect(s == Status::ok && report < 37, "krr");
  }

  constexpr auto oue = tinyldp::UnaryEncoding::make_oue(Epsilon::from_double(1.0), 70);
  constexpr auto sue = tinyldp::UnaryEncoding::make_sue(Epsilon::from_double(1.0), 70);
  for (uint32_t v = 0; v < 70; ++v) {
    for (const auto* ue : {&oue, &sue}) {
      uint8_t report[9];
      Status s = ue->privatize(secret(v), rng, report, sizeof report);
      declassify(s);
      declassify(report);
      expect(s == Status::ok, "ue");
    }
  }
  constexpr auto olh = tinyldp::LocalHashing::make_olh(Epsilon::from_double(2.0), 50);
  constexpr auto hr = tinyldp::HadamardResponse::make(Epsilon::from_double(1.0), 50);
  for (uint32_t v = 0; v < 50; ++v) {
    tinyldp::LocalHashingReport lr;
    Status s = olh.privatize(secret(v), rng, lr);
    declassify(s);
    declassify(lr);
    expect(s == Status::ok && lr.value < olh.range(), "olh");
    tinyldp::HadamardReport hrep;
    s = hr.privatize(secret(v), rng, hrep);
    declassify(s);
    declassify(hrep);
    expect(s == Status::ok && hrep.row < 64, "hr");
  }
  constexpr auto sd = tinyldp::StochasticDiscretization::make(Epsilon::from_double(1.0), -50, 77, 7);
  for (int32_t v = -50; v <= 77; ++v) {
    uint32_t report = 0;
    Status s = sd.privatize(secret(v), rng, report);
    declassify(s);
    declassify(report);
    expect(s == Status::ok && report < 7, "sd");
  }
  {
    static uint64_t table[41];
    tinyldp::DiscreteLaplace dl;
    expect(tinyldp::DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -20, 20, 40, table, 41, dl) ==
               Status::ok,
           "dlaplace configure");
    for (int32_t v = -20; v <= 20; ++v) {
      int32_t report = 0;
      Status s = dl.privatize(secret(v), rng, report);
      declassify(s);
      declassify(report);
      expect(s == Status::ok && report >= -20 && report <= 20, "dlaplace");
    }
  }
  {
    static uint64_t table[tinyldp::SummationHistogram::table_entries(14)];
    tinyldp::SummationHistogram she;
    expect(tinyldp::SummationHistogram::configure(Epsilon::from_ratio(1, 1), 12, table,
                                                  sizeof table / sizeof table[0], she) == Status::ok,
           "she configure");
    constexpr auto the = tinyldp::ThresholdHistogram::make(Epsilon::from_double(1.0), 12);
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
  // Out-of-domain values take the same path: nothing about them leaks either.
  {
    uint32_t report = 0;
    Status s = krr.privatize(secret(uint32_t{40}), rng, report);
    declassify(s);
    expect(s == Status::value_out_of_domain, "krr out of domain");
  }
  std::printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures == 0 ? 0 : 1);
  return failures == 0 ? 0 : 1;
}
