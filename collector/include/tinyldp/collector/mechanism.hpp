// tinyldp/collector/mechanism.hpp — a configured frequency oracle as the collector sees it.
//
// The collector rebuilds the *same* mechanism as the devices from (name, ε, domain,
// precision) — the core's configuration is deterministic — and so knows the exact realized
// probabilities, the wire description (payload size, parameter digest) and how a payload
// supports items. Host only.
#ifndef TINYLDP_COLLECTOR_MECHANISM_HPP
#define TINYLDP_COLLECTOR_MECHANISM_HPP

#include <cstdint>
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

struct MechanismConfig {
  MechanismId id = MechanismId::oue;
  Epsilon epsilon{};
  std::uint32_t domain = 2;  // ignored by rr (always 2)
  Precision precision{};
};

class Mechanism {
 public:
  // Configures exactly as a device would; returns the core's status.
  static Status configure(const MechanismConfig& config, Mechanism& out);

  const MechanismConfig& config() const { return config_; }
  const wire::Description& description() const { return description_; }
  Channel channel() const { return channel_; }
  std::uint32_t domain() const { return domain_; }  // number of items estimated
  Epsilon realized_epsilon() const;
  // Random bits one report consumes (the same for every value).
  std::uint64_t random_bits_per_report() const;
  // The realized probabilities, exactly: (p, q) as Dyadics — for rr/krr p is derived.
  std::string probabilities_as_fractions() const;

  // Privatizes `value` into a complete wire report appended to `out`.
  template <class Rng>
  Status privatize(std::uint32_t value, Rng& rng, const wire::Header& header,
                   std::vector<std::uint8_t>& out) const;

  // Checks a payload's content beyond its length (e.g. a k-RR value < k).
  ParseError check_payload(std::span<const std::uint8_t> payload) const;
  // Adds 1 to support[i] for every item i the payload supports.
  void add_support(std::span<const std::uint8_t> payload, std::span<std::uint64_t> support) const;

 private:
  MechanismConfig config_{};
  std::variant<BinaryRr, KaryRr, UnaryEncoding, LocalHashing, HadamardResponse> core_{};
  std::vector<std::uint32_t> hash_keys_;  // OLH/BLH: i · 0x9E3779B1 for every item i
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
  }
  if (s != Status::ok) return s;
  const std::size_t start = out.size();
  out.resize(start + description_.report_bytes(header.fields));
  std::size_t written = 0;
  s = wire::encode(description_, header, payload.data(), out.data() + start, out.size() - start,
                   written);
  if (s != Status::ok) out.resize(start);
  return s;
}

}  // namespace tinyldp::collector

#endif
