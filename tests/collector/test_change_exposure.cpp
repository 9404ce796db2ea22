// SPDX-License-Identifier: Apache-2.0
// The change exposure `tinyldp plan --compare` prints (collector/change_exposure.hpp) against the
// memos real devices hold: 16 000 devices, each its own ChaCha20 memo key, value x then x'; the
// share whose memo changed (what a collector with enough rounds sees) is within 5σ of the
// figure, for the UE chains, L-GRR and LOLOHA. The memos are the devices' own: the core's memo
// stage drawn from key.memo_stream of the mechanism's attribute word.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <type_traits>

#include "device_memo_key.hpp"
#include "sample_size.hpp"
#include "tinyldp/collector/change_exposure.hpp"
#include "tinyldp/collector/mechanism.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"

namespace tinyldp::collector {
namespace {

constexpr std::uint32_t devices = test::sample_size(16000, 2000);

port::MemoKey device_key(std::uint32_t device) { return tinyldp::test::device_memo_key(device, 31, 3); }

// A UE chain's PRR with the identity as IRR, memoized under the chain's own id: its report is
// the chain's memo.
TwoStageRr memo_only_of(const Mechanism& m) {
  TwoStageRr memo_only;
  m.visit_model([&](const auto& model) {
    if constexpr (std::is_same_v<std::decay_t<decltype(model)>, TwoStageModel>) {
      EXPECT_EQ(TwoStageRr::configure(model.core.p1(), model.core.q1(), Dyadic{1, 0}, Dyadic{0, 0},
                                      model.core.encoding(), memo_only),
                Status::ok);
      memo_only = memo_only.memoized_as(model.core.description().id);
    }
  });
  return memo_only;
}

// The memo a device holds for `value`, as an integer to compare (bits of a one-hot memo).
std::uint64_t memo_of(const Mechanism& m, const TwoStageRr& memo_only, const port::MemoKey& key, std::uint32_t value) {
  return m.visit_model([&](const auto& model) -> std::uint64_t {
    using Model = std::decay_t<decltype(model)>;
    if constexpr (std::is_same_v<Model, TwoStageModel>) {
      port::InsecureTestSource unused(1);
      RandomBits<port::InsecureTestSource> rng(unused);
      std::uint8_t bits[8] = {};
      EXPECT_EQ(memo_only.privatize(value, key, rng, bits, sizeof bits), Status::ok);
      return get_le<std::uint64_t>(bits);
    } else if constexpr (std::is_same_v<Model, LgrrModel>) {
      auto stream = key.memo_stream(model.core.memo_attribute_word(), value);
      MemoDraws<decltype(stream)> draws(stream);
      return model.core.chain().memoize(value, draws);
    } else if constexpr (std::is_same_v<Model, LolohaModel>) {
      auto seeds = key.memo_stream(model.core.memo_attribute_word(), detail::device_draw_value);
      MemoDraws<decltype(seeds)> seed_draws(seeds);
      const std::uint32_t h = local_hash(Loloha::hash_seed(seed_draws), value, model.core.range());
      auto stream = key.memo_stream(model.core.memo_attribute_word(), h);
      MemoDraws<decltype(stream)> draws(stream);
      return model.core.chain().memoize(h, draws);
    } else {
      ADD_FAILURE() << "not a memoized categorical model";
      return 0;
    }
  });
}

void expect_exposure_measured(MechanismId id, std::uint32_t domain) {
  MechanismConfig c;
  c.id = id;
  c.domain = domain;
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(c, m), Status::ok);
  const auto exposure = change_exposure(m);
  ASSERT_TRUE(exposure);
  const TwoStageRr memo_only = memo_only_of(m);
  std::uint32_t changed = 0;
  for (std::uint32_t device = 0; device < devices; ++device) {
    const port::MemoKey key = device_key(device);
    changed += memo_of(m, memo_only, key, 3) != memo_of(m, memo_only, key, 7);
  }
  const double measured = static_cast<double>(changed) / devices;
  const double sigma = std::sqrt(*exposure * (1 - *exposure) / devices);
  std::printf("%s: exposure %.4f, measured %.4f (σ %.4f)\n", name_of(id), *exposure, measured, sigma);
  EXPECT_LE(std::fabs(measured - *exposure), 5 * sigma) << name_of(id);
}

TEST(ChangeExposure, TheUeChainsFigureIsWhatTheirMemosDo) {
  expect_exposure_measured(MechanismId::l_osue, 16);
  expect_exposure_measured(MechanismId::l_sue, 16);
}

TEST(ChangeExposure, LgrrAndLolohaFiguresAreWhatTheirMemosDo) {
  expect_exposure_measured(MechanismId::l_grr, 12);
  expect_exposure_measured(MechanismId::loloha, 100);
  expect_exposure_measured(MechanismId::biloloha, 100);
}

TEST(ChangeExposure, NumericProtocolsHaveNoSingleFigure) {
  Mechanism m;
  ASSERT_EQ(Mechanism::configure(find_mechanism(MechanismId::one_bit_mean)->example, m), Status::ok);
  EXPECT_FALSE(change_exposure(m));
}

}  // namespace
}  // namespace tinyldp::collector
