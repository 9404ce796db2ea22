// SPDX-License-Identifier: Apache-2.0
#include "tinyldp/collector/mechanism.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace tinyldp::collector {

// --- The table: one row per wire id ------------------------------------------------------

namespace {
constexpr auto categorical = MechanismKind::categorical;
constexpr auto numeric = MechanismKind::numeric;
constexpr auto record = MechanismKind::record;

constexpr MechanismConfig example(MechanismId id, Epsilon eps, std::uint32_t domain) {
  MechanismConfig c;
  c.id = id;
  c.epsilon = eps;
  c.domain = domain;
  return c;
}
constexpr MechanismConfig example_numeric(MechanismId id, std::int32_t lo, std::int32_t hi,
                                          std::uint32_t levels, std::uint32_t sensitivity) {
  MechanismConfig c = example(id, Epsilon::from_ratio(1, 1), 0);
  c.lo = lo;
  c.hi = hi;
  c.levels = levels;
  c.sensitivity = sensitivity;
  return c;
}

// RAPPOR (two_stage) by its f, p, q; a UE chain by ε∞ = 2, ε₁ = 1.
constexpr MechanismConfig example_rappor(Dyadic f, Dyadic p, Dyadic q, std::uint32_t domain) {
  MechanismConfig c = example(MechanismId::two_stage, Epsilon{}, domain);
  c.prr_f = f;
  c.irr_p = p;
  c.irr_q = q;
  return c;
}
constexpr MechanismConfig example_chain(MechanismId id, std::uint32_t domain) {
  MechanismConfig c = example(id, Epsilon::from_ratio(2, 1), domain);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  return c;
}

constexpr MechanismConfig example_one_bit_mean() {
  MechanismConfig c = example_numeric(MechanismId::bit_mean, 0, 100, 0, 0);
  c.epsilon = Epsilon::from_ratio(2, 1);
  c.epsilon_one = Epsilon::from_ratio(1, 1);
  c.grid_step = 25;
  return c;
}

constexpr MechanismConfig example_dbitflip() {
  MechanismConfig c = example_one_bit_mean();
  c.id = MechanismId::dbitflip;
  c.sampled = 2;
  return c;
}

// A record of attributes with these sizes: ε for the protocols without memo, RAPPOR's f, p, q
// (the paper's p = 0.5, q = 0.75) for `record`.
MechanismConfig example_record(MechanismId id, std::vector<std::uint32_t> sizes) {
  MechanismConfig c = example(id, id == MechanismId::record_rr ? Epsilon{} : Epsilon::from_ratio(1, 1), 0);
  c.attribute_sizes = std::move(sizes);
  if (id == MechanismId::record_rr) {
    c.prr_f = Dyadic{1, 1};
    c.irr_p = Dyadic{1, 1};
    c.irr_q = Dyadic{3, 2};
  }
  return c;
}

}  // namespace

// Made on first use, so that no static initializer elsewhere can see it unmade.
std::span<const MechanismRow> mechanism_table() {
  static const MechanismRow rows[] = {
    {MechanismId::rr, "rr", categorical, &Mechanism::configure_as<RrModel>,
     example(MechanismId::rr, Epsilon::from_ratio(1, 1), 2)},
    {MechanismId::krr, "krr", categorical, &Mechanism::configure_as<KrrModel>,
     example(MechanismId::krr, Epsilon::from_ratio(2, 1), 13)},
    {MechanismId::sue, "sue", categorical, &Mechanism::configure_as<UeModel>,
     example(MechanismId::sue, Epsilon::from_ratio(1, 2), 100)},
    {MechanismId::oue, "oue", categorical, &Mechanism::configure_as<UeModel>,
     example(MechanismId::oue, Epsilon::from_ratio(1, 1), 20)},
    // Custom (p, q): on the wire, but not configured by name.
    {MechanismId::ue, "ue", categorical, nullptr, {}},
    {MechanismId::blh, "blh", categorical, &Mechanism::configure_as<LhModel>,
     example(MechanismId::blh, Epsilon::from_ratio(1, 1), 50)},
    {MechanismId::olh, "olh", categorical, &Mechanism::configure_as<LhModel>,
     example(MechanismId::olh, Epsilon::from_ratio(2, 1), 50)},
    {MechanismId::hr, "hr", categorical, &Mechanism::configure_as<HrModel>,
     example(MechanismId::hr, Epsilon::from_ratio(1, 1), 50)},
    {MechanismId::sd, "sd", numeric, &Mechanism::configure_as<SdModel>,
     example_numeric(MechanismId::sd, -100, 155, 5, 0)},
    {MechanismId::dlaplace, "dlaplace", numeric, &Mechanism::configure_as<DlaplaceModel>,
     example_numeric(MechanismId::dlaplace, -8, 8, 0, 2)},
    {MechanismId::she, "she", categorical, &Mechanism::configure_as<SheModel>,
     example(MechanismId::she, Epsilon::from_ratio(1, 1), 16)},
    {MechanismId::the, "the", categorical, &Mechanism::configure_as<TheModel>,
     example(MechanismId::the, Epsilon::from_ratio(1, 1), 16)},
    {MechanismId::two_stage, "rappor", categorical, &Mechanism::configure_as<TwoStageModel>,
     example_rappor(Dyadic{1, 1}, Dyadic{1, 1}, Dyadic{3, 2}, 16)},
    {MechanismId::l_sue, "l-sue", categorical, &Mechanism::configure_as<TwoStageModel>,
     example_chain(MechanismId::l_sue, 32)},
    {MechanismId::l_osue, "l-osue", categorical, &Mechanism::configure_as<TwoStageModel>,
     example_chain(MechanismId::l_osue, 32)},
    {MechanismId::l_oue, "l-oue", categorical, &Mechanism::configure_as<TwoStageModel>,
     example_chain(MechanismId::l_oue, 32)},
    {MechanismId::l_soue, "l-soue", categorical, &Mechanism::configure_as<TwoStageModel>,
     example_chain(MechanismId::l_soue, 32)},
    {MechanismId::lgrr, "l-grr", categorical, &Mechanism::configure_as<LgrrModel>,
     example_chain(MechanismId::lgrr, 12)},
    {MechanismId::loloha, "loloha", categorical, &Mechanism::configure_as<LolohaModel>,
     example_chain(MechanismId::loloha, 50)},
    {MechanismId::biloloha, "biloloha", categorical, &Mechanism::configure_as<LolohaModel>,
     example_chain(MechanismId::biloloha, 50)},
    {MechanismId::bit_mean, "1bitmean", numeric, &Mechanism::configure_as<OneBitMeanModel>,
     example_one_bit_mean()},
    {MechanismId::record_rr, "record", record, &Mechanism::configure_as<RecordModel>,
     example_record(MechanismId::record_rr, {3, 4, 2})},
    {MechanismId::spl_grr, "spl-grr", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::spl_grr, {3, 4, 2})},
    {MechanismId::spl_oue, "spl-oue", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::spl_oue, {3, 9, 2})},
    {MechanismId::smp_grr, "smp-grr", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::smp_grr, {3, 5, 2})},
    {MechanismId::smp_oue, "smp-oue", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::smp_oue, {3, 9, 2})},
    {MechanismId::rsfd_grr, "rsfd-grr", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::rsfd_grr, {3, 4, 2})},
    {MechanismId::rsfd_oue_z, "rsfd-oue-z", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::rsfd_oue_z, {3, 9, 2})},
    {MechanismId::rsfd_oue_r, "rsfd-oue-r", record, &Mechanism::configure_as<MultiAttributeModel>,
     example_record(MechanismId::rsfd_oue_r, {3, 9, 2})},
    {MechanismId::dbitflip, "dbitflip", numeric, &Mechanism::configure_as<DBitFlipModel>,
     example_dbitflip()},
  };
  return rows;
}

const MechanismRow* find_mechanism(MechanismId id) {
  for (const auto& row : mechanism_table())
    if (row.id == id) return &row;
  return nullptr;
}

const MechanismRow* find_mechanism(std::string_view name) {
  for (const auto& row : mechanism_table())
    if (row.configure != nullptr && name == row.name) return &row;
  return nullptr;
}

std::optional<MechanismId> mechanism_from_name(std::string_view name) {
  const MechanismRow* row = find_mechanism(name);
  return row ? std::optional(row->id) : std::nullopt;
}

const char* name_of(MechanismId id) {
  const MechanismRow* row = find_mechanism(id);
  return row ? row->name : "unknown";
}

std::string mechanism_names(std::optional<MechanismKind> kind) {
  std::string out;
  for (const auto& row : mechanism_table())
    if (row.configure != nullptr && (!kind || row.kind == *kind))
      out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

namespace {
std::string fraction(std::uint64_t num, unsigned bits) {
  return std::to_string(num) + "/2^" + std::to_string(bits);
}
}  // namespace

std::string config_difference(const MechanismConfig& given, const MechanismConfig& canonical) {
  const auto field = [](const char* name, auto a, auto b) {
    return std::string(name) + " " + std::to_string(a) + " where " + std::to_string(b) + " is canonical";
  };
  if (given.id != canonical.id)
    return field("mechanism id", static_cast<unsigned>(given.id), static_cast<unsigned>(canonical.id));
  if (given.epsilon.q32 != canonical.epsilon.q32)
    return field("epsilon (q32)", given.epsilon.q32, canonical.epsilon.q32);
  if (given.domain != canonical.domain) return field("domain", given.domain, canonical.domain);
  if (given.precision.max_bits != canonical.precision.max_bits)
    return field("precision bits", unsigned{given.precision.max_bits}, unsigned{canonical.precision.max_bits});
  if (given.precision.tolerance_q32 != canonical.precision.tolerance_q32)
    return field("precision tolerance (q32)", given.precision.tolerance_q32, canonical.precision.tolerance_q32);
  if (given.lo != canonical.lo) return field("lo", given.lo, canonical.lo);
  if (given.hi != canonical.hi) return field("hi", given.hi, canonical.hi);
  if (given.levels != canonical.levels) return field("levels", given.levels, canonical.levels);
  if (given.sensitivity != canonical.sensitivity)
    return field("sensitivity", given.sensitivity, canonical.sensitivity);
  if (given.noise_bits != canonical.noise_bits)
    return field("noise bits", unsigned{given.noise_bits}, unsigned{canonical.noise_bits});
  if (given.epsilon_one.q32 != canonical.epsilon_one.q32)
    return field("epsilon-one (q32)", given.epsilon_one.q32, canonical.epsilon_one.q32);
  const auto dyadic = [&](const char* name, Dyadic a, Dyadic b) {
    return a == b ? std::string() : std::string(name) + " " + fraction(a.num, a.bits) + " where " +
                                        fraction(b.num, b.bits) + " is canonical";
  };
  if (auto d = dyadic("f", given.prr_f, canonical.prr_f); !d.empty()) return d;
  if (auto d = dyadic("p", given.irr_p, canonical.irr_p); !d.empty()) return d;
  if (auto d = dyadic("q", given.irr_q, canonical.irr_q); !d.empty()) return d;
  if (given.grid_step != canonical.grid_step) return field("grid step", given.grid_step, canonical.grid_step);
  if (given.sampled != canonical.sampled) return field("sampled buckets", given.sampled, canonical.sampled);
  if (given.bloom_hashes != canonical.bloom_hashes)
    return field("bloom hashes", given.bloom_hashes, canonical.bloom_hashes);
  if (given.bloom_cohorts != canonical.bloom_cohorts)
    return field("bloom cohorts", given.bloom_cohorts, canonical.bloom_cohorts);
  if (given.attribute_sizes != canonical.attribute_sizes) return "attribute sizes differ from the canonical ones";
  return {};
}

bool MechanismConfig::numeric() const {
  const MechanismRow* row = find_mechanism(id);
  return row != nullptr && row->kind == MechanismKind::numeric;
}

// --- The models' configuration: what a device would configure, and the normalized config ---

std::string check_categories(const MechanismConfig& c) {
  if (c.domain >= 2) return {};
  return std::string(name_of(c.id)) + " needs a domain: the number of categories, at least 2 (got " +
         std::to_string(c.domain) + ")";
}

std::string RrModel::check_parameters(const MechanismConfig& c) {
  if (c.domain == 2 || c.domain == 0) return {};  // 0: not given (configure sets 2)
  return "rr is binary randomized response: its domain is 2 (values 0 and 1), not " +
         std::to_string(c.domain) + "; krr takes more categories";
}

std::string check_value_range(const MechanismConfig& c, std::int64_t items, const char* what) {
  const std::string name = name_of(c.id);
  if (c.hi <= c.lo)
    return name + " needs a value range with hi above lo (got [" + std::to_string(c.lo) + ", " +
           std::to_string(c.hi) + "])";
  if (c.domain != 0 && c.domain != items)
    return "domain is not a parameter of " + name + ": its items are " + what + " (got domain " +
           std::to_string(c.domain) + " for " + std::to_string(items) + " items)";
  return {};
}

std::string SdModel::check_parameters(const MechanismConfig& c) {
  if (c.levels != 0 && (c.levels < 2 || c.levels > StochasticDiscretization::max_levels))
    return "levels must be 2 … " + std::to_string(StochasticDiscretization::max_levels) + " (got " +
           std::to_string(c.levels) + ")";
  if (std::string r = check_value_range(c, c.levels == 0 ? 2 : c.levels, "the levels"); !r.empty()) return r;
  if (std::int64_t{c.hi} - c.lo >= (std::int64_t{1} << 31)) return "sd needs hi − lo < 2^31";
  return {};
}

std::string DlaplaceModel::check_parameters(const MechanismConfig& c) {
  const std::int64_t width = std::int64_t{c.hi} - c.lo;
  if (std::string r = check_value_range(c, width + 1, "the integers lo … hi"); !r.empty()) return r;
  if (width > max_collector_dlaplace_width)
    return "dlaplace: hi − lo = " + std::to_string(width) + " is above the collector's limit " +
           std::to_string(max_collector_dlaplace_width) + " (its estimator inverts the (W+1)² noise matrix)";
  if (c.sensitivity > width)
    return "sensitivity must be 1 … hi − lo = " + std::to_string(width) + " (got " +
           std::to_string(c.sensitivity) + ")";
  return {};
}

Status RrModel::configure(const MechanismConfig& c, RrModel& out, MechanismConfig& normalized) {
  const Status s = BinaryRr::configure(c.epsilon, out.core, c.precision);
  normalized.domain = 2;
  return s;
}

Status KrrModel::configure(const MechanismConfig& c, KrrModel& out, MechanismConfig&) {
  return KaryRr::configure(c.epsilon, c.domain, out.core, c.precision);
}

Status UeModel::configure(const MechanismConfig& c, UeModel& out, MechanismConfig&) {
  return c.id == MechanismId::sue
             ? UnaryEncoding::configure_sue(c.epsilon, c.domain, out.core, c.precision)
             : UnaryEncoding::configure_oue(c.epsilon, c.domain, out.core, c.precision);
}

Status LhModel::configure(const MechanismConfig& c, LhModel& out, MechanismConfig&) {
  const Status s = c.id == MechanismId::blh
                       ? LocalHashing::configure_blh(c.epsilon, c.domain, out.core, c.precision)
                       : LocalHashing::configure_olh(c.epsilon, c.domain, out.core, c.precision);
  if (s != Status::ok) return s;
  out.hash_keys = local_hash_keys(c.domain);
  return s;
}

namespace {
bool is_probability(Dyadic x) { return x.bits <= 64 && (x.bits == 64 || x.num <= (std::uint64_t{1} << x.bits)); }
double as_double(Dyadic x) { return std::ldexp(static_cast<double>(x.num), -static_cast<int>(x.bits)); }
std::string as_text(Dyadic x) { return fraction(x.num, x.bits); }
}  // namespace

std::string check_memo_epsilons(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (c.prr_f != Dyadic{} || c.irr_p != Dyadic{} || c.irr_q != Dyadic{})
    return "f, p and q are rappor's parameters; " + name + " takes epsilon (ε∞) and epsilon-one (ε₁)";
  if (c.epsilon_one.q32 == 0)
    return name + " needs epsilon-one: the ε₁ of one report (epsilon is ε∞, of the memo)";
  if (!(c.epsilon_one < c.epsilon))
    return name + "'s epsilon-one (ε₁ of one report) must be below epsilon (ε∞ of the memo)";
  return {};
}

std::string TwoStageModel::check_parameters(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (std::string r = check_categories(c); !r.empty()) return r;
  if (c.domain > TwoStageRr::max_bits)
    return name + "'s domain is at most " + std::to_string(TwoStageRr::max_bits) + " (got " +
           std::to_string(c.domain) + ")";
  if (c.bloom() || c.bloom_cohorts != 0) {
    if (c.bloom_hashes < 1 || c.bloom_hashes > TwoStageRr::max_hashes)
      return "a Bloom filter's hashes must be 1 … " + std::to_string(TwoStageRr::max_hashes) + " (got " +
             std::to_string(c.bloom_hashes) + ")";
    if (c.bloom_cohorts < 1 || c.bloom_cohorts > TwoStageRr::max_cohorts)
      return "a Bloom filter's cohorts must be 1 … " + std::to_string(TwoStageRr::max_cohorts) + " (got " +
             std::to_string(c.bloom_cohorts) + ")";
    if (std::uint64_t{c.bloom_cohorts} * (c.domain + 1) > max_collector_domain)
      return "cohorts x (bloom bits + 1) = " + std::to_string(std::uint64_t{c.bloom_cohorts} * (c.domain + 1)) +
             " counts is above the collector's limit " + std::to_string(max_collector_domain);
  }
  if (c.id == MechanismId::two_stage) return check_rappor_probabilities(c);
  return check_memo_epsilons(c);
}

std::string check_rappor_probabilities(const MechanismConfig& c) {
  const std::string name = name_of(c.id);
  if (c.epsilon.q32 != 0 || c.epsilon_one.q32 != 0)
    return name + " is configured by f, p and q (its epsilons follow from them), not by epsilon";
  if (c.prr_f.num == 0 || !is_probability(c.prr_f) || as_double(c.prr_f) >= 1)
    return name + "'s f (the permanent flip probability) must be in (0, 1) (got " + as_text(c.prr_f) + ")";
  if (!is_probability(c.irr_q) || !is_probability(c.irr_p) || !(as_double(c.irr_p) < as_double(c.irr_q)))
    return name + "'s p must be below q, both in [0, 1] (got p = " + as_text(c.irr_p) + ", q = " + as_text(c.irr_q) +
           ")";
  return {};
}

Status TwoStageModel::configure(const MechanismConfig& c, TwoStageModel& out, MechanismConfig&) {
  const auto e = c.bloom() ? TwoStageRr::bloom(c.domain, c.bloom_hashes, c.bloom_cohorts)
                           : TwoStageRr::one_hot(c.domain);
  switch (c.id) {
    case MechanismId::two_stage: return TwoStageRr::configure_rappor(c.prr_f, c.irr_p, c.irr_q, e, out.core);
    case MechanismId::l_sue: return TwoStageRr::configure_chain(UeStage::sue, UeStage::sue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_osue: return TwoStageRr::configure_chain(UeStage::oue, UeStage::sue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_oue: return TwoStageRr::configure_chain(UeStage::oue, UeStage::oue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    case MechanismId::l_soue: return TwoStageRr::configure_chain(UeStage::sue, UeStage::oue, c.epsilon, c.epsilon_one, e, out.core, c.precision);
    default: return Status::bad_parameter;
  }
}

Channel TwoStageModel::channel() const {
  const double p1 = as_double(core.p1()), q1 = as_double(core.q1());
  const double p2 = as_double(core.p2()), q2 = as_double(core.q2());
  return {p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2};
}

std::optional<MemoCovariance> TwoStageModel::memo_covariance() const {
  if (bloom()) return std::nullopt;  // a value sets h bits: its supports are not one bit's
  return MemoCovariance{as_double(core.p1()), as_double(core.q1()), as_double(core.p2()), as_double(core.q2()), 0};
}

std::string TwoStageModel::fractions() const {
  return "memo: p1 = " + as_text(core.p1()) + ", q1 = " + as_text(core.q1()) + "; report: p2 = " +
         as_text(core.p2()) + ", q2 = " + as_text(core.q2());
}

std::vector<PayloadField> TwoStageModel::fields(std::span<const std::uint8_t> payload) const {
  std::vector<std::uint32_t> set;
  for (std::uint32_t i = 0; i < core.bits(); ++i)
    if ((payload[i / 8] >> (i % 8)) & 1u) set.push_back(i);
  return {{"bits_set", std::move(set)}};
}

Status HrModel::configure(const MechanismConfig& c, HrModel& out, MechanismConfig&) {
  return HadamardResponse::configure(c.epsilon, c.domain, out.core, c.precision);
}

Status SdModel::configure(const MechanismConfig& c, SdModel& out, MechanismConfig& normalized) {
  const unsigned bits =
      c.noise_bits == 0 ? StochasticDiscretization::default_rounding_bits : c.noise_bits;
  const std::uint32_t levels = c.levels == 0 ? 2 : c.levels;  // 0: binary (L = 2)
  const Status s = StochasticDiscretization::configure(c.epsilon, c.lo, c.hi, levels, out.core,
                                                       c.precision, bits);
  if (s != Status::ok) return s;
  if (c.domain != 0 && c.domain != out.core.levels()) return Status::bad_parameter;
  normalized.domain = out.core.levels();
  normalized.levels = levels;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.sensitivity = 0;
  return Status::ok;
}

Status DlaplaceModel::configure(const MechanismConfig& c, DlaplaceModel& out,
                                MechanismConfig& normalized) {
  if (c.hi <= c.lo) return Status::bad_parameter;
  const std::uint64_t width = static_cast<std::uint64_t>(std::int64_t{c.hi} - c.lo);
  if (width > max_collector_dlaplace_width) return Status::bad_parameter;
  const std::uint32_t sensitivity =
      c.sensitivity == 0 ? static_cast<std::uint32_t>(width) : c.sensitivity;
  // noise_bits 0: the fewest bits that keep the realized ε within 1e-6 of the request.
  auto weights = std::make_shared<std::vector<std::uint64_t>>(DiscreteLaplace::table_entries(c.lo, c.hi));
  const Status s =
      c.noise_bits == 0
          ? DiscreteLaplace::configure_fewest_bits(c.epsilon, c.lo, c.hi, sensitivity,
                                                   weights->data(), weights->size(), out.core)
          : DiscreteLaplace::configure(c.epsilon, c.lo, c.hi, sensitivity, weights->data(),
                                       weights->size(), out.core, c.noise_bits);
  if (s != Status::ok) return s;
  const unsigned bits = out.core.random_bits_per_report();
  if (c.domain != 0 && c.domain != width + 1) return Status::bad_parameter;
  normalized.domain = static_cast<std::uint32_t>(width + 1);
  normalized.sensitivity = sensitivity;
  normalized.noise_bits = static_cast<std::uint8_t>(bits);
  normalized.levels = 0;
  out.weights = std::move(weights);
  return Status::ok;
}

Status SheModel::configure(const MechanismConfig& c, SheModel& out, MechanismConfig&) {
  // The default truncation and the fewest noise bits: SHE is configured from (ε, d) alone.
  const std::uint32_t t = SummationHistogram::default_truncation(c.epsilon);
  auto weights = std::make_shared<std::vector<std::uint64_t>>(SummationHistogram::table_entries(t));
  const Status s = SummationHistogram::configure(c.epsilon, c.domain, weights->data(), weights->size(),
                                                 out.core, t);
  if (s != Status::ok) return s;
  out.weights = std::move(weights);
  return Status::ok;
}

Status TheModel::configure(const MechanismConfig& c, TheModel& out, MechanismConfig&) {
  return ThresholdHistogram::configure(c.epsilon, c.domain, out.core, c.precision);
}

// --- Mechanism: dispatch to the model -----------------------------------------------------

ConfigureResult Mechanism::configure(const MechanismConfig& config, Mechanism& out) {
  const MechanismRow* row = find_mechanism(config.id);
  if (row == nullptr || row->configure == nullptr)
    return {Status::bad_parameter, "mechanism id " + std::to_string(static_cast<unsigned>(config.id)) +
                                       " is not one the collector configures (" + mechanism_names() + ")"};
  return row->configure(config, out);
}

std::optional<Mechanism> Mechanism::from_stored(const MechanismConfig& config,
                                                std::uint64_t digest, const std::string& what,
                                                std::string& error) {
  Mechanism m;
  if (const ConfigureResult r = configure(config, m); !r) {
    error = what + " describes an invalid mechanism: " + r.reason;
    return std::nullopt;
  }
  if (m.description().digest != digest) {
    error = what + ": the parameter digest does not match its configuration";
    return std::nullopt;
  }
  if (const std::string d = config_difference(config, m.config()); !d.empty()) {
    error = what + " is not canonical: " + d;
    return std::nullopt;
  }
  return m;
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
  return std::visit([&](const auto& m) { return m.item_value(item); }, model_);
}

Epsilon Mechanism::local_epsilon() const {
  return std::visit(
      [](const auto& m) {
        if constexpr (requires { m.local_epsilon(); })
          return m.local_epsilon();
        else
          return m.core.realized_epsilon();
      },
      model_);
}

std::vector<Mechanism::Parameter> Mechanism::parameters() const {
  if (bloom())
    return {{"bloom_bits", config_.domain}, {"hashes", config_.bloom_hashes}, {"cohorts", config_.bloom_cohorts}};
  if (record()) return {{"attributes", static_cast<std::int64_t>(config_.attribute_sizes.size())}};
  if (!numeric()) return {{"domain", domain_}};
  std::vector<Parameter> p = {{"lo", config_.lo}, {"hi", config_.hi}};
  if (takes_levels()) p.push_back({"levels", config_.levels});
  if (takes_sensitivity()) p.push_back({"sensitivity", config_.sensitivity});
  if (takes_grid_step()) p.push_back({"grid_step", config_.grid_step});
  if (takes_sampled()) p.push_back({"sampled_buckets", config_.sampled});
  return p;
}

namespace {
template <class Trait>
bool model_trait(const auto& model, Trait trait) {
  return std::visit([&](const auto& m) { return trait(m); }, model);
}
}  // namespace

bool Mechanism::takes_levels() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::takes_levels; });
}
bool Mechanism::takes_sensitivity() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::takes_sensitivity; });
}
bool Mechanism::takes_grid_step() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::takes_grid_step; });
}
bool Mechanism::takes_sampled() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::takes_sampled; });
}
bool Mechanism::integer_items() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::integer_items; });
}
bool Mechanism::deconvolved() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::deconvolved; });
}

std::vector<std::pair<std::uint32_t, double>> Mechanism::item_weights(std::int64_t value) const {
  return std::visit(
      [&](const auto& m) -> std::vector<std::pair<std::uint32_t, double>> {
        if constexpr (requires { m.item_weights(value); })
          return m.item_weights(value);
        else  // items are consecutive integers from item_value(0)
          return {{static_cast<std::uint32_t>(value - static_cast<std::int64_t>(m.item_value(0))), 1.0}};
      },
      model_);
}
bool Mechanism::record() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::record; });
}
bool Mechanism::memoized() const {
  return model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::memoized; });
}

std::optional<Epsilon> Mechanism::epsilon_infinity() const {
  return std::visit(
      [](const auto& m) -> std::optional<Epsilon> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.core.epsilon_infinity();
        else
          return std::nullopt;
      },
      model_);
}

std::optional<std::uint32_t> Mechanism::most_memos() const {
  return std::visit(
      [](const auto& m) -> std::optional<std::uint32_t> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.most_memos();
        else
          return std::nullopt;
      },
      model_);
}

std::optional<MemoCovariance> Mechanism::memo_covariance() const {
  return std::visit(
      [](const auto& m) -> std::optional<MemoCovariance> {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return m.memo_covariance();
        else
          return std::nullopt;
      },
      model_);
}

const char* Mechanism::memos_of() const {
  return std::visit(
      [](const auto& m) -> const char* {
        if constexpr (std::decay_t<decltype(m)>::memoized)
          return std::decay_t<decltype(m)>::memos_of;
        else
          return "";
      },
      model_);
}

Epsilon Mechanism::realized_epsilon() const {
  return std::visit([](const auto& m) { return m.core.realized_epsilon(); }, model_);
}

std::uint64_t Mechanism::random_bits_per_report() const {
  return std::visit([](const auto& m) { return std::uint64_t{m.core.random_bits_per_report()}; },
                    model_);
}

std::string Mechanism::probabilities_as_fractions() const {
  return std::visit([](const auto& m) { return m.fractions(); }, model_);
}

std::uint64_t Mechanism::max_support_per_report() const {
  return std::visit([](const auto& m) { return m.max_support_per_report(); }, model_);
}

ParseError Mechanism::count_bloom(std::optional<std::uint32_t> cohort, std::span<const std::uint8_t> payload,
                                  std::span<std::uint64_t> support) const {
  const auto* model = std::get_if<TwoStageModel>(&model_);
  if (model == nullptr || !model->bloom()) return ParseError::wrong_mechanism;
  if (!cohort) return ParseError::missing_cohort;
  if (*cohort >= config_.bloom_cohorts) return ParseError::value_out_of_range;
  const ParseError content = check_payload(payload);
  if (content != ParseError::none) return content;
  model->add_bloom_support(*cohort, payload, support);
  return ParseError::none;
}

bool Mechanism::uses_bit_columns() const {
  return !config_.bloom() && model_trait(model_, [](const auto& m) { return std::decay_t<decltype(m)>::bit_columns; });
}

namespace {
template <class Model>
concept SingleItem = requires(const Model& m, std::span<const std::uint8_t> p) { m.item(p); };
}  // namespace

ParseError Mechanism::check_payload(std::span<const std::uint8_t> payload) const {
  return std::visit(
      [&](const auto& m) {
        if constexpr (SingleItem<std::decay_t<decltype(m)>>)
          return m.item(payload) ? ParseError::none : ParseError::value_out_of_range;
        else
          return m.check(payload);
      },
      model_);
}

void Mechanism::add_support(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  std::visit(
      [&](const auto& m) {
        if constexpr (SingleItem<std::decay_t<decltype(m)>>) {
          if (const auto i = m.item(payload)) support[*i] += 1;
        } else {
          m.add_support(payload, support);
        }
      },
      model_);
}

ParseError Mechanism::count(std::span<const std::uint8_t> payload,
                            std::span<std::uint64_t> support) const {
  return std::visit(
      [&](const auto& m) {
        using Model = std::decay_t<decltype(m)>;
        if constexpr (SingleItem<Model>) {
          const auto i = m.item(payload);
          if (!i) return ParseError::value_out_of_range;
          support[*i] += 1;
          return ParseError::none;
        } else if constexpr (requires { m.count(payload, support); }) {
          return m.count(payload, support);
        } else {
          const ParseError e = m.check(payload);
          if (e == ParseError::none) m.add_support(payload, support);
          return e;
        }
      },
      model_);
}

std::vector<PayloadField> Mechanism::payload_fields(std::span<const std::uint8_t> payload) const {
  return std::visit([&](const auto& m) { return m.fields(payload); }, model_);
}

// --- The models' support counting and descriptions ----------------------------------------

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
    const std::uint32_t x = local_hash_mix(keys[i] ^ seed);
    support[i] += (x - lo) < width ? 1u : 0u;
  }
}

}  // namespace

std::vector<std::uint32_t> local_hash_keys(std::uint32_t d) {
  std::vector<std::uint32_t> keys(d);
  for (std::uint32_t i = 0; i < d; ++i) keys[i] = local_hash_key(i);
  return keys;
}

void count_local_hash_support(const std::vector<std::uint32_t>& keys, std::uint32_t range,
                              const LocalHashingReport& r, std::span<std::uint64_t> support) {
  // H(s, i) = y  ⇔  the mixed word falls in [⌈y·2^32/g⌉, ⌈(y+1)·2^32/g⌉): one 32-bit range
  // test per item instead of a 64-bit multiply, so the loop vectorizes.
  const std::uint64_t g = range;
  const auto lo = static_cast<std::uint32_t>(((std::uint64_t{r.value} << 32) + g - 1) / g);
  const auto width =
      static_cast<std::uint32_t>((((std::uint64_t{r.value} + 1) << 32) + g - 1) / g - lo);
  count_hash_matches(keys.data(), static_cast<std::uint32_t>(keys.size()), r.seed, lo, width, support.data());
}

std::string RrModel::fractions() const {
  const Dyadic p = core.keep_probability();
  return "p = " + fraction(p.num, p.bits) + ", q = 1 - p";
}

std::string KrrModel::fractions() const {
  const Dyadic q = core.other_probability();
  return "p = " + fraction(core.keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits);
}

std::string UeModel::fractions() const {
  return "p = " + fraction(core.p().num, core.p().bits) + ", q = " +
         fraction(core.q().num, core.q().bits);
}

std::vector<PayloadField> UeModel::fields(std::span<const std::uint8_t> payload) const {
  std::vector<std::uint32_t> set;
  for (std::uint32_t i = 0; i < core.domain(); ++i)
    if ((payload[i / 8] >> (i % 8)) & 1u) set.push_back(i);
  return {{"bits_set", std::move(set)}};
}

std::string LhModel::fractions() const {
  const Dyadic q = core.randomizer().other_probability();
  return "g = " + std::to_string(core.range()) + ", p = " +
         fraction(core.randomizer().keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits) +
         " (k-RR over the g hash values)";
}

std::string HrModel::fractions() const {
  const Dyadic p = core.randomizer().keep_probability();
  return "K = " + std::to_string(1u << core.row_bits()) + ", p = " + fraction(p.num, p.bits) +
         " (binary RR of the Hadamard bit)";
}

std::string SdModel::fractions() const {
  const Dyadic q = core.randomizer().other_probability();
  return "L = " + std::to_string(core.levels()) + ", p = " +
         fraction(core.randomizer().keep_numerator(), q.bits) + ", q = " + fraction(q.num, q.bits) +
         " (k-RR over the levels), rounding with " + std::to_string(core.rounding_bits()) + " bits";
}

std::string DlaplaceModel::fractions() const {
  const unsigned b = core.random_bits_per_report();
  const auto w = static_cast<std::uint32_t>(std::int64_t{core.high()} - core.low());
  return "w(0) = " + fraction(core.weight(0), b) +
         (w > 1 ? ", w(1) = " + fraction(core.weight(1), b) : std::string()) + ", ends " +
         fraction(core.tail_low(), b) + " and " + fraction(core.tail_high(), b) +
         " (Pr[noise = z] = w(|z|), |z| < " + std::to_string(w) + ")";
}

Channel SheModel::channel() const {
  // Moments of one component's support y + T given x, exactly from the weights (2^-B each).
  const auto t = static_cast<std::int32_t>(core.truncation());
  const unsigned b = core.noise_bits();
  double mean[2] = {0, 0}, variance[2] = {0, 0};
  const auto pr = [&](std::uint32_t x, std::int32_t y) {
    return std::ldexp(static_cast<double>(core.probability(x, y)), -static_cast<int>(b));
  };
  for (std::uint32_t x = 0; x < 2; ++x) {
    for (std::int32_t y = -t; y <= t + 1; ++y) mean[x] += pr(x, y) * static_cast<double>(y + t);
    for (std::int32_t y = -t; y <= t + 1; ++y)
      variance[x] += pr(x, y) * (static_cast<double>(y + t) - mean[x]) * (static_cast<double>(y + t) - mean[x]);
  }
  return {mean[1], mean[0], variance[1], variance[0]};
}

std::string SheModel::fractions() const {
  const unsigned b = core.noise_bits();
  return "T = " + std::to_string(core.truncation()) + ", w(0) = " + fraction(core.noise().weight(0), b) +
         ", w(1) = " + fraction(core.noise().weight(1), b) + " (each component: discrete Laplace on [-T, T+1] at " +
         "epsilon/2, Pr[noise = z] = w(|z|))";
}

std::string TheModel::fractions() const {
  return "theta = " + std::to_string(core.theta_numerator()) + "/64, p = " + fraction(core.p().num, core.p().bits) +
         ", q = " + fraction(core.q().num, core.q().bits);
}

}  // namespace tinyldp::collector
