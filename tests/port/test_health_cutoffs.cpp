// SPDX-License-Identifier: Apache-2.0
// SP 800-90B health-test cutoffs, computed with integers only, reproduce the standard's values
// exactly — at compile time (static_assert) and again at run time on every target.
#include "tinyldp/port/entropy/health_cutoffs.hpp"

#include "check.hpp"

namespace tinyldp::test {
namespace {

static_assert(port::rct_cutoff(256, 20) == 21);
static_assert(port::rct_cutoff(256, 40) == 41);
static_assert(port::apt_cutoff(1024, 256, 20).cutoff == 589 && port::apt_cutoff(1024, 256, 20).exact);
static_assert(port::apt_cutoff(512, 2048, 20).cutoff == 13);

// Keeps the run-time checks from being folded at compile time.
uint32_t opaque(uint32_t v) {
  volatile uint32_t x = v;
  return x;
}

TEST(rct_cutoffs_match_the_standard) {
  CHECK_EQ(port::rct_cutoff(opaque(256), opaque(20)), 21u);
  CHECK_EQ(port::rct_cutoff(opaque(256), opaque(40)), 41u);
  CHECK_EQ(port::rct_cutoff(opaque(128), opaque(20)), 41u);   // H = 0.5
  CHECK_EQ(port::rct_cutoff(opaque(2048), opaque(20)), 4u);   // H = 8: 1 + ceil(20/8)
  CHECK_EQ(port::rct_cutoff(opaque(384), opaque(30)), 21u);   // H = 1.5: 1 + 20
}

TEST(apt_binary_window_1024) {
  const auto a = port::apt_cutoff(opaque(1024), opaque(256), opaque(20));
  const auto b = port::apt_cutoff(opaque(1024), opaque(256), opaque(40));
  CHECK_EQ(a.cutoff, 589u);
  CHECK(a.exact);
  CHECK_EQ(b.cutoff, 625u);
  CHECK(b.exact);
}

TEST(apt_window_512_over_h) {
  const uint32_t h_q8[] = {128, 256, 512, 1024, 2048};  // H = 0.5, 1, 2, 4, 8
  const uint32_t expected[] = {410, 311, 177, 62, 13};
  for (int i = 0; i < 5; ++i) {
    const auto c = port::apt_cutoff(opaque(512), opaque(h_q8[i]), opaque(20));
    CHECK_EQ(c.cutoff, expected[i]);
    CHECK(c.exact);
  }
}

TEST(more_points_checked_against_a_high_precision_reference) {
  // Values from an independent 80-digit (mpmath) binomial tail; 495 such points agreed when
  // this was written, these few stay as a regression check.
  // H = 1/16 in a window of 64: even 64 of 64 is not rare enough — cutoff W + 1, a test that
  // can never trip (HealthMonitor refuses such a configuration).
  CHECK_EQ(port::apt_cutoff(opaque(64), opaque(16), opaque(20)).cutoff, 65u);
  CHECK_EQ(port::apt_cutoff(opaque(1024), opaque(201), opaque(30)).cutoff, 689u);
  CHECK_EQ(port::apt_cutoff(opaque(512), opaque(423), opaque(40)).cutoff, 240u);
}

TEST(out_of_range_parameters_give_no_cutoff) {
  CHECK_EQ(port::rct_cutoff(opaque(0), opaque(20)), 0u);
  CHECK_EQ(port::rct_cutoff(opaque(2049), opaque(20)), 0u);
  CHECK_EQ(port::rct_cutoff(opaque(256), opaque(0)), 0u);
  CHECK_EQ(port::apt_cutoff(opaque(1), opaque(256), opaque(20)).cutoff, 0u);
  CHECK_EQ(port::apt_cutoff(opaque(512), opaque(0), opaque(20)).cutoff, 0u);
  CHECK_EQ(port::apt_cutoff(opaque(512), opaque(256), opaque(65)).cutoff, 0u);
}

}  // namespace
}  // namespace tinyldp::test
