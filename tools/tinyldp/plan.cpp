// SPDX-License-Identifier: Apache-2.0
// tinyldp plan: the realized probabilities and ε of a configuration, the accuracy it gives at
// n reports, and the n or ε a target accuracy needs — before any device is deployed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "epsilon_text.hpp"
#include "tinyldp/collector/change_exposure.hpp"
#include "tinyldp/collector/estimates.hpp"
#include "tinyldp/collector/numeric_estimate.hpp"
#include "tinyldp/square_wave.hpp"

namespace tinyldp::tools {
namespace {

using collector::Mechanism;

struct PlanOptions {
  MechanismOptions mechanism;
  std::uint64_t n = 10000;
  std::optional<double> target_se;
  std::optional<std::uint32_t> group;
  std::uint32_t rounds = 1;
  double change_prob = 0;
  double delta = default_shuffle_delta;  // the shuffled batch of n reports' central δ
  bool json = false, compare = false;
  // Without --mechanism: the recommendation's inputs.
  std::optional<std::string> kind;  // categorical | numeric (default: numeric when --lo/--hi are given)
  std::optional<std::uint64_t> max_report_bytes, max_flash, max_ram;
  std::string target = "cortex-m0";
  bool explain = false;
  // Numeric: what the user asks of the values — the mean (by its SE), quantiles and ranges (by
  // the SE of the CDF at the middle value, collector::median_cdf_standard_error) or the
  // distribution (by the expected W1 of its CDF, collector::expected_distribution_w1).
  std::string goal = "mean";
};

// One measured program of bench/footprint's device list, by the wire id of its mechanism
// (footprint_figures.inc, generated from docs/footprint.md by scripts/plan-footprint-table).
struct FootprintFigure {
  std::uint8_t wire_id;
  const char* program;  // the device list's row: the wire enumerator
  const char* target;
  std::uint32_t flash, stack;
};
#include "footprint_figures.inc"

// One measured whole report (privatize with the ChaCha20 DRBG as the source) of the device
// list's configuration of a mechanism, at the default precision and at an ε tolerance of 10⁻³:
// instructions and DRBG bytes per report (target_cost_figures.inc, generated from
// docs/target-costs.md by scripts/plan-target-cost-table). No coarse row: both pairs equal.
struct TargetCostFigure {
  std::uint8_t wire_id;
  const char* row;
  std::uint32_t d;
  const char* target;
  double instructions, drbg_bytes, coarse_instructions, coarse_drbg_bytes;
};
#include "target_cost_figures.inc"

constexpr const char* cost_targets[] = {"cortex-m0", "cortex-m3", "cortex-m4f", "rv32imac"};

// The instructions of a whole report of m's mechanism on `target` drawing `bytes` random bytes:
// the line through the two measured precisions of the device list's configuration nearest m's
// size (instructions = a + b · DRBG bytes: the DRBG and the per-draw work scale with the bytes, the
// rest does not). An estimate for another size or precision; nullopt when nothing is measured.
std::optional<double> whole_report_instructions(const Mechanism& m, const std::string& target, double bytes) {
  const TargetCostFigure* best = nullptr;
  const auto distance = [&](const TargetCostFigure& f) {
    return std::abs(std::log(static_cast<double>(f.d)) - std::log(static_cast<double>(std::max<std::uint32_t>(m.domain(), 1))));
  };
  for (const auto& f : target_cost_figures)
    if (f.wire_id == static_cast<std::uint8_t>(m.config().id) && f.target == target &&
        (best == nullptr || distance(f) < distance(*best)))
      best = &f;
  if (best == nullptr) return std::nullopt;
  if (best->drbg_bytes == best->coarse_drbg_bytes) return best->instructions;
  const double slope = (best->instructions - best->coarse_instructions) / (best->drbg_bytes - best->coarse_drbg_bytes);
  return std::max(best->instructions + slope * (bytes - best->drbg_bytes), 0.0);
}

// A mechanism's program (privatize + wire encode + send) at the device list's configuration.
std::optional<FootprintFigure> footprint_of(wire::MechanismId id, const std::string& target) {
  for (const auto& f : footprint_figures)
    if (f.wire_id == static_cast<std::uint8_t>(id) && f.target == target) return f;
  return std::nullopt;
}

// Over `rounds` reports per device whose value changes before each later round with
// probability c (to a value not memoized before, the worst case): the expected number of
// distinct memoized values, 1 + (rounds − 1)·c.
double expected_memos(std::uint32_t rounds, double c) { return 1 + (rounds - 1) * c; }

// Categorical: Var of one report's contribution to a frequency, for an item nobody holds.
// Numeric: Var of one report's mean score for the worst data (in squared value units).
double per_report_variance(const Mechanism& m) {
  if (m.numeric()) return collector::worst_case_score_variance(collector::numeric_model(m));
  return collector::count_variance(1, 0, m.channel());
}

// The smallest ε (on a 2^-18·max grid) whose mechanism reaches the target SE at n reports, or
// nullopt when even ε = 20 does not.
std::optional<double> epsilon_for_target(const Mechanism& m, double target_se, std::uint64_t n) {
  auto se_at = [&](std::uint64_t q) -> double {
    Mechanism t;
    collector::MechanismConfig c = m.config();
    c.epsilon = Epsilon::from_q32(q);
    if (!Mechanism::configure(c, t)) return INFINITY;
    return std::sqrt(per_report_variance(t) / static_cast<double>(n));
  };
  std::uint64_t lo = 0, hi = max_epsilon.q32;
  if (se_at(hi) > target_se) return std::nullopt;
  while (hi - lo > (max_epsilon.q32 >> 18)) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (se_at(mid) <= target_se ? hi : lo) = mid;
  }
  return as_double(Epsilon::from_q32(hi));
}

// Issue #32: the precision's trade for m — the same configuration at a few ε tolerances (the
// default 2^-21, 10⁻⁴, 10⁻³, 10⁻²; none at or above ε): the realized ε, the variance of one
// report against the default precision's, the random bytes per report and the estimated
// instructions of a whole report with the DRBG on each measured target. Empty when m's
// mechanism takes no precision.
Json precision_trade(const Mechanism& m) {
  Json rows = Json::array();
  if (!collector::find_mechanism(m.config().id)->traits.takes_precision) return rows;
  collector::MechanismConfig base_config = m.config();
  base_config.precision = Precision{};
  Mechanism base;
  if (!Mechanism::configure(base_config, base)) return rows;
  const double base_variance = per_report_variance(base);
  constexpr std::uint64_t tolerances[] = {Precision{}.tolerance_q32, 429497, 4294967, 42949673};
  const Epsilon smallest = m.memoized() && m.config().epsilon_one.q32 != 0 ? m.config().epsilon_one : m.config().epsilon;
  for (const std::uint64_t tolerance : tolerances) {
    if (tolerance >= smallest.q32) continue;
    collector::MechanismConfig c = base_config;
    c.precision = Precision{m.config().precision.max_bits, tolerance};
    Mechanism t;
    if (!Mechanism::configure(c, t)) continue;
    Json row;
    row["epsilon_tolerance"] = as_double(Epsilon{tolerance});
    row["realized_epsilon"] = as_double(t.realized_epsilon());
    row["variance_ratio"] = per_report_variance(t) / base_variance;
    const double bytes = static_cast<double>(t.random_bits_per_report()) / 8;
    row["random_bytes_per_report"] = bytes;
    Json instructions;
    for (const char* target : cost_targets) {
      const auto count = whole_report_instructions(t, target, bytes);
      instructions[target] = count ? Json(*count) : Json(nullptr);
    }
    row["whole_report_instructions"] = instructions;
    rows.push_back(row);
  }
  return rows;
}

void print_precision_trade(const Json& rows) {
  if (rows.empty()) return;
  std::cout << "\nprecision (--epsilon-tolerance): the same configuration with fewer random bits per draw\n";
  std::printf("%-10s %12s %10s %12s %10s %10s %10s %10s\n", "tolerance", "realized", "variance", "random B",
              "M0 instr", "M3 instr", "M4F instr", "RV32 instr");
  for (const auto& r : rows) {
    std::printf("%-10.3g %12.7f %10.5f %12.1f", r["epsilon_tolerance"].get<double>(), r["realized_epsilon"].get<double>(),
                r["variance_ratio"].get<double>(), r["random_bytes_per_report"].get<double>());
    for (const char* target : cost_targets) {
      const Json& v = r["whole_report_instructions"][target];
      if (v.is_null())
        std::printf(" %10s", "—");
      else
        std::printf(" %10.0f", v.get<double>());
    }
    std::printf("\n");
  }
  std::cout << "variance: one report's, against the default precision's (its realized epsilon within 2^-21 of the request);\n"
               "instr: a whole report with the ChaCha20 DRBG, estimated from the two measured precisions of the\n"
               "device list's configuration (docs/target-costs.md, \"Whole reports\"; commit "
            << target_cost_commit << ")\n";
}

void print_text(const PlanOptions& o, const Mechanism& m, const Json& j, Epsilon eps, bool exact) {
  const collector::MechanismConfig& c = m.config();
  const double se = j[m.numeric() ? "mean_standard_error" : "frequency_standard_error"].get<double>();
  std::cout.precision(10);
  std::cout << "mechanism           " << o.mechanism.mechanism;
  const std::string range = "[" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "]";
  if (m.takes_levels())
    std::cout << " over " << range << ", " << c.levels << (m.mean_only() ? " cells (the mean only)\n" : " levels\n");
  else if (m.takes_sensitivity())
    std::cout << " over " << range << " (" << m.domain() << " values), sensitivity " << c.sensitivity << "\n";
  else if (m.takes_sampled())
    std::cout << " over " << range << ", grid step " << c.grid_step << " (" << m.domain() << " buckets, "
              << c.sampled << " sampled per device)\n";
  else if (m.takes_grid_step())
    std::cout << " over " << range << ", grid step " << c.grid_step << " (" << *m.most_memos() << " grid points)\n";
  else if (m.numeric())  // hh (a tree of branching B), haar-hrr: one row per value
    std::cout << " over " << range << " (" << m.atoms() << " values"
              << (m.takes_branching() ? ", branching " + std::to_string(c.branching) : std::string()) << ")\n";
  else
    std::cout << " over " << m.domain() << " items\n";
  if (eps.q32 != 0)
    std::cout << "requested epsilon   " << to_decimal(eps)
              << (exact ? "" : "  (" + o.mechanism.epsilon + " rounded down to a multiple of 2^-32)")
              << (m.memoized() ? "  (ε∞, of every report of one value)" : "") << "\n";
  std::cout << "realized epsilon    " << as_double(m.realized_epsilon()) << "  (= "
            << m.realized_epsilon().q32 << " / 2^32, from the integers below"
            << (m.takes_sensitivity() ? "; inputs at most the sensitivity apart" : "")
            << (m.memoized() ? "; ε₁, one report" : "") << ")\n";
  if (m.memoized()) {
    const double expected = j["expected_memos"].get<double>();
    const auto most = j["most_memos"].get<std::uint32_t>();
    std::cout << "epsilon infinity    " << j["epsilon_infinity"].get<double>()
              << "  (every report of one value, however many: the memo's loss)\n"
              << "budget over " << o.rounds << " rounds " << j["budget_memoized"].get<double>() << "  (ε∞ × ";
    if (most < expected)
      std::cout << most << ": a device holds at most " << most << " memos, one per " << m.memos_of()
                << ", however many of its " << expected << " expected distinct values change";
    else
      std::cout << expected << " expected distinct values";
    std::cout << " at change probability " << o.change_prob << "; without the memo, ε₁ × rounds = "
              << j["budget_without_memo"].get<double>() << ")\n";
  }
  if (m.takes_sensitivity())
    std::cout << "local epsilon       " << as_double(m.local_epsilon())
              << "  (any two inputs of the range: the local-DP guarantee)\n";
  std::cout << "probabilities       " << m.probabilities_as_fractions() << "\n"
            << "random bits/report  " << m.random_bits_per_report() << "\n"
            << "report size         " << m.description().report_bytes(0) << " bytes\n";
  std::cout.precision(4);
  if (m.numeric()) {
    std::cout << "mean SE             " << se << " at n = " << o.n << " (the noise's, at the worst value)\n";
    if (j.contains("frequency_standard_error"))
      std::cout << "level frequency SE  " << j["frequency_standard_error"].get<double>() << " at n = " << o.n
                << "\n";
  } else {
    std::cout << "frequency SE        " << se << " at n = " << o.n << "\n";
  }
  if (o.target_se) {
    std::cout << "n for SE " << *o.target_se << "     " << j["n_for_target_se"] << "\n";
    if (j["epsilon_for_target_se"].is_null())
      std::cout << "epsilon for SE " << *o.target_se << " at n = " << o.n << ": not reachable (epsilon ≤ 20)\n";
    else
      std::cout << "epsilon for SE " << *o.target_se << " at n = " << o.n << ": "
                << j["epsilon_for_target_se"].get<double>() << "\n";
  }
  std::cout.precision(10);
  if (o.group)
    std::cout << "group of " << *o.group << "         epsilon " << *o.group << " x "
              << as_double(m.realized_epsilon()) << " = " << j["group_epsilon"].get<double>() << "\n";
  print_shuffled_batch(std::cout, j["shuffled_batch"], "");
  if (j.contains("precision_trade")) print_precision_trade(j["precision_trade"]);
}

// A record of several attributes: what one report and (memoized) every report of a record
// cost, exactly; its estimates' accuracy is `multi`'s and `joint`'s (their plan has the table).
int plan_record(const Mechanism& m, const PlanOptions& o) {
  const bool memo = m.memoized();
  const char* tool = memo ? "joint" : "multi";
  if (o.json) {
    Json j;
    j["mechanism"] = o.mechanism.mechanism;
    j["attribute_sizes"] = m.config().attribute_sizes;
    j["epsilon_one"] = as_double(m.local_epsilon());
    j["epsilon_one_q32"] = m.local_epsilon().q32;
    if (memo) j["epsilon_infinity"] = as_double(*m.epsilon_infinity());
    j["report_bytes"] = m.description().report_bytes(0);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << describe(m) << "\n"
            << "epsilon one report  " << to_decimal(m.local_epsilon(), 6) << "  (any two records)\n";
  if (memo)
    std::cout << "epsilon infinity    " << to_decimal(*m.epsilon_infinity(), 6)
              << "  (every report of one record: the memo makes them dependent)\n";
  else
    std::cout << "no memo: every report spends its epsilon again\n";
  std::cout << "report size         " << m.description().report_bytes(0) << " bytes\n"
            << "per attribute and per protocol: tinyldp " << tool << " plan; estimates: tinyldp " << tool << "\n";
  return 0;
}

// --compare: every categorical memoized protocol configured by ε∞ and ε₁, side by side.
int compare(const PlanOptions& o);
// Without --mechanism: the mechanisms of the kind, ranked by expected error.
int recommend(const PlanOptions& o);

int run(const PlanOptions& o) {
  if (o.compare) return compare(o);
  if (o.mechanism.mechanism.empty()) return recommend(o);
  if (o.kind || o.max_report_bytes || o.max_flash || o.max_ram || o.explain || o.goal != "mean")
    throw BadInput("--kind, --max-report-bytes, --max-flash, --max-ram, --explain and --for are for the "
                   "recommendation (plan without --mechanism)");
  bool exact = false;
  const Epsilon eps = epsilon_option(o.mechanism, &exact);
  const Mechanism m = configure(o.mechanism, eps, 2);  // categorical: 2 categories by default
  if (m.record()) return plan_record(m, o);
  const double v1 = per_report_variance(m);
  const double se = std::sqrt(v1 / static_cast<double>(o.n));
  Json j;
  j["mechanism"] = o.mechanism.mechanism;
  j["domain"] = m.domain();
  for (const auto& p : m.parameters())
    if (std::string_view(p.name) != "domain") j[p.name] = p.value;
  j["requested_epsilon"] = as_double(eps);
  j["realized_epsilon"] = as_double(m.realized_epsilon());
  j["realized_epsilon_q32"] = m.realized_epsilon().q32;
  if (m.takes_sensitivity()) j["local_epsilon"] = as_double(m.local_epsilon());
  j["probabilities"] = m.probabilities_as_fractions();
  j["random_bits_per_report"] = m.random_bits_per_report();
  j["report_bytes"] = m.description().report_bytes(0);
  j["n"] = o.n;
  j[m.numeric() ? "mean_standard_error" : "frequency_standard_error"] = se;
  if (m.numeric() && !m.deconvolved() && !m.mean_only())  // the item distribution through its (p, q) channel
    j["frequency_standard_error"] =
        std::sqrt(collector::count_variance(1, 0, m.channel()) / static_cast<double>(o.n));
  if (o.target_se) {
    if (!(*o.target_se > 0)) throw BadInput("--target-se must be positive");
    j["n_for_target_se"] = static_cast<std::uint64_t>(std::ceil(v1 / (*o.target_se * *o.target_se)));
    const auto e = epsilon_for_target(m, *o.target_se, o.n);
    j["epsilon_for_target_se"] = e ? Json(*e) : Json(nullptr);
  }
  if (o.group) j["group_epsilon"] = as_double(m.realized_epsilon()) * *o.group;
  // The local-DP loss of one report (memoized: ε₁), n of them shuffled.
  j["shuffled_batch"] = shuffled_batch_json(as_double(m.local_epsilon()), o.n, o.delta, m.memoized());
  if (Json trade = precision_trade(m); !trade.empty()) j["precision_trade"] = std::move(trade);
  if (m.memoized()) {
    const double inf = as_double(*m.epsilon_infinity());
    j["epsilon_one"] = as_double(m.local_epsilon());
    j["epsilon_infinity"] = inf;
    j["rounds"] = o.rounds;
    j["change_prob"] = o.change_prob;
    // At most most_memos() memos whatever the values do (LOLOHA: g, one per hashed value): the
    // budget is ε∞ × min(that, the expected distinct values) — an upper bound of the expected
    // budget, min being concave.
    const double expected = expected_memos(o.rounds, o.change_prob);
    j["expected_memos"] = expected;
    j["most_memos"] = *m.most_memos();
    j["memos_of"] = m.memos_of();
    j["budget_memoized"] = inf * std::min<double>(expected, *m.most_memos());
    j["budget_without_memo"] = as_double(m.local_epsilon()) * o.rounds;
  } else if (o.rounds > 1 || o.change_prob != 0) {
    throw BadInput("--rounds and --change-prob are for the memoized mechanisms; " + o.mechanism.mechanism +
                   " spends epsilon on every report (" + std::to_string(o.rounds) + " x epsilon)");
  }
  if (o.json)
    std::cout << j.dump(2) << "\n";
  else
    print_text(o, m, j, eps, exact);
  return 0;
}

int compare(const PlanOptions& o) {
  Json rows = Json::array();
  for (const auto& row : collector::mechanism_table()) {
    if (row.configure == nullptr || row.kind != collector::MechanismKind::categorical) continue;
    if (row.id == wire::MechanismId::rappor) continue;  // rappor: by f, p and q, not by ε∞ and ε₁
    collector::Mechanism probe;
    if (!collector::Mechanism::configure(row.example, probe) || !probe.memoized()) continue;
    MechanismOptions mo = o.mechanism;
    mo.mechanism = row.name;
    const Mechanism m = configure(mo, epsilon_option(mo), 2);
    const double inf = as_double(*m.epsilon_infinity());
    const double memos = std::min<double>(expected_memos(o.rounds, o.change_prob), *m.most_memos());
    Json j;
    j["mechanism"] = row.name;
    j["epsilon_one"] = as_double(m.local_epsilon());
    j["epsilon_infinity"] = inf;
    j["frequency_standard_error"] = std::sqrt(per_report_variance(m) / static_cast<double>(o.n));
    j["report_bytes"] = m.description().report_bytes(0);
    j["most_memos"] = *m.most_memos();
    j["budget_memoized"] = inf * memos;
    j["budget_without_memo"] = as_double(m.local_epsilon()) * o.rounds;
    // P(the memo changes | the value changes): what a collector with enough rounds can tell.
    j["change_exposure"] = collector::change_exposure(m).value_or(NAN);
    rows.push_back(j);
  }
  if (o.json) {
    std::cout << rows.dump(2) << "\n";
    return 0;
  }
  std::cout << "memoized protocols at epsilon (ε∞) " << o.mechanism.epsilon << ", epsilon-one (ε₁) "
            << o.mechanism.epsilon_one.value_or("?") << ", " << o.mechanism.domain.value_or(2) << " items, n = " << o.n
            << ", " << o.rounds << " rounds, change probability " << o.change_prob << "\n";
  std::printf("%-10s %8s %8s %14s %8s %12s %16s %10s\n", "protocol", "eps-1", "eps-inf", "SE per round", "bytes",
              "budget", "without memo", "exposure");
  for (const auto& j : rows)
    std::printf("%-10s %8.4f %8.4f %14.6f %8llu %12.2f %16.2f %10.3f\n", j["mechanism"].get<std::string>().c_str(),
                j["epsilon_one"].get<double>(), j["epsilon_infinity"].get<double>(),
                j["frequency_standard_error"].get<double>(),
                static_cast<unsigned long long>(j["report_bytes"].get<std::uint64_t>()),
                j["budget_memoized"].get<double>(), j["budget_without_memo"].get<double>(),
                j["change_exposure"].get<double>());
  std::cout << "budget: ε∞ × the distinct values a device is expected to memoize (at most its memo slots: "
               "LOLOHA g);\nexposure: P(a device's memo changes when its value changes) — what a collector "
               "with enough rounds\ncan tell (collector/change_exposure.hpp; the limit of "
               "tests/privacy/test_change_detection).\n";
  return 0;
}

int recommend(const PlanOptions& o) {
  if (o.mechanism.epsilon.empty())
    throw BadInput("plan without --mechanism recommends one: give --epsilon (with --epsilon-one for reports over "
                   "time: ε∞ and ε₁), the value kind (--kind, or --lo/--hi for numbers) and --domain or the range");
  const bool numeric_kind = o.kind ? *o.kind == "numeric" : (o.mechanism.lo || o.mechanism.hi);
  if (o.kind && *o.kind != "numeric" && *o.kind != "categorical")
    throw BadInput("--kind is categorical or numeric, not " + *o.kind);
  if (numeric_kind && (!o.mechanism.lo || !o.mechanism.hi))
    throw BadInput("numeric values: give their range, --lo and --hi");
  if (!numeric_kind && !o.mechanism.domain) throw BadInput("categorical values: give the number of categories, --domain");
  if (o.max_flash || o.max_ram) {
    bool known = false;
    for (const auto& f : footprint_figures) known = known || o.target == f.target;
    if (!known) throw BadInput("--target " + o.target + ": no measured figures (cortex-m0, cortex-m3, cortex-m4f, rv32imac)");
  }
  const bool over_time = o.mechanism.epsilon_one.has_value();
  const bool for_quantiles = o.goal == "quantiles", for_distribution = o.goal == "distribution";
  const bool needs_rows = for_quantiles || for_distribution;  // a distribution over the values' rows
  if (needs_rows && (!numeric_kind || over_time))
    throw BadInput("--for " + o.goal +
                   " ranks the numeric mechanisms of one report (give --lo/--hi, not --epsilon-one)");
  const auto kind = numeric_kind ? collector::MechanismKind::numeric : collector::MechanismKind::categorical;
  Json ranked = Json::array(), excluded = Json::array();
  for (const auto& row : collector::mechanism_table()) {
    if (row.configure == nullptr || row.kind != kind) continue;
    collector::Mechanism probe;
    const bool memoized = collector::Mechanism::configure(row.example, probe) && probe.memoized();
    if (memoized != over_time) continue;  // one report at ε, or reports over time at ε∞ and ε₁
    MechanismOptions mo = o.mechanism;
    mo.mechanism = row.name;
    Json j;
    j["mechanism"] = row.name;
    std::optional<Mechanism> m;
    try {
      m = configure(mo, epsilon_option(mo));
    } catch (const BadInput& e) {
      j["excluded"] = std::string("not configured by these options: ") + e.what();
      excluded.push_back(j);
      continue;
    }
    if (needs_rows && m->mean_only()) {
      j["excluded"] = "gives the mean only, no distribution";
      excluded.push_back(j);
      continue;
    }
    // Rows for quantiles: every integer, or as many as sw's default buckets resolve.
    const std::int64_t values = std::int64_t{*o.mechanism.hi} - *o.mechanism.lo + 1;
    const std::int64_t rows_needed = std::min<std::int64_t>(values, SquareWave::default_buckets);
    if (needs_rows && m->atoms() < rows_needed) {
      j["excluded"] = "its " + std::to_string(m->atoms()) + " rows are too coarse for " +
                      (for_quantiles ? "quantiles" : "the distribution") + " (fewer than " +
                      std::to_string(rows_needed) + ": every integer of the range, at most " +
                      std::to_string(SquareWave::default_buckets) + ")" +
                      (m->takes_levels() ? "; more --levels" : "");
      excluded.push_back(j);
      continue;
    }
    const double n = static_cast<double>(o.n);
    const double se = for_quantiles      ? collector::median_cdf_standard_error(collector::numeric_model(*m), n)
                      : for_distribution ? collector::expected_distribution_w1(collector::numeric_model(*m), n)
                                         : std::sqrt(per_report_variance(*m) / n);
    const std::uint64_t bytes = m->description().report_bytes(0);
    const auto fp = footprint_of(row.id, o.target);
    j[for_quantiles      ? "cdf_standard_error"
      : for_distribution ? "distribution_w1"
      : m->numeric()     ? "mean_standard_error"
                         : "frequency_standard_error"] = se;
    j["realized_epsilon"] = as_double(m->realized_epsilon());
    if (m->memoized()) j["epsilon_infinity"] = as_double(*m->epsilon_infinity());
    j["report_bytes"] = bytes;
    j["flash_bytes"] = fp ? Json(fp->flash) : Json(nullptr);
    j["ram_bytes"] = fp ? Json(fp->stack) : Json(nullptr);
    std::string why;
    if (o.max_report_bytes && bytes > *o.max_report_bytes)
      why = "report " + std::to_string(bytes) + " B > --max-report-bytes " + std::to_string(*o.max_report_bytes);
    else if ((o.max_flash || o.max_ram) && !fp)
      why = "no measured flash or RAM (no bench/footprint program), so the limits cannot be checked";
    else if (o.max_flash && fp->flash > *o.max_flash)
      why = "flash " + std::to_string(fp->flash) + " B > --max-flash " + std::to_string(*o.max_flash);
    else if (o.max_ram && fp->stack > *o.max_ram)
      why = "RAM " + std::to_string(fp->stack) + " B > --max-ram " + std::to_string(*o.max_ram);
    if (!why.empty()) {
      j["excluded"] = why;
      excluded.push_back(j);
    } else {
      ranked.push_back(j);
    }
  }
  const std::string se_key = for_quantiles      ? "cdf_standard_error"
                             : for_distribution ? "distribution_w1"
                             : numeric_kind     ? "mean_standard_error"
                                                : "frequency_standard_error";
  // Smallest expected error first; then the smaller report, then the smaller flash.
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Json& a, const Json& b) {
    const double sa = a[se_key].get<double>(), sb = b[se_key].get<double>();
    if (sa != sb) return sa < sb;
    return a["report_bytes"].get<std::uint64_t>() < b["report_bytes"].get<std::uint64_t>();
  });
  std::string request = numeric_kind ? "numbers of [" + std::to_string(*o.mechanism.lo) + ", " +
                                           std::to_string(*o.mechanism.hi) + "]"
                                     : std::to_string(*o.mechanism.domain) + " categories";
  request += over_time ? ", ε∞ " + o.mechanism.epsilon + " and ε₁ " + *o.mechanism.epsilon_one
                       : ", ε " + o.mechanism.epsilon;
  request += ", n = " + std::to_string(o.n);
  if (numeric_kind)
    request += for_quantiles ? ", for quantiles and ranges" : for_distribution ? ", for the distribution" : ", for the mean";
  const std::string source = std::string("docs/footprint.md at ") + footprint_commit + ", " + o.target +
                             ", MinSizeRel, measured at that page's parameters, not at these";
  if (o.json) {
    Json j;
    j["request"] = request;
    j["ranked"] = ranked;
    j["excluded"] = excluded;
    j["footprint_source"] = source;
    std::cout << j.dump(2) << "\n";
    return ranked.empty() ? exit_bad_input : 0;
  }
  const std::string error_name = for_quantiles      ? "CDF SE"
                                 : for_distribution ? "W1"
                                 : numeric_kind     ? "mean SE"
                                                    : "frequency SE";
  std::cout << "mechanisms for " << request << ", by expected error (best first)\n";
  std::printf("%-5s %-10s %14s %8s %8s %8s\n", "rank", "mechanism", error_name.c_str(), "report", "flash", "RAM");
  std::size_t rank = 0;
  const auto bytes_text = [](const Json& v) { return v.is_null() ? std::string("—") : std::to_string(v.get<std::uint64_t>()) + " B"; };
  for (const auto& j : ranked)
    std::printf("%-5zu %-10s %14.6g %8s %8s %8s\n", ++rank, j["mechanism"].get<std::string>().c_str(),
                j[se_key].get<double>(), bytes_text(j["report_bytes"]).c_str(), bytes_text(j["flash_bytes"]).c_str(),
                bytes_text(j["ram_bytes"]).c_str());
  if (ranked.empty()) std::cout << "(none meets the limits)\n";
  for (const auto& j : excluded)
    std::cout << "not ranked: " << j["mechanism"].get<std::string>() << ": " << j["excluded"].get<std::string>() << "\n";
  std::cout << error_name << ": at n = " << o.n << ", from each mechanism's channel in the collector ("
            << (for_quantiles ? "the CDF at the middle value, values spread evenly over the range"
                : for_distribution
                    ? "the expected Wasserstein-1 distance of the unbiased CDF from the true one, in the "
                      "values' units, values spread evenly over the range; EM or the consistent tree lands closer"
                : numeric_kind ? "a report's score, the noise at the worst value"
                               : "an item nobody holds")
            << ")\n"
            << "flash, RAM: " << source << " (RAM: worst-case stack; no static RAM); —: no program measures it\n";
  if (o.explain && !ranked.empty()) {
    std::cout.precision(4);
    const Json& first = ranked[0];
    const double se1 = first[se_key].get<double>();
    const bool limited = o.max_report_bytes || o.max_flash || o.max_ram;
    std::cout << "\nwhy " << first["mechanism"].get<std::string>() << " first: its " << error_name << " at n = " << o.n
              << " is " << se1 << ", the smallest of the " << ranked.size() << " mechanisms that configure"
              << (limited ? " and meet the limits" : "") << ".\n";
    if (ranked.size() > 1) {
      const Json& second = ranked[1];
      const double se2 = second[se_key].get<double>();
      const double ratio = se2 / se1;
      std::cout << "the next, " << second["mechanism"].get<std::string>() << ", has " << se2 << " (×" << ratio
                << "): it needs " << ratio * ratio << "× the reports for the same error";
      const auto b1 = first["report_bytes"].get<std::uint64_t>(), b2 = second["report_bytes"].get<std::uint64_t>();
      if (b2 < b1) std::cout << ", with reports of " << b2 << " bytes instead of " << b1;
      if (!first["flash_bytes"].is_null() && !second["flash_bytes"].is_null() &&
          second["flash_bytes"].get<std::uint64_t>() < first["flash_bytes"].get<std::uint64_t>())
        std::cout << ", in " << second["flash_bytes"].get<std::uint64_t>() << " B of flash instead of "
                  << first["flash_bytes"].get<std::uint64_t>();
      std::cout << ".\n";
      if (se2 == se1)
        std::cout << "(equal error: the smaller report is ranked first.)\n";
      else if (ratio < 1.02)
        std::cout << "(within 2 %: practically equal — the report size, flash or RAM may decide.)\n";
    }
    // What the limits cost: the best mechanism they excluded.
    const Json* best_excluded = nullptr;
    for (const auto& j : excluded)
      if (j.contains(se_key) && j[se_key].get<double>() < se1 &&
          (best_excluded == nullptr || j[se_key].get<double>() < (*best_excluded)[se_key].get<double>()))
        best_excluded = &j;
    if (best_excluded != nullptr)
      std::cout << "without the limits " << (*best_excluded)["mechanism"].get<std::string>() << " would be first ("
                << (*best_excluded)[se_key].get<double>() << "): " << (*best_excluded)["excluded"].get<std::string>()
                << ".\n";
    std::cout << "the error is each collector model's variance per report at this ε and domain, over n (tinyldp plan -m "
              << first["mechanism"].get<std::string>() << " shows the probabilities behind it).\n";
  }
  return ranked.empty() ? exit_bad_input : 0;
}

}  // namespace

Subcommand add_plan(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  auto* p = app.add_subcommand("plan", "realized probabilities, epsilon and expected accuracy");
  add_mechanism_options(*p, o->mechanism, "number of categories (default 2)");
  p->add_option("--n", o->n, "number of reports (default 10000)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 53));
  p->add_option("--target-se", o->target_se,
                "also answer: n and epsilon needed for this frequency SE (numeric: mean SE)");
  p->add_option("--group", o->group, "privacy loss for a group of t records (t·epsilon)")
      ->check(CLI::Range(1u, 1000000u));
  p->add_option("--rounds", o->rounds, "memoized mechanisms: reports per device, for the budget (default 1)")
      ->check(CLI::Range(1u, 1000000u));
  p->add_option("--change-prob", o->change_prob,
                "memoized mechanisms: probability that a device's value changes before a round")
      ->check(CLI::Range(0.0, 1.0));
  p->add_flag("--compare", o->compare,
              "memoized protocols side by side at --epsilon (ε∞) and --epsilon-one (ε₁): error per round, "
              "budget over --rounds (give any memoized --mechanism, e.g. l-osue)");
  add_delta_option(*p, o->delta);
  p->add_flag("--json", o->json, "machine-readable output");
  // Without --mechanism, plan recommends one.
  p->get_option("--mechanism")->required(false)->description(
      "the mechanism to plan; without it, plan ranks the mechanisms for --kind, --domain or --lo/--hi, --epsilon "
      "(and --epsilon-one: reports over time) and --n by expected error");
  p->add_option("--kind", o->kind, "recommendation: the values are categorical or numeric (default: numeric when "
                                   "--lo/--hi are given)")
      ->check(CLI::IsMember({"categorical", "numeric"}));
  p->add_option("--max-report-bytes", o->max_report_bytes, "recommendation: the largest report the link carries");
  p->add_option("--max-flash", o->max_flash, "recommendation: the most flash (bytes) on --target");
  p->add_option("--max-ram", o->max_ram, "recommendation: the most RAM (worst-case stack, bytes) on --target");
  p->add_option("--target", o->target, "recommendation: whose flash and RAM figures (default cortex-m0)")
      ->check(CLI::IsMember({"cortex-m0", "cortex-m3", "cortex-m4f", "rv32imac"}));
  p->add_flag("--explain", o->explain, "recommendation: say why the first is first");
  p->add_option("--for", o->goal,
                "recommendation for numbers: rank for the mean (its SE, the default), for quantiles and ranges "
                "(the SE of the CDF at the middle value) or for the distribution (the expected W1 of its CDF)")
      ->check(CLI::IsMember({"mean", "quantiles", "distribution"}));
  return {p, [o] { return run(*o); }};
}

}  // namespace tinyldp::tools
