#include "tinyldp/collector/mechanism.hpp"

#include <bit>
#include <cstring>

namespace tinyldp::collector {

std::optional<MechanismId> mechanism_from_name(std::string_view name) {
  for (auto id : {MechanismId::rr, MechanismId::krr, MechanismId::sue, MechanismId::oue,
                  MechanismId::blh, MechanismId::olh, MechanismId::hr}) {
    if (name == wire::name_of(id)) return id;
  }
  return std::nullopt;
}

Status Mechanism::configure(const MechanismConfig& config, Mechanism& out) {
  if (config.domain > max_collector_domain) return Status::bad_parameter;
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
    case MechanismId::blh:
    case MechanismId::olh: {
      LocalHashing lh;
      s = config.id == MechanismId::blh
              ? LocalHashing::configure_blh(config.epsilon, config.domain, lh, config.precision)
              : LocalHashing::configure_olh(config.epsilon, config.domain, lh, config.precision);
      if (s != Status::ok) return s;
      m.core_ = lh;
      m.description_ = wire::describe(lh);
      const double g = static_cast<double>(lh.range());
      m.channel_ = {channel_of(lh.randomizer()).p, 1.0 / g};
      m.domain_ = config.domain;
      m.hash_keys_.resize(config.domain);
      for (std::uint32_t i = 0; i < config.domain; ++i) m.hash_keys_[i] = i * 0x9E3779B1u;
      break;
    }
    case MechanismId::hr: {
      HadamardResponse hr;
      s = HadamardResponse::configure(config.epsilon, config.domain, hr, config.precision);
      if (s != Status::ok) return s;
      m.core_ = hr;
      m.description_ = wire::describe(hr);
      m.channel_ = {channel_of(hr.randomizer()).p, 0.5};
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
// support[i] += [lo ≤ mix(keys[i] XOR seed) < lo + width] for every item: the OLH/BLH support
// count. Compiled for AVX2 as well as baseline x86-64 and picked at run time, so the loop runs
// eight items per instruction where the machine allows.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default"), optimize("O3")))
#endif
void count_hash_matches(const std::uint32_t* keys, std::uint32_t n, std::uint32_t seed,
                        std::uint32_t lo, std::uint32_t width, std::uint64_t* support) {
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t x = keys[i] ^ seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    support[i] += (x - lo) < width ? 1u : 0u;
  }
}

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
  if (const auto* lh = std::get_if<LocalHashing>(&core_)) {
    const Dyadic q = lh->randomizer().other_probability();
    return "g = " + std::to_string(lh->range()) + ", p = " +
           fraction(lh->randomizer().keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits) +
           " (k-RR over the g hash values)";
  }
  if (const auto* hr = std::get_if<HadamardResponse>(&core_)) {
    const Dyadic p = hr->randomizer().keep_probability();
    return "K = " + std::to_string(1u << hr->row_bits()) + ", p = " + fraction(p.num, p.bits) +
           " (binary RR of the Hadamard bit)";
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
  if (const auto* lh = std::get_if<LocalHashing>(&core_)) {
    const auto y = wire::unpack_bits(payload.data(), description_.payload_bits) >> lh->seed_bits();
    if (y >= lh->range()) return ParseError::value_out_of_range;
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
  } else if (const auto* lh = std::get_if<LocalHashing>(&core_)) {
    const std::uint64_t bits = wire::unpack_bits(payload.data(), description_.payload_bits);
    const auto seed = static_cast<std::uint32_t>(bits & ((std::uint64_t{1} << lh->seed_bits()) - 1));
    const auto y = static_cast<std::uint32_t>(bits >> lh->seed_bits());
    // H(s, i) = y  ⇔  the mixed word falls in [⌈y·2^32/g⌉, ⌈(y+1)·2^32/g⌉): one 32-bit range
    // test per item instead of a 64-bit multiply, so the loop vectorizes.
    const std::uint64_t g = lh->range();
    const auto lo = static_cast<std::uint32_t>(((std::uint64_t{y} << 32) + g - 1) / g);
    const auto width = static_cast<std::uint32_t>((((std::uint64_t{y} + 1) << 32) + g - 1) / g - lo);
    count_hash_matches(hash_keys_.data(), domain_, seed, lo, width, support.data());
  } else if (const auto* hr = std::get_if<HadamardResponse>(&core_)) {
    const std::uint64_t bits = wire::unpack_bits(payload.data(), description_.payload_bits);
    const auto row = static_cast<std::uint32_t>(bits & ((std::uint64_t{1} << hr->row_bits()) - 1));
    const auto bit = static_cast<std::uint32_t>(bits >> hr->row_bits());
    for (std::uint32_t i = 0; i < domain_; ++i) support[i] += hadamard_bit(row, i) == bit;
  } else {
    for (std::uint32_t i = 0; i < domain_; ++i) support[i] += (payload[i / 8] >> (i % 8)) & 1u;
  }
}

}  // namespace tinyldp::collector
