// SPDX-License-Identifier: Apache-2.0
// tinyldp/collector/models/multi_attribute.hpp — the records without memo (multi_attribute.hpp:
// spl-grr … rsfd-oue-r, wire ids 23 … 29) on the collector, configured by ε through the schema
// `tinyldp multi` counts with (multi_attribute_counts.hpp): a report supports, per attribute it
// carries, the value its GRR slot holds or the bits its OUE slot sets
// (MultiAttributeSchema::count). Host only.
#ifndef TINYLDP_COLLECTOR_MODELS_MULTI_ATTRIBUTE_HPP
#define TINYLDP_COLLECTOR_MODELS_MULTI_ATTRIBUTE_HPP

#include <array>
#include <memory>

#include "tinyldp/collector/models/model_base.hpp"
#include "tinyldp/collector/models/record_shape.hpp"
#include "tinyldp/collector/multi_attribute_counts.hpp"

namespace tinyldp::collector {

// What Mechanism's dispatch reads of a model's `core`, from the schema.
struct MultiAttributeCore {
  std::shared_ptr<const MultiAttributeSchema> schema;
  wire::Description description() const { return schema->description(); }
  Epsilon realized_epsilon() const { return schema->epsilon_per_report(); }
  // SMP and RS+FD draw the sampled index by rejection: no fixed count (0).
  std::uint64_t random_bits_per_report() const { return 0; }
};

struct MultiAttributeModel : ModelDefaults {
  static constexpr bool takes_precision = false;  // the schema configures its slots at the default precision
  static constexpr MechanismKind kind = MechanismKind::record;
  static constexpr const char* core_header = "multi_attribute.hpp";
  static constexpr std::array<ModelRow, 7> rows{{
      {MechanismId::spl_grr, "spl-grr", "SplitRecord", [] { return example_record(MechanismId::spl_grr, {3, 4, 2}); }},
      {MechanismId::spl_oue, "spl-oue", "SplitRecord", [] { return example_record(MechanismId::spl_oue, {3, 9, 2}); }},
      {MechanismId::smp_grr, "smp-grr", "SampledAttribute", [] { return example_record(MechanismId::smp_grr, {3, 5, 2}); }},
      {MechanismId::smp_oue, "smp-oue", "SampledAttribute", [] { return example_record(MechanismId::smp_oue, {3, 9, 2}); }},
      {MechanismId::rsfd_grr, "rsfd-grr", "FakeDataRecord", [] { return example_record(MechanismId::rsfd_grr, {3, 4, 2}); }},
      {MechanismId::rsfd_oue_z, "rsfd-oue-z", "FakeDataRecord", [] { return example_record(MechanismId::rsfd_oue_z, {3, 9, 2}); }},
      {MechanismId::rsfd_oue_r, "rsfd-oue-r", "FakeDataRecord", [] { return example_record(MechanismId::rsfd_oue_r, {3, 9, 2}); }},
  }};
  static constexpr bool counts_in_one_pass = true;
  MultiAttributeCore core;
  static std::string check_parameters(const MechanismConfig& c);
  static Status configure(const MechanismConfig& c, MultiAttributeModel& out, MechanismConfig& normalized,
                          std::string& reason);
  std::uint32_t items() const { return core.schema->items(); }
  Channel channel() const { return {}; }  // one per attribute: MultiAttributeSchema::channel(j)
  std::string fractions() const;
  Epsilon local_epsilon() const { return core.realized_epsilon(); }
  ParseError count(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    return core.schema->count(payload, support, {});
  }
  ParseError check(std::span<const std::uint8_t> payload) const {
    std::vector<std::uint64_t> scratch(items(), 0);
    return count(payload, scratch);
  }
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const {
    static_cast<void>(count(payload, support));
  }
  std::vector<PayloadField> fields(std::span<const std::uint8_t> payload) const;
  template <class Rng>
  Status privatize_record(const std::uint32_t* values, Rng& rng, std::uint8_t* payload) const {
    return core.schema->privatize(values, rng, payload);
  }
};
static_assert(CollectorModel<MultiAttributeModel>);

}  // namespace tinyldp::collector

#endif
