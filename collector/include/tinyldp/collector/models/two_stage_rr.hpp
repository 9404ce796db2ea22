// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/two_stage_rr.hpp — memoized two-stage randomized response
// (two_stage_rr.hpp: RAPPOR's (f, p, q) as `rappor`, or a longitudinal UE chain (ε∞, ε₁):
// l-sue, l-osue, l-oue, l-soue) on the collector. Per bit, the composed channel is
// P(1 | set) = q*, P(1 | unset) = p*. A report needs the device's memo key.
// One-hot: one round's reports are counted like UE's, by the bit-sliced column counter. Bloom
// filter (k bits, h hashes, m cohorts): a report's bits mean something only with its cohort
// (the header's), so the items are cells — per cohort c, the k bit counts then the cohort's
// report count, at c·(k + 1) — counted by count_bloom and decoded against candidate strings by
// bloom_decode.hpp. Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_TWO_STAGE_RR_HPP
#define TINYLDP_COLLECTOR_MODELS_TWO_STAGE_RR_HPP

#include <array>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::collector {

struct TwoStageModel : BitPayloadModel<MechanismKind::categorical, TwoStageRr, MemoizedDefaults> {
  static constexpr const char* core_header = "two_stage_rr.hpp";
  static constexpr std::array<ModelRow, 5> rows{{
      // RAPPOR by its f, p, q; the UE chains by ε∞ = 2, ε₁ = 1.
      {MechanismId::rappor, "rappor", "TwoStageRr", [] {
         MechanismConfig c = example_config(MechanismId::rappor, Epsilon{}, 16);
         c.prr_f = Dyadic{1, 1};
         c.irr_p = Dyadic{1, 1};
         c.irr_q = Dyadic{3, 2};
         return c;
       }},
      {MechanismId::l_sue, "l-sue", "TwoStageRr", [] { return example_chain(MechanismId::l_sue, 32); }},
      {MechanismId::l_osue, "l-osue", "TwoStageRr", [] { return example_chain(MechanismId::l_osue, 32); }},
      {MechanismId::l_oue, "l-oue", "TwoStageRr", [] { return example_chain(MechanismId::l_oue, 32); }},
      {MechanismId::l_soue, "l-soue", "TwoStageRr", [] { return example_chain(MechanismId::l_soue, 32); }},
  }};
  static constexpr bool takes_bloom = true;
  static constexpr bool bit_columns = true;  // one-hot only (Mechanism::uses_bit_columns)
  static constexpr const char* memos_of = "value";
  using CoreModel::local_epsilon, CoreModel::privatize_memoized;
  using BitPayloadModel::check, BitPayloadModel::add_support, BitPayloadModel::fields;  // one-hot; Bloom: count_bloom
  static Status configure(const MechanismConfig& c, TwoStageModel& out, MechanismConfig& normalized);
  static std::string check_parameters(const MechanismConfig& c);
  bool bloom() const { return core.encoding().kind == MemoEncoding::bloom; }
  std::uint32_t items() const {
    return bloom() ? core.encoding().cohorts * (core.bits() + 1) : core.bits();
  }
  // A Bloom report of `cohort` (the header's; refused if absent or ≥ m): its bits and one
  // report, in the cohort's cells. Not a Bloom encoding: wrong_mechanism.
  ParseError count_bloom(std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
                         std::span<std::uint64_t> support) const;
  Channel channel() const;
  std::string fractions() const;
  std::optional<MemoCovariance> memo_covariance() const;  // one-hot only
  // One-hot (k bits): two bits move between the rows (p1, q1) and (q1, p1), the other k − 2 are
  // two independent draws of q1 each: 1 − (p1q1 + (1 − p1)(1 − q1))² · (q1² + (1 − q1)²)^(k − 2).
  std::optional<double> change_exposure() const;
  // One-hot: one memo per value; Bloom: any 32-bit value has its own memo.
  std::uint32_t most_memos() const { return bloom() ? UINT32_MAX : core.bits(); }
};
static_assert(CollectorModel<TwoStageModel>);

}  // namespace tinyldp::collector

#endif
