// tinyldp/collector/mechanism.hpp — a configured frequency oracle as the collector sees it.
//
// The collector rebuilds the *same* mechanism as the devices from (name, ε, domain,
// precision) — the core's configuration is deterministic — and so knows the exact realized
// probabilities, the wire description (payload size, parameter digest) and how a payload
// supports items. Host only.
//
// Numeric mechanisms (`sd`, `dlaplace`) privatize an integer of [lo, hi]; their "items" are
// the reported levels (sd: L levels) or reported values (dlaplace: lo … hi, W + 1 of them), and
// the support count of an item is the number of reports equal to it. The mean and the
// distribution are estimated from those counts (estimates.hpp, numeric_estimate.hpp).
#ifndef TINYLDP_COLLECTOR_MECHANISM_HPP
#define TINYLDP_COLLECTOR_MECHANISM_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tinyldp/collector/frequency_estimate.hpp"
#include "tinyldp/collector/report_parser.hpp"
#include "tinyldp/wire.hpp"

namespace tinyldp::collector {

using wire::MechanismId;

std::optional<MechanismId> mechanism_from_name(std::string_view name);

// The largest domain the collector accepts (32 MiB of support counts): configurations come
// from untrusted files too, and nothing is allocated in proportion to an unchecked number.
inline constexpr std::uint32_t max_collector_domain = std::uint32_t{1} << 22;
// The widest dlaplace range (hi − lo) the collector estimates: its distribution estimate
// inverts the dense (W + 1)² noise matrix, O(W³) time (~1 s at W = 1024).
inline constexpr std::uint32_t max_collector_dlaplace_width = 1024;

struct MechanismConfig {
  MechanismId id = MechanismId::oue;
  Epsilon epsilon{};
  std::uint32_t domain = 2;  // categorical; rr: always 2; sd, dlaplace: set by configure
  Precision precision{};     // of the randomized response (not used by dlaplace)
  // Numeric mechanisms only (0 for the others):
  std::int32_t lo = 0, hi = 0;  // the value range
  std::uint32_t levels = 0;     // sd: L (2 … 256)
  std::uint32_t sensitivity = 0;  // dlaplace: Δ (1 … W; 0 = W, the local-DP setting)
  std::uint8_t noise_bits = 0;  // sd: rounding bits B (1 … 24), dlaplace: B (2 … 62); 0 = default

  bool numeric() const { return id == MechanismId::sd || id == MechanismId::dlaplace; }
};

class Mechanism {
 public:
  // Configures exactly as a device would; returns the core's status.
  static Status configure(const MechanismConfig& config, Mechanism& out);

  const MechanismConfig& config() const { return config_; }
  const wire::Description& description() const { return description_; }
  Channel channel() const { return channel_; }
  std::uint32_t domain() const { return domain_; }  // number of items estimated
  bool numeric() const { return config_.numeric(); }
  Epsilon realized_epsilon() const;
  // The loss between any two inputs (the local-DP guarantee): realized_epsilon() except for
  // dlaplace with Δ < W.
  Epsilon local_epsilon() const;
  // Random bits one report consumes (the same for every value).
  std::uint64_t random_bits_per_report() const;
  // The realized probabilities, exactly: (p, q) as Dyadics — for rr/krr p is derived.
  std::string probabilities_as_fractions() const;

  // Privatizes `value` into a complete wire report appended to `out`: a category index for
  // the categorical mechanisms, a number of [lo, hi] for the numeric ones (privatize_number;
  // each returns bad_parameter for the other kind).
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, const wire::Header& header,
                   std::vector<std::uint8_t>& out) const;
  template <class Rng>
  Status privatize_number(std::int32_t value, Rng& rng, const wire::Header& header,
                          std::vector<std::uint8_t>& out) const;

  // The core objects of the numeric mechanisms (nullptr for the others).
  const StochasticDiscretization* discretization() const {
    return std::get_if<StochasticDiscretization>(&core_);
  }
  const DiscreteLaplace* discrete_laplace() const { return std::get_if<DiscreteLaplace>(&core_); }
  // The value item i stands for: sd lo + i·W/(L − 1), dlaplace lo + i (categorical: i).
  double item_value(std::uint32_t item) const;

  // Checks a payload's content beyond its length (e.g. a k-RR value < k).
  ParseError check_payload(std::span<const std::uint8_t> payload) const;
  // Adds 1 to support[i] for every item i the payload supports.
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const;

 private:
  MechanismConfig config_{};
  // Encodes a privatized payload (when s is ok) into a complete report appended to out.
  Status finish(Status s, const std::vector<std::uint8_t>& payload, const wire::Header& header,
                std::vector<std::uint8_t>& out) const;

  std::variant<BinaryRr, KaryRr, UnaryEncoding, LocalHashing, HadamardResponse,
               StochasticDiscretization, DiscreteLaplace>
      core_{};
  std::vector<std::uint32_t> hash_keys_;  // OLH/BLH: i · 0x9E3779B1 for every item i
  // dlaplace: the noise weights the DiscreteLaplace points at; shared, so that copies of the
  // Mechanism keep pointing at live, unchanging storage.
  std::shared_ptr<const std::vector<std::uint64_t>> weights_;
  wire::Description description_{};
  Channel channel_{};
  std::uint32_t domain_ = 0;
};

template <class Rng>
Status Mechanism::privatize(std::uint32_t value, Rng& rng, const wire::Header& header,
                            std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t> payload(description_.payload_bytes(), 0);
  Status s = Status::ok;
  if (const auto* rr = std::get_if<BinaryRr>(&core_)) {
    s = rr->privatize(value, rng, payload[0]);
  } else if (const auto* krr = std::get_if<KaryRr>(&core_)) {
    std::uint32_t y = 0;
    s = krr->privatize(value, rng, y);
    wire::pack_value(y, description_.payload_bits, payload.data());
  } else if (const auto* ue = std::get_if<UnaryEncoding>(&core_)) {
    s = ue->privatize(value, rng, payload.data(), payload.size());
  } else if (const auto* lh = std::get_if<LocalHashing>(&core_)) {
    LocalHashingReport r;
    s = lh->privatize(value, rng, r);
    wire::pack(*lh, r, payload.data());
  } else if (const auto* hr = std::get_if<HadamardResponse>(&core_)) {
    HadamardReport r;
    s = hr->privatize(value, rng, r);
    wire::pack(*hr, r, payload.data());
  } else {
    return Status::bad_parameter;  // a numeric mechanism: privatize_number
  }
  return finish(s, payload, header, out);
}

template <class Rng>
Status Mechanism::privatize_number(std::int32_t value, Rng& rng, const wire::Header& header,
                                   std::vector<std::uint8_t>& out) const {
  std::vector<std::uint8_t> payload(description_.payload_bytes(), 0);
  Status s = Status::ok;
  if (const auto* sd = std::get_if<StochasticDiscretization>(&core_)) {
    std::uint32_t level = 0;
    s = sd->privatize(value, rng, level);
    wire::pack_value(level, description_.payload_bits, payload.data());
  } else if (const auto* dl = std::get_if<DiscreteLaplace>(&core_)) {
    std::int32_t y = 0;
    s = dl->privatize(value, rng, y);
    wire::pack_value(static_cast<std::uint32_t>(std::int64_t{y} - std::int64_t{dl->low()}),
                     description_.payload_bits, payload.data());
  } else {
    return Status::bad_parameter;  // a categorical mechanism: privatize
  }
  return finish(s, payload, header, out);
}


}  // namespace tinyldp::collector

#endif
