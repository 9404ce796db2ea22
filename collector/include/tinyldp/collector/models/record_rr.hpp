// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/record_rr.hpp — `record` (record_rr.hpp, wire id 22) on the
// collector: one memoized one-hot two-stage RR per attribute, concatenated, configured by
// RAPPOR's f, p, q through the schema `tinyldp joint` counts with (record_counts.hpp). Per bit,
// the composed channel of attribute 0 (every attribute has the same f, p, q). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_RECORD_RR_HPP
#define TINYLDP_COLLECTOR_MODELS_RECORD_RR_HPP

#include <array>
#include <memory>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/models/record_shape.hpp"
#include "tinyldp/collector/record_counts.hpp"

namespace tinyldp::collector {

// What Mechanism's dispatch reads of a model's `core`, from the schema.
struct RecordSchemaCore {
  std::shared_ptr<const RecordSchema> schema;
  const CollectorRecordRr& rr() const { return schema->mechanism(); }
  wire::Description description() const { return rr().description(); }
  Epsilon realized_epsilon() const { return rr().epsilon_one(); }
  Epsilon epsilon_infinity() const { return rr().epsilon_infinity(); }
  std::uint64_t random_bits_per_report() const { return rr().random_bits_per_report(); }
};

struct RecordModel : MemoizedDefaults {
  static constexpr bool takes_precision = false;  // configured by f, p, q
  static constexpr MechanismKind kind = MechanismKind::record;
  static constexpr const char* core_header = "record_rr.hpp";
  static constexpr std::array<ModelRow, 1> rows{{
      // RAPPOR's f, p, q: the paper's p = 0.5, q = 0.75.
      {MechanismId::record_rr, "record", "RecordRr", [] {
         MechanismConfig c = example_record(MechanismId::record_rr, {3, 4, 2});
         c.epsilon = Epsilon{};
         c.prr_f = Dyadic{1, 1};
         c.irr_p = Dyadic{1, 1};
         c.irr_q = Dyadic{3, 2};
         return c;
       }},
  }};
  static constexpr const char* memos_of = "attribute value";
  RecordSchemaCore core;
  static std::string check_parameters(const MechanismConfig& c);
  static Status configure(const MechanismConfig& c, RecordModel& out, MechanismConfig& normalized,
                          std::string& reason);
  std::uint32_t items() const { return core.rr().record_bits(); }
  Channel channel() const { return {core.schema->q_star(0), core.schema->p_star(0)}; }
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.rr().epsilon_one(); }
  std::uint32_t most_memos() const { return items(); }  // one per attribute value
  // No model of its memos' covariance (epochs are aggregated apart) or change exposure.
  std::optional<MemoCovariance> memo_covariance() const { return std::nullopt; }
  std::optional<double> change_exposure() const { return std::nullopt; }
  // Every payload of its length is a report.
  ParseError check(std::span<const std::uint8_t>) const { return ParseError::none; }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    add_bit_support(payload, items(), support);
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng, class Key>
  Status privatize_record_memoized(const std::uint32_t* values, const Key& key, Rng& rng,
                                   std::uint8_t* payload) const {
    return core.rr().privatize(values, key, rng, payload, core.rr().report_bytes());
  }
};
static_assert(CollectorModel<RecordModel>);

}  // namespace tinyldp::collector

#endif
