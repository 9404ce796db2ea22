// SPDX-License-Identifier: Apache-2.0
// The wire encoder: layout, errors, and golden vectors (hex, committed) that the host and every
// target must reproduce byte for byte. docs/wire-format.md decodes the first one by hand.
#include "tinyldp/serial_frame.hpp"
#include "tinyldp/wire.hpp"

#include "check.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/haar_hrr.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/hierarchical_histogram.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/hybrid.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/piecewise.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/square_wave.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource>;

bool same(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) {
      test::print("    byte ");
      test::print_u64(i);
      test::print(": got ");
      test::print_u64(a[i]);
      test::print(", golden ");
      test::print_u64(b[i]);
      test::print("\n");
      return false;
    }
  return true;
}
void dump(const uint8_t* p, size_t n) {
  test::print("    bytes:");
  for (size_t i = 0; i < n; ++i) {
    const char hex[4] = {' ', "0123456789abcdef"[p[i] >> 4], "0123456789abcdef"[p[i] & 15], 0};
    test::print(hex);
  }
  test::print("\n");
}

TEST(header_layout_and_errors) {
  constexpr auto rr = BinaryRr::make(Epsilon::from_double(1.0));
  constexpr wire::Description d = rr.description();
  static_assert(d.payload_bits == 1 && d.report_bytes(0) == 8);
  static_assert(d.report_bytes(wire::known_fields) == 22);
  uint8_t out[22];
  size_t written = 99;
  const uint8_t payload[1] = {0xFF};  // padding bits are cleared by the encoder
  CHECK(wire::encode(d, {}, payload, out, 7, written) == Status::buffer_too_small);
  CHECK_EQ(written, 0u);
  wire::Header bad;
  bad.fields = 0x80;
  CHECK(wire::encode(d, bad, payload, out, sizeof out, written) == Status::bad_parameter);
  CHECK(wire::encode(d, {}, payload, out, sizeof out, written) == Status::ok);
  CHECK_EQ(written, 8u);
  CHECK_EQ(out[0], 1);
  CHECK_EQ(out[1], 1);
  CHECK_EQ(out[6], 0);
  CHECK_EQ(out[7], 1);
}

TEST(digests_tell_parameters_apart) {
  constexpr auto a = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 16);
  constexpr auto b = UnaryEncoding::make_oue(Epsilon::from_double(1.5), 16);
  constexpr auto c = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 17);
  static_assert(a.description().digest != b.description().digest);
  static_assert(a.description().digest != c.description().digest);
  // The same probabilities configured as custom UE: another id, another digest.
  UnaryEncoding custom;
  CHECK(UnaryEncoding::configure(a.p(), a.q(), 16, custom) == Status::ok);
  CHECK(custom.description().id == wire::MechanismId::ue);
  CHECK(custom.description().digest != a.description().digest);
}

TEST(wire_ids_are_stored_as_configured) {
  static_assert(UnaryEncoding::make_oue(Epsilon::from_double(1.0), 8).description().id == wire::MechanismId::oue);
  static_assert(UnaryEncoding::make_sue(Epsilon::from_double(1.0), 8).description().id == wire::MechanismId::sue);
  static_assert(LocalHashing::make_blh(Epsilon::from_double(1.0), 8).description().id == wire::MechanismId::blh);
  // OLH at ε < ln 1.5 has g = 2, like BLH, and still goes on the wire as olh.
  constexpr auto small_olh = LocalHashing::make_olh(Epsilon::from_double(0.3), 8);
  static_assert(small_olh.range() == 2);
  static_assert(small_olh.description().id == wire::MechanismId::olh);
  static_assert(small_olh.description().digest !=
                LocalHashing::make_blh(Epsilon::from_double(0.3), 8).description().digest);
  CHECK(true);
}

// Every payload codec: unpack(pack(r)) == r at the extremes of each field, and pack writes
// exactly payload_bytes() bytes with the unused high bits zero.
TEST(payload_codecs_round_trip) {
  constexpr auto rr = BinaryRr::make(Epsilon::from_double(1.0));
  constexpr auto krr = KaryRr::make(Epsilon::from_double(1.0), 13);
  constexpr auto olh = LocalHashing::make_olh(Epsilon::from_double(3.0), 1000);
  constexpr auto hr = HadamardResponse::make(Epsilon::from_double(1.0), 100);
  constexpr auto sd = StochasticDiscretization::make(Epsilon::from_double(1.0), -7, 9, 5);
  static uint64_t weights[DiscreteLaplace::table_entries(-5, 20)];
  DiscreteLaplace dl;
  CHECK(DiscreteLaplace::configure(Epsilon::from_ratio(1, 1), -5, 20, 1, weights,
                                   sizeof weights / sizeof weights[0], dl) == Status::ok);
  uint8_t payload[9];
  auto padding_clear = [&](const wire::Description& d) {
    const unsigned spare = static_cast<unsigned>(d.payload_bytes() * 8 - d.payload_bits);
    return spare == 0 || (payload[d.payload_bytes() - 1] >> (8 - spare)) == 0;
  };
  for (uint8_t bit = 0; bit < 2; ++bit) {
    rr.pack(bit, payload);
    CHECK_EQ(BinaryRr::unpack(payload), bit);
  }
  const uint32_t krr_values[] = {0, 1, 12};
  for (uint32_t v : krr_values) {
    krr.pack(v, payload);
    CHECK_EQ(krr.unpack(payload), v);
    CHECK(padding_clear(krr.description()));
  }
  const uint32_t seeds[] = {0, 1, 0xFFFFFFFF};
  const uint32_t hashed[] = {0, olh.range() - 1};
  for (uint32_t seed : seeds)
    for (uint32_t y : hashed) {
      olh.pack({seed, y}, payload);
      CHECK_EQ(olh.unpack(payload).seed, seed);
      CHECK_EQ(olh.unpack(payload).value, y);
      CHECK(padding_clear(olh.description()));
    }
  const uint32_t rows[] = {0, (1u << hr.row_bits()) - 1};
  for (uint32_t row : rows)
    for (uint8_t bit = 0; bit < 2; ++bit) {
      hr.pack({row, bit}, payload);
      CHECK_EQ(hr.unpack(payload).row, row);
      CHECK_EQ(hr.unpack(payload).bit, bit);
      CHECK(padding_clear(hr.description()));
    }
  const uint32_t levels[] = {0, 4};
  for (uint32_t level : levels) {
    sd.pack(level, payload);
    CHECK_EQ(sd.unpack(payload), level);
  }
  const int32_t values[] = {-5, 0, 20};
  for (int32_t y : values) {
    dl.pack(y, payload);
    CHECK_EQ(dl.unpack(payload), y);
    CHECK(padding_clear(dl.description()));
  }
  constexpr auto pm = PiecewiseMechanism::make(Epsilon::from_double(1.0), -7, 9);  // 2048 cells: 11 bits
  const uint32_t cells[] = {0, 1, 1024, 2047};
  for (uint32_t cell : cells) {
    pm.pack(cell, payload);
    CHECK_EQ(pm.unpack(payload), cell);
    CHECK(padding_clear(pm.description()));
  }
  constexpr auto hm = HybridMechanism::make(Epsilon::from_double(1.0), -7, 9);  // 2050 outputs: 12 bits
  const uint32_t outputs[] = {0, 2047, 2048, 2049};
  for (uint32_t y : outputs) {
    hm.pack(y, payload);
    CHECK_EQ(hm.unpack(payload), y);
    CHECK(padding_clear(hm.description()));
  }
}

// Count reports from the test source seeded 7, the i-th's payload from report(i, rng, payload,
// size), each encoded under `d` with no optional field and compared byte for byte with its golden
// vector (N bytes each).
template <size_t Count, size_t N, class Report>
void expect_golden_frames(const wire::Description& d, const uint8_t (&golden)[Count][N], Report report) {
  port::InsecureTestSource src(7);
  Rng rng(src);
  for (size_t i = 0; i < Count; ++i) {
    uint8_t payload[8];
    CHECK(report(i, rng, payload, sizeof payload) == Status::ok);
    uint8_t out[N];
    size_t written = 0;
    CHECK(wire::encode(d, {}, payload, out, sizeof out, written) == Status::ok);
    CHECK_EQ(written, sizeof out);
    const bool matches = same(out, golden[i], sizeof out);
    CHECK(matches);
    if (!matches) dump(out, written);
  }
}
template <class M, size_t Count, size_t N>
void expect_golden_numeric_reports(const M& mechanism, const int32_t (&values)[Count],
                                   const uint8_t (&golden)[Count][N]) {
  expect_golden_frames(mechanism.description(), golden, [&](size_t i, Rng& rng, uint8_t* payload, size_t size) {
    return mechanism.privatize(values[i], rng, payload, size);
  });
}
// The same for a mechanism of levels (hh, haar-hrr): `value` at each of `levels`.
template <class M, size_t Count, size_t N>
void expect_golden_level_reports(const M& mechanism, int32_t value, const uint32_t (&levels)[Count],
                                 const uint8_t (&golden)[Count][N]) {
  expect_golden_frames(mechanism.description(), golden, [&](size_t i, Rng& rng, uint8_t* payload, size_t size) {
    return mechanism.privatize_at_level(value, levels[i], rng, payload, size);
  });
}

// The Piecewise Mechanism, ε = 2 over [−40, 85] on 2048 cells, no optional fields: the values
// −40, 0 and 85; seed 7.
const uint8_t golden_pm[3][9] = {{0x01, 0x1f, 0xae, 0x3b, 0x5c, 0xde, 0x00, 0x73, 0x04},   // cell 1139
                                 {0x01, 0x1f, 0xae, 0x3b, 0x5c, 0xde, 0x00, 0xde, 0x03},   // cell 990
                                 {0x01, 0x1f, 0xae, 0x3b, 0x5c, 0xde, 0x00, 0xf1, 0x05}};  // cell 1521

TEST(golden_pm_reports) {
  constexpr auto mechanism = PiecewiseMechanism::make(Epsilon::from_double(2.0), -40, 85);
  static_assert(mechanism.description().payload_bits == 11);
  const int32_t values[] = {-40, 0, 85};
  expect_golden_numeric_reports(mechanism, values, golden_pm);
}

// The Hybrid Mechanism, ε = 2 over [−40, 85] on 2048 cells, no optional fields: the values
// −40, 0 and 85 twice each; seed 7.
const uint8_t golden_hm[6][9] = {{0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0x00, 0x08},   // 2048: Duchi's lo
                                 {0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0x4c, 0x03},   // cell 844
                                 {0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0xa2, 0x06},   // cell 1698
                                 {0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0x00, 0x08},   // 2048: Duchi's lo
                                 {0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0xe7, 0x03},   // cell 999
                                 {0x01, 0x20, 0x6c, 0xac, 0xa6, 0xf7, 0x00, 0x50, 0x07}};  // cell 1872

TEST(golden_hm_reports) {
  constexpr auto mechanism = HybridMechanism::make(Epsilon::from_double(2.0), -40, 85);
  static_assert(mechanism.description().payload_bits == 12);
  const int32_t values[] = {-40, 0, 85, -40, 0, 85};
  expect_golden_numeric_reports(mechanism, values, golden_hm);
}

// Square Wave, ε = 1 over [−40, 85] in 126 buckets (B = 32: 190 cells), no optional fields: the
// values −40, 0 and 85; seed 7.
const uint8_t golden_sw[3][8] = {{0x01, 0x21, 0x50, 0x14, 0x1a, 0x3a, 0x00, 0x7b},   // cell 123
                                 {0x01, 0x21, 0x50, 0x14, 0x1a, 0x3a, 0x00, 0x45},   // cell 69
                                 {0x01, 0x21, 0x50, 0x14, 0x1a, 0x3a, 0x00, 0x31}};  // cell 49

TEST(golden_sw_reports) {
  constexpr auto mechanism = SquareWave::make(Epsilon::from_double(1.0), -40, 85, 126);
  static_assert(mechanism.description().payload_bits == 8 && mechanism.half_width() == 32);
  const int32_t values[] = {-40, 0, 85};
  expect_golden_numeric_reports(mechanism, values, golden_sw);
}

// A hierarchical histogram, ε = 2 over [−40, 85] in a 4-ary tree (levels of 2, 8 and 32 nodes
// through OUE, the 126 leaves through OLH: 8 + 35 payload bits), no optional fields: the value
// 0 at each level, 1 … 4; seed 7.
const uint8_t golden_hh[4][13] = {
    {0x01, 0x22, 0xbc, 0xb7, 0xff, 0x32, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00},   // level 1: node 0's bit
    {0x01, 0x22, 0xbc, 0xb7, 0xff, 0x32, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00},   // level 2: no bit
    {0x01, 0x22, 0xbc, 0xb7, 0xff, 0x32, 0x00, 0x03, 0x02, 0x0c, 0x20, 0x00, 0x00},   // level 3: bits 1, 10, 11, 29
    {0x01, 0x22, 0xbc, 0xb7, 0xff, 0x32, 0x00, 0x04, 0x59, 0xc2, 0x80, 0x08, 0x07}};  // level 4: seed 0x0880c259, 7

TEST(golden_hh_reports) {
  constexpr auto hh = HierarchicalHistogram::make(Epsilon::from_double(2.0), -40, 85);
  static_assert(hh.description().payload_bits == 43 && hh.levels() == 4 && hh.hashed(4) && !hh.hashed(3));
  const uint32_t levels[] = {1, 2, 3, 4};
  expect_golden_level_reports(hh, 0, levels, golden_hh);
}

// HaarHRR, ε = 2 over [−40, 85] (126 values in a tree of 128 leaves, 7 levels: 8 + 7 payload
// bits), no optional fields: the value 37 (offset 77 = 1001101b) at levels 1, 3, 5 and 7, each a
// row of ℓ − 1 bits and the RR's bit (sign XOR parity(row AND node)); seed 7.
const uint8_t golden_haar_hrr[4][9] = {
    {0x01, 0x23, 0x67, 0xcc, 0x44, 0xe5, 0x00, 0x01, 0x00},   // level 1: row 0, bit 0 (sign 1, flipped)
    {0x01, 0x23, 0x67, 0xcc, 0x44, 0xe5, 0x00, 0x03, 0x41},   // level 3: row 1, bit 1 (node 2: 0, flipped)
    {0x01, 0x23, 0x67, 0xcc, 0x44, 0xe5, 0x00, 0x05, 0x08},   // level 5: row 8, bit 0 (node 9: 1 XOR 1, kept)
    {0x01, 0x23, 0x67, 0xcc, 0x44, 0xe5, 0x00, 0x07, 0x05}};  // level 7: row 5, bit 0 (node 38: 1 XOR 1, kept)

TEST(golden_haar_hrr_reports) {
  constexpr auto haar = HaarHrr::make(Epsilon::from_double(2.0), -40, 85);
  static_assert(haar.description().payload_bits == 15 && haar.levels() == 7);
  const uint32_t levels[] = {1, 3, 5, 7};
  expect_golden_level_reports(haar, 37, levels, golden_haar_hrr);
}

// OUE, ε = 1, d = 20, every optional field; seed 7.
const uint8_t golden_oue[] = {0x01, 0x04, 0xc9, 0x66, 0x9c, 0x37, 0x07, 0xef, 0xbe, 0xad,
                              0xde, 0x2a, 0x00, 0x00, 0x00, 0x03, 0x00, 0x23, 0xa2, 0x00};
// k-RR, ε = 2, k = 13, no optional fields: five reports of the values 0..4; seed 7.
const uint8_t golden_krr[5][8] = {{0x01, 0x02, 0x41, 0x1e, 0x77, 0x4c, 0x00, 0x0a},
                                   {0x01, 0x02, 0x41, 0x1e, 0x77, 0x4c, 0x00, 0x02},
                                   {0x01, 0x02, 0x41, 0x1e, 0x77, 0x4c, 0x00, 0x02},
                                   {0x01, 0x02, 0x41, 0x1e, 0x77, 0x4c, 0x00, 0x00},
                                   {0x01, 0x02, 0x41, 0x1e, 0x77, 0x4c, 0x00, 0x04}};

// The golden OUE report's context (ε = 1, d = 20) and header (device id, epoch and cohort).
constexpr auto oue = UnaryEncoding::make_oue(Epsilon::from_double(1.0), 20);
wire::Header golden_header() {
  wire::Header h;
  h.fields = wire::field_device_id | wire::field_epoch | wire::field_cohort;
  h.device_id = 0xDEADBEEF;
  h.epoch = 42;
  h.cohort = 3;
  return h;
}

TEST(golden_oue_report) {
  port::InsecureTestSource src(7);
  Rng rng(src);
  uint8_t payload[3];
  CHECK(oue.privatize(5, rng, payload, sizeof payload) == Status::ok);
  const wire::Header h = golden_header();
  uint8_t out[20];
  size_t written = 0;
  CHECK(wire::encode(oue.description(), h, payload, out, sizeof out, written) == Status::ok);
  CHECK_EQ(written, sizeof golden_oue);
  const bool matches = same(out, golden_oue, sizeof golden_oue);
  CHECK(matches);
  if (!matches) dump(out, written);
}

TEST(a_payload_privatized_in_place_gives_the_golden_report) {
  port::InsecureTestSource src(7);
  Rng rng(src);
  const wire::Header h = golden_header();
  uint8_t frame[20];
  uint8_t* payload = frame + wire::Description::header_bytes(h.fields);
  CHECK(oue.privatize(5, rng, payload, 3) == Status::ok);
  size_t written = 0;
  CHECK(wire::encode(oue.description(), h, payload, frame, sizeof frame, written) == Status::ok);
  CHECK_EQ(written, sizeof golden_oue);
  CHECK(same(frame, golden_oue, sizeof golden_oue));
}

TEST(golden_krr_reports) {
  constexpr auto krr = KaryRr::make(Epsilon::from_double(2.0), 13);
  constexpr wire::Description d = krr.description();
  static_assert(d.payload_bits == 4);
  port::InsecureTestSource src(7);
  Rng rng(src);
  for (uint32_t v = 0; v < 5; ++v) {
    uint32_t y = 0;
    CHECK(krr.privatize(v, rng, y) == Status::ok);
    uint8_t payload[1];
    krr.pack(y, payload);
    uint8_t out[8];
    size_t written = 0;
    CHECK(wire::encode(d, {}, payload, out, sizeof out, written) == Status::ok);
    const bool matches = same(out, golden_krr[v], sizeof out);
    CHECK(matches);
    if (!matches) dump(out, written);
  }
}

// Histogram encoding: SHE (ε = 1, d = 4: four 5-bit components y_i + T, T = 14, 20 bits) and THE
// (ε = 1, d = 20: a UE report under id the), value 2, seed 11, no optional fields. The SHE
// payload's components are read back with the codec, and the padding bits stay zero.
const uint8_t golden_she[] = {0x01, 0x0b, 0x41, 0x0a, 0xd2, 0xef, 0x00, 0xae, 0xad, 0x06};
const uint8_t golden_the[] = {0x01, 0x0c, 0xe0, 0xa7, 0x22, 0x84, 0x00, 0xe4, 0xd8, 0x01};

TEST(golden_histogram_encoding_reports) {
  static uint64_t weights[SummationHistogram::table_entries(14)];
  SummationHistogram she;
  CHECK(SummationHistogram::configure(Epsilon::from_ratio(1, 1), 4, weights, sizeof weights / sizeof weights[0],
                                      she) == Status::ok);
  CHECK_EQ(she.description().payload_bits, 20u);
  CHECK(she.description().id == wire::MechanismId::she);
  constexpr auto the = ThresholdHistogram::make(Epsilon::from_double(1.0), 20);
  static_assert(the.description().id == wire::MechanismId::the);
  static_assert(the.description().payload_bits == 20);
  // The same probabilities under another id (ue) have another digest.
  static_assert(the.description().digest != the.unary().description().digest);
  port::InsecureTestSource src(11);
  Rng rng(src);
  uint8_t payload[3];
  CHECK(she.privatize(2, rng, payload, sizeof payload) == Status::ok);
  CHECK_EQ(payload[2] >> 4, 0);
  uint32_t shifted = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    CHECK_LE(she.shifted_component(payload, i), 29u);
    CHECK_EQ(she.component(payload, i), static_cast<int32_t>(she.shifted_component(payload, i)) - 14);
    shifted |= she.shifted_component(payload, i) << (5 * i);
  }
  CHECK_EQ(shifted, static_cast<uint32_t>(payload[0]) | static_cast<uint32_t>(payload[1]) << 8 |
                        static_cast<uint32_t>(payload[2]) << 16);
  uint8_t out[10];
  size_t written = 0;
  CHECK(wire::encode(she.description(), {}, payload, out, sizeof out, written) == Status::ok);
  CHECK_EQ(written, sizeof golden_she);
  bool matches = written == sizeof golden_she && same(out, golden_she, sizeof golden_she);
  CHECK(matches);
  if (!matches) dump(out, written);
  CHECK(the.privatize(2, rng, payload, sizeof payload) == Status::ok);
  CHECK(wire::encode(the.description(), {}, payload, out, sizeof out, written) == Status::ok);
  CHECK_EQ(written, sizeof golden_the);
  matches = written == sizeof golden_the && same(out, golden_the, sizeof golden_the);
  CHECK(matches);
  if (!matches) dump(out, written);
}

TEST(memo_generation_field_follows_the_cohort) {
  constexpr auto rr = BinaryRr::make(Epsilon::from_double(1.0));
  wire::Header h;
  h.fields = wire::field_cohort | wire::field_memo_generation;
  h.cohort = 0x0102;
  h.memo_generation = 0xA1B2C3D4u;
  const uint8_t payload[1] = {1};
  uint8_t out[14];
  size_t written = 0;
  CHECK(wire::encode(rr.description(), h, payload, out, sizeof out, written) == Status::ok);
  CHECK_EQ(written, 14u);
  const uint8_t expected[7] = {0x02, 0x01, 0xD4, 0xC3, 0xB2, 0xA1, 0x01};  // cohort, generation, payload
  for (int i = 0; i < 7; ++i) CHECK_EQ(out[7 + i], expected[i]);
}

TEST(serial_frames_carry_length_and_crc) {
  const uint8_t report[5] = {1, 2, 3, 4, 5};
  uint8_t frame[13];
  size_t written = 0;
  CHECK(serial::encode(report, 5, frame, 12, written) == Status::buffer_too_small);
  CHECK_EQ(written, 0u);
  CHECK(serial::encode(report, 0, frame, sizeof frame, written) == Status::bad_parameter);
  CHECK(serial::encode(report, 5, frame, sizeof frame, written) == Status::ok);
  CHECK_EQ(written, 13u);
  // sync, length 5, the report, CRC-32 of 05 00 01 02 03 04 05 (zlib.crc32: 0x4E7D9E30).
  const uint8_t expected[13] = {0xA5, 0x5A, 0x05, 0x00, 1, 2, 3, 4, 5, 0x30, 0x9E, 0x7D, 0x4E};
  for (int i = 0; i < 13; ++i) CHECK_EQ(frame[i], expected[i]);
  // In place: the report already at frame + 4.
  uint8_t in_place[13] = {0, 0, 0, 0, 1, 2, 3, 4, 5};
  CHECK(serial::encode(in_place + 4, 5, in_place, sizeof in_place, written) == Status::ok);
  for (int i = 0; i < 13; ++i) CHECK_EQ(in_place[i], expected[i]);
}

}  // namespace
}  // namespace tinyldp::test
