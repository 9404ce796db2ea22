#include "tinyldp/collector/mechanism.hpp"

#include <bit>
#include <cstring>

namespace tinyldp::collector {

std::optional<MechanismId> mechanism_from_name(std::string_view name) {
  for (auto id : {MechanismId::rr, MechanismId::krr, MechanismId::sue, MechanismId::oue}) {
    if (name == wire::name_of(id)) return id;
  }
  return std::nullopt;
}

Status Mechanism::configure(const MechanismConfig& config, Mechanism& out) {
  Mechanism m;
  m.config_ = config;
  Status s = Status::bad_parameter;
  switch (config.id) {
    case MechanismId::rr: {
      BinaryRr rr;
      s = BinaryRr::configure(config.epsilon, rr, config.precision);
      if (s != Status::ok) return s;
      m.config_.domain = 2;
      m.core_ = rr;
      m.description_ = wire::describe(rr);
      m.channel_ = channel_of(rr);
      m.domain_ = 2;
      break;
    }
    case MechanismId::krr: {
      KaryRr krr;
      s = KaryRr::configure(config.epsilon, config.domain, krr, config.precision);
      if (s != Status::ok) return s;
      m.core_ = krr;
      m.description_ = wire::describe(krr);
      m.channel_ = channel_of(krr);
      m.domain_ = config.domain;
      break;
    }
    case MechanismId::sue:
    case MechanismId::oue: {
      UnaryEncoding ue;
      s = config.id == MechanismId::sue
              ? UnaryEncoding::configure_sue(config.epsilon, config.domain, ue, config.precision)
              : UnaryEncoding::configure_oue(config.epsilon, config.domain, ue, config.precision);
      if (s != Status::ok) return s;
      m.core_ = ue;
      m.description_ = wire::describe(ue, config.id);
      m.channel_ = channel_of(ue);
      m.domain_ = config.domain;
      break;
    }
    default:
      return Status::bad_parameter;
  }
  out = m;
  return Status::ok;
}

Epsilon Mechanism::realized_epsilon() const {
  return std::visit([](const auto& m) { return m.realized_epsilon(); }, core_);
}

std::uint64_t Mechanism::random_bits_per_report() const {
  return std::visit([](const auto& m) { return std::uint64_t{m.random_bits_per_report()}; }, core_);
}

namespace {
std::string fraction(std::uint64_t num, unsigned bits) {
  return std::to_string(num) + "/2^" + std::to_string(bits);
}
}  // namespace

std::string Mechanism::probabilities_as_fractions() const {
  if (const auto* rr = std::get_if<BinaryRr>(&core_)) {
    const Dyadic p = rr->keep_probability();
    return "p = " + fraction(p.num, p.bits) + ", q = 1 - p";
  }
  if (const auto* krr = std::get_if<KaryRr>(&core_)) {
    const Dyadic q = krr->other_probability();
    return "p = " + fraction(krr->keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits);
  }
  const auto& ue = std::get<UnaryEncoding>(core_);
  return "p = " + fraction(ue.p().num, ue.p().bits) + ", q = " + fraction(ue.q().num, ue.q().bits);
}

ParseError Mechanism::check_payload(std::span<const std::uint8_t> payload) const {
  if (const auto* krr = std::get_if<KaryRr>(&core_)) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < payload.size(); ++i) v |= std::uint32_t{payload[i]} << (8 * i);
    if (v >= krr->domain()) return ParseError::value_out_of_range;
  }
  return ParseError::none;
}

void Mechanism::add_support(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  if (std::holds_alternative<BinaryRr>(core_)) {
    support[payload[0] & 1u] += 1;
  } else if (std::holds_alternative<KaryRr>(core_)) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < payload.size(); ++i) v |= std::uint32_t{payload[i]} << (8 * i);
    support[v] += 1;
  } else {
    for (std::uint32_t i = 0; i < domain_; ++i) support[i] += (payload[i / 8] >> (i % 8)) & 1u;
  }
}

}  // namespace tinyldp::collector
