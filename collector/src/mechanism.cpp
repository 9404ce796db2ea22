#include "tinyldp/collector/mechanism.hpp"

#include <bit>
#include <cstring>

namespace tinyldp::collector {

std::optional<MechanismId> mechanism_from_name(std::string_view name) {
  for (auto id : {MechanismId::rr, MechanismId::krr, MechanismId::sue, MechanismId::oue,
                  MechanismId::blh, MechanismId::olh, MechanismId::hr, MechanismId::sd,
                  MechanismId::dlaplace}) {
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
    case MechanismId::sd: {
      const unsigned bits = config.noise_bits == 0 ? StochasticDiscretization::default_rounding_bits
                                                   : config.noise_bits;
      StochasticDiscretization sd;
      s = StochasticDiscretization::configure(config.epsilon, config.lo, config.hi, config.levels,
                                              sd, config.precision, bits);
      if (s != Status::ok) return s;
      if (config.domain != 0 && config.domain != sd.levels()) return Status::bad_parameter;
      m.config_.domain = sd.levels();
      m.config_.noise_bits = static_cast<std::uint8_t>(bits);
      m.config_.sensitivity = 0;
      m.core_ = sd;
      m.description_ = wire::describe(sd);
      m.channel_ = channel_of(sd.randomizer());
      m.domain_ = sd.levels();
      break;
    }
    case MechanismId::dlaplace: {
      if (config.hi <= config.lo) return Status::bad_parameter;
      const std::uint64_t width = static_cast<std::uint64_t>(std::int64_t{config.hi} - config.lo);
      if (width > max_collector_dlaplace_width) return Status::bad_parameter;
      const std::uint32_t sensitivity =
          config.sensitivity == 0 ? static_cast<std::uint32_t>(width) : config.sensitivity;
      const unsigned bits = config.noise_bits == 0 ? DiscreteLaplace::default_bits : config.noise_bits;
      auto table = std::make_shared<std::vector<std::uint64_t>>(
          DiscreteLaplace::table_entries(config.lo, config.hi));
      DiscreteLaplace dl;
      s = DiscreteLaplace::configure(config.epsilon, config.lo, config.hi, sensitivity,
                                     table->data(), table->size(), dl, bits);
      if (s != Status::ok) return s;
      if (config.domain != 0 && config.domain != width + 1) return Status::bad_parameter;
      m.config_.domain = static_cast<std::uint32_t>(width + 1);
      m.config_.sensitivity = sensitivity;
      m.config_.noise_bits = static_cast<std::uint8_t>(bits);
      m.config_.levels = 0;
      m.weights_ = std::move(table);
      m.core_ = dl;
      m.description_ = wire::describe(dl);
      m.channel_ = {};
      m.domain_ = static_cast<std::uint32_t>(width + 1);
      break;
    }
    default:
      return Status::bad_parameter;
  }
  if (!config.numeric() &&
      (config.lo != 0 || config.hi != 0 || config.levels != 0 || config.sensitivity != 0 ||
       config.noise_bits != 0))
    return Status::bad_parameter;  // numeric parameters on a categorical mechanism
  if (config.id != MechanismId::sd && config.levels != 0) return Status::bad_parameter;
  if (config.id != MechanismId::dlaplace && config.sensitivity != 0) return Status::bad_parameter;
  out = m;
  return Status::ok;
}

Status Mechanism::finish(Status s, const std::vector<std::uint8_t>& payload,
                         const wire::Header& header, std::vector<std::uint8_t>& out) const {
  if (s != Status::ok) return s;
  const std::size_t start = out.size();
  out.resize(start + description_.report_bytes(header.fields));
  std::size_t written = 0;
  s = wire::encode(description_, header, payload.data(), out.data() + start, out.size() - start,
                   written);
  if (s != Status::ok) out.resize(start);
  return s;
}

double Mechanism::item_value(std::uint32_t item) const {
  if (const auto* sd = discretization())
    return sd->low() + static_cast<double>(item) *
                           static_cast<double>(std::int64_t{sd->high()} - sd->low()) /
                           static_cast<double>(sd->levels() - 1);
  if (const auto* dl = discrete_laplace()) return static_cast<double>(std::int64_t{dl->low()} + item);
  return item;
}

Epsilon Mechanism::local_epsilon() const {
  if (const auto* dl = discrete_laplace()) return dl->local_epsilon();
  return realized_epsilon();
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
  if (const auto* sd = discretization()) {
    const Dyadic q = sd->randomizer().other_probability();
    return "L = " + std::to_string(sd->levels()) + ", p = " +
           fraction(sd->randomizer().keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits) +
           " (k-RR over the levels), rounding with " + std::to_string(sd->rounding_bits()) + " bits";
  }
  if (const auto* dl = discrete_laplace()) {
    const unsigned b = dl->random_bits_per_report();
    const auto w = static_cast<std::uint32_t>(std::int64_t{dl->high()} - dl->low());
    return "w(0) = " + fraction(dl->weight(0), b) +
           (w > 1 ? ", w(1) = " + fraction(dl->weight(1), b) : std::string()) + ", ends " +
           fraction(dl->tail_low(), b) + " and " + fraction(dl->tail_high(), b) +
           " (Pr[noise = z] = w(|z|), |z| < " + std::to_string(w) + ")";
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
  if (numeric() && wire::unpack_bits(payload.data(), description_.payload_bits) >= domain_)
    return ParseError::value_out_of_range;  // a level ≥ L, or a value above hi
  return ParseError::none;
}

void Mechanism::add_support(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  if (std::holds_alternative<BinaryRr>(core_)) {
    support[payload[0] & 1u] += 1;
  } else if (std::holds_alternative<KaryRr>(core_) || numeric()) {
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
