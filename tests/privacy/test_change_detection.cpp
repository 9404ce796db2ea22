// SPDX-License-Identifier: Apache-2.0
// Change detection (#15 item 4): how often can the collector tell that a device's value
// changed, from its reports over R rounds — measured for L-OSUE, L-SUE, L-GRR, LOLOHA and
// 1BitMean with and without its output perturbation γ, next to the exact rate derived below.
//
// The experiment. A device (its own memo key, ChaCha20 PRF) reports R rounds. Scenario
// "never": its value is x in every round. Scenario "once": x before round T and x' ≠ x from T
// on, T uniform in 1 … R − 1. Every report is real: the core's privatize with the device's key.
//
// The collector's test. It compares the first block of b = ⌈√R⌉ rounds with the last block of
// b rounds (b grows with R, so each block's fresh noise averages out, and b/R shrinks, so the
// blocks fall on either side of T with probability → 1):
//  - unary chains (L-OSUE, L-SUE): per bit, a block decides "on" if its count of ones is above
//    t = b(p2 + q2)/2 and "off" if below (undecided at t); it flags a change if some bit is
//    decided in both blocks, differently.
//  - GRR chains (L-GRR; LOLOHA on the reported hashed value y ∈ [g]): a block decides the value
//    reported strictly most often (undecided on a tie at the top); it flags if both blocks
//    decide and differ.
//  - 1BitMean: the bit decides by majority (count > b/2 on, < b/2 off); it flags if both decide
//    and differ.
//
// The theory. Given the memos, rounds are independent; a block with n_o rounds reporting the
// old memo and n_n the new one has a count distribution that is a convolution of two binomials
// (unary bits, 1BitMean) or of two categorical rows (GRR); the two blocks are independent given
// the memos. So, with F(M, M') the flag probability for memos M (old) and M' (new),
//   P(flag | once) = (1/(R − 1)) Σ_T E[F_T(M, M')],   P(flag | never) = E[F(M, M)].
// The memos' joint law:
//  - unary chains: memo bit i of value v is 1 w.p. p1 if i = v, else q1, independently across
//    bits and across values (another value, another PRF stream); reports flip each bit through
//    (p2 = P(1 | memo 1), q2 = P(1 | memo 0)). Bits are independent given T, so
//    1 − F_T = Π_i Σ_{b,b'} P(M_i = b)P(M'_i = b')(1 − F_T,bit(b, b')).
//  - L-GRR over [k]: M = M' with probability P_same = 2p1q1 + (k − 2)q1² (independent streams;
//    stage 1 keeps w.p. p1); otherwise the two memos are two distinct values. The report keeps
//    the memo w.p. p2, else each other value w.p. q2. The strict mode of a block: a dynamic
//    program over the counts of the two memos (c_o, c_n), and for the remaining N reports,
//    spread uniformly over the g − 2 other values, the probability that all stay below a
//    count v: N!/(g − 2)^N · [t^N](Σ_{i<v} t^i/i!)^(g−2).
//  - LOLOHA: as L-GRR over [g] on the hashed values, but two values hash to the same h (under
//    the device's seed) with probability 1/g — then the memo is the same, and no change shows:
//    P_same = 1/g + (1 − 1/g)(2p1q1 + (g − 2)q1²). (The hash's collision rate is taken as 1/g.)
//  - 1BitMean (values 0 … m, grid step s, J = m/s): α uniform in [0, s) once per device;
//    j = ⌊(x + α)/s⌋, j' = ⌊(x' + α)/s⌋. If j = j' the memo is the same bit; else the memo bits
//    are independent with P(1) = π_j = q1 + (j/J)(p1 − q1) (exact when J divides 2^32). The
//    report is the memo flipped w.p. γ (γ = 0: the memo itself).
// As R → ∞ the blocks decide the memos exactly, so P(flag | never) → 0 and
// P(flag | once) → P(M ≠ M'): 1 − Π_i(P(M_i = M'_i)) for the unary chains (→ 1 as d grows:
// memoized without output perturbation of the memo itself, a change shows), 1 − P_same for
// L-GRR and LOLOHA (LOLOHA's stays ≤ 1 − 1/g: the hash hides a change), and
// E_α[P(b ≠ b')] for 1BitMean, bounded by the rounding and the memo's RR whatever R — γ only
// adds false alarms and slows the convergence. Without γ every report is the memo: the test
// never flags an unchanged device, so a flag is certain evidence of a change, and the sharper
// test "the first and the last report differ" flags every change of the memo at any R ≥ 2
// (rate E_α[P(b ≠ b')] exactly, also checked); with γ that test's false alarms are
// 2γ(1 − γ), and no flag is certain.
//
// The check: each measured rate over N devices lies within 5σ of the theory, σ = √(p(1 − p)/N)
// (devices independent); a theory of exactly 0 must be measured as 0. Fixed seeds. The plain
// build runs N = 16000 devices per rate (5σ ≤ 0.02) and asserts the power to tell the scenarios
// apart (detection above false alarms by > 10σ where the theory says they differ by > 0.1);
// the ASan + UBSan build (TINYLDP_TEST_SANITIZED) a sixteenth, bounds from the same σ.
#include <math.h>

#include "check.hpp"
#include "tinyldp/one_bit_mean.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/memo/memo_key.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/two_stage_rr.hpp"

namespace tinyldp::test {
namespace {

using Rng = RandomBits<port::InsecureTestSource, 256>;

#if defined(TINYLDP_TEST_SANITIZED)
constexpr uint32_t devices = 16000 / 16;
#else
constexpr uint32_t devices = 16000;
#endif
constexpr uint32_t round_counts[] = {4, 16, 64};
constexpr uint32_t max_block = 8;  // ⌈√64⌉
constexpr Epsilon eps_inf = Epsilon::from_ratio(2, 1), eps_one = Epsilon::from_ratio(1, 1);

uint32_t block_size(uint32_t rounds) {
  uint32_t b = 1;
  while (b * b < rounds) ++b;
  return b;
}

double probability(Dyadic p) { return ldexp(static_cast<double>(p.num), -static_cast<int>(p.bits)); }
// A k-RR stage's (keep, other) probabilities.
void stage_probabilities(const KaryRr& s, double& keep, double& other) {
  other = probability(s.other_probability());
  keep = ldexp(static_cast<double>(s.keep_numerator()), -static_cast<int>(s.other_probability().bits));
}

// Device i of the runs over R rounds (other devices for another R: the rates of different R
// are independent measurements).
port::MemoKey device_key(uint32_t device, uint32_t rounds) {
  uint8_t secret[32];
  for (uint32_t i = 0; i < 32; ++i) secret[i] = static_cast<uint8_t>(i * 29 + 5);
  put_le(secret, device);
  put_le(secret + 4, rounds);
  port::MemoKey key;
  key.set(secret, 0);
  return key;
}

// The round from which device i's value changes: uniform in 1 … R − 1 (splitmix64 of i).
uint32_t change_round(uint32_t device, uint32_t rounds) {
  uint64_t z = (uint64_t{device} + 1) * 0x9E3779B97F4A7C15u + rounds;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  z ^= z >> 31;
  return 1 + static_cast<uint32_t>(z % (rounds - 1));
}

// How many of a block's rounds report the old memo: the first block is rounds [0, b), the
// last [R − b, R); the value is old before round T.
uint32_t old_in_first(uint32_t t, uint32_t b) { return t < b ? t : b; }
uint32_t old_in_last(uint32_t t, uint32_t b, uint32_t rounds) { return t > rounds - b ? t - (rounds - b) : 0; }

// --- The theory's pieces (doubles, host) --------------------------------------------------

double binomial(uint32_t n, uint32_t k, double p) {
  double c = 1;
  for (uint32_t i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c * pow(p, k) * pow(1 - p, n - k);
}

// A binary block: n_o reports with P(1) = r_o, then n_n with P(1) = r_n; a count above
// `threshold` decides on, below it off.
struct Decision {
  double on = 0, off = 0;
};
Decision binary_block(uint32_t n_o, double r_o, uint32_t n_n, double r_n, double threshold) {
  Decision d;
  for (uint32_t a = 0; a <= n_o; ++a)
    for (uint32_t c = 0; c <= n_n; ++c) {
      const double pr = binomial(n_o, a, r_o) * binomial(n_n, c, r_n);
      const double count = a + c;
      if (count > threshold) d.on += pr;
      if (count < threshold) d.off += pr;
    }
  return d;
}
double differ(const Decision& a, const Decision& b) { return a.on * b.off + a.off * b.on; }

// The flag probability of one binary coordinate over rounds R with memo bits (old, new) and
// report rates rate[bit], for a change at round t (t = 0: no change, every round old).
double binary_flag(const double rate[2], uint32_t old_bit, uint32_t new_bit, uint32_t t, uint32_t rounds,
                   double threshold) {
  const uint32_t b = block_size(rounds);
  const uint32_t f = t == 0 ? b : old_in_first(t, b), l = t == 0 ? b : old_in_last(t, b, rounds);
  return differ(binary_block(f, rate[old_bit], b - f, rate[new_bit], threshold),
                binary_block(l, rate[old_bit], b - l, rate[new_bit], threshold));
}

// P(N balls thrown uniformly into k boxes all stay below v).
double all_below(uint32_t k, uint32_t v, uint32_t n) {
  if (k == 0) return n == 0 ? 1.0 : 0.0;
  if (v == 0) return 0.0;
  // (Σ_{i<v} t^i/i!)^k, coefficients up to t^n, then × n!/k^n.
  double poly[2 * max_block + 1] = {1};
  for (uint32_t box = 0; box < k; ++box) {
    double next[2 * max_block + 1] = {};
    for (uint32_t s = 0; s <= n; ++s) {
      double fact = 1;
      for (uint32_t i = 0; i < v && i <= s; ++i) {
        if (i > 0) fact *= i;
        next[s] += poly[s - i] / fact;
      }
    }
    for (uint32_t s = 0; s <= n; ++s) poly[s] = next[s];
  }
  double scale = 1;
  for (uint32_t i = 1; i <= n; ++i) scale *= static_cast<double>(i) / k;
  return poly[n] * scale;
}

// A GRR block over [g]: n_o reports of the old memo (value 0), n_n of the new one (value 1;
// same: it is the old one too, and 1 is just another value). Each report keeps its memo w.p.
// p2, else is each other value w.p. q2. The probabilities that the block's strict mode is the
// old memo, value 1, and one given value of the g − 2 others.
struct ModeLaw {
  double old_memo = 0, value_one = 0, each_other = 0;
};
ModeLaw grr_block(uint32_t g, double p2, double q2, uint32_t n_o, uint32_t n_n, bool same) {
  double counts[max_block + 1][max_block + 1] = {{1}};  // (count of 0, count of 1)
  const uint32_t n = n_o + n_n;
  for (uint32_t r = 0; r < n; ++r) {
    const bool old_row = r < n_o || same;
    const double to0 = old_row ? p2 : q2, to1 = old_row ? q2 : p2;
    double next[max_block + 1][max_block + 1] = {};
    for (uint32_t a = 0; a <= r; ++a)
      for (uint32_t c = 0; a + c <= r; ++c) {
        const double pr = counts[a][c];
        next[a + 1][c] += pr * to0;
        next[a][c + 1] += pr * to1;
        next[a][c] += pr * (1 - to0 - to1);
      }
    for (uint32_t a = 0; a <= n; ++a)
      for (uint32_t c = 0; c <= n; ++c) counts[a][c] = next[a][c];
  }
  ModeLaw m;
  const uint32_t others = g - 2;
  for (uint32_t a = 0; a <= n; ++a)
    for (uint32_t c = 0; a + c <= n; ++c) {
      const double pr = counts[a][c];
      const uint32_t rest = n - a - c;
      if (a > c) m.old_memo += pr * all_below(others, a, rest);
      if (c > a) m.value_one += pr * all_below(others, c, rest);
      if (others == 0) continue;
      for (uint32_t w = (a > c ? a : c) + 1; w <= rest; ++w)
        m.each_other += pr * binomial(rest, w, 1.0 / others) * all_below(others - 1, w, rest - w);
    }
  return m;
}
// Both blocks decide, differently.
double modes_differ(const ModeLaw& x, const ModeLaw& y, uint32_t g) {
  const double decided = y.old_memo + y.value_one + (g - 2) * y.each_other;
  const double agree = x.old_memo * y.old_memo + x.value_one * y.value_one + (g - 2) * x.each_other * y.each_other;
  return (x.old_memo + x.value_one + (g - 2) * x.each_other) * decided - agree;
}

// A GRR chain's flag rate: P(M = M') = same_memo, the report's (p2, q2) over [g].
double grr_flag_rate(uint32_t g, double p2, double q2, double same_memo, uint32_t rounds, bool changes) {
  const uint32_t b = block_size(rounds);
  const ModeLaw unchanged = grr_block(g, p2, q2, b, 0, true);
  const double never = modes_differ(unchanged, unchanged, g);
  if (!changes) return never;
  double sum = 0;
  for (uint32_t t = 1; t < rounds; ++t) {
    const uint32_t f = old_in_first(t, b), l = old_in_last(t, b, rounds);
    sum += modes_differ(grr_block(g, p2, q2, f, b - f, false), grr_block(g, p2, q2, l, b - l, false), g);
  }
  return same_memo * never + (1 - same_memo) * sum / (rounds - 1);
}

// --- The measurement --------------------------------------------------------------------

// Runs `devices` devices over `rounds` rounds (changing at change_round, or never) and counts
// the collector's flags. report(key, value, rng, out) makes one report's observation (a small
// integer vector: bits, or one value); flagged(first, last, b) is the collector's test.
struct Observation {
  uint32_t item[16];  // unary: the d bits; GRR, 1BitMean: item[0]
};
template <class Report, class Test>
double measured_flag_rate(uint32_t rounds, bool changes, uint32_t old_value, uint32_t new_value, Report report,
                          Test flagged, uint64_t seed) {
  port::InsecureTestSource src(seed);
  Rng rng(src);
  const uint32_t b = block_size(rounds);
  uint32_t flags = 0;
  for (uint32_t device = 0; device < devices; ++device) {
    const port::MemoKey key = device_key(device, rounds);
    const uint32_t t = changes ? change_round(device, rounds) : rounds;
    Observation first[max_block], last[max_block];
    for (uint32_t r = 0; r < rounds; ++r) {
      Observation o{};
      report(key, r < t ? old_value : new_value, rng, o);
      if (r < b) first[r] = o;
      if (r >= rounds - b) last[r - (rounds - b)] = o;
    }
    flags += flagged(first, last, b) ? 1u : 0u;
  }
  return static_cast<double>(flags) / devices;
}

// A block's strict mode among g values, or g if the top is tied.
uint32_t strict_mode(const Observation* block, uint32_t b, uint32_t g) {
  uint32_t count[64] = {};
  for (uint32_t r = 0; r < b; ++r) ++count[block[r].item[0]];
  uint32_t best = 0, ties = 0;
  for (uint32_t v = 1; v < g; ++v) {
    if (count[v] > count[best]) {
      best = v;
      ties = 0;
    } else if (count[v] == count[best]) {
      ++ties;
    }
  }
  return ties == 0 ? best : g;
}
// Per coordinate: decided on (count > threshold) or off (count < threshold) in both blocks,
// differently.
bool some_coordinate_differs(const Observation* first, const Observation* last, uint32_t b, uint32_t coordinates,
                             double rate_sum) {
  const double threshold = b * rate_sum / 2;
  for (uint32_t i = 0; i < coordinates; ++i) {
    double a = 0, c = 0;
    for (uint32_t r = 0; r < b; ++r) {
      a += first[r].item[i];
      c += last[r].item[i];
    }
    if ((a > threshold && c < threshold) || (a < threshold && c > threshold)) return true;
  }
  return false;
}

struct Rates {
  double never, once;
};

// Measured vs theory for both scenarios at every R; prints a line per R.
template <class Measure, class Theory>
void compare(const char* name, Measure measure, Theory theory) {
  print("  ");
  print(name);
  print(" (flag rate x1000: never measured/theory, once measured/theory)\n");
  for (uint32_t rounds : round_counts) {
    const Rates th = {theory(rounds, false), theory(rounds, true)};
    const Rates got = {measure(rounds, false), measure(rounds, true)};
    print("    R = ");
    print_u64(rounds);
    print(": never ");
    print_u64(static_cast<uint64_t>(got.never * 1000 + 0.5));
    print("/");
    print_u64(static_cast<uint64_t>(th.never * 1000 + 0.5));
    print(", once ");
    print_u64(static_cast<uint64_t>(got.once * 1000 + 0.5));
    print("/");
    print_u64(static_cast<uint64_t>(th.once * 1000 + 0.5));
    print("\n");
    const double measured[2] = {got.never, got.once}, expected[2] = {th.never, th.once};
    for (int i = 0; i < 2; ++i) {
      const double sigma = sqrt(expected[i] * (1 - expected[i]) / devices);
      if (expected[i] == 0)
        CHECK(measured[i] == 0);
      else
        CHECK(fabs(measured[i] - expected[i]) <= 5 * sigma);
    }
#if !defined(TINYLDP_TEST_SANITIZED)
    // Power: at the largest R the two scenarios' rates are more than 10σ apart, so the
    // measurement tells a device that changed from one that did not.
    if (rounds == round_counts[2]) CHECK(th.once - th.never > 10 * sqrt(0.25 / devices));
#endif
  }
}

// --- The protocols ----------------------------------------------------------------------

void unary_chain(const char* name, UeStage first, UeStage second, uint64_t seed) {
  constexpr uint32_t d = 16, x = 3, x_new = 11;
  TwoStageRr chain;
  CHECK(TwoStageRr::configure_chain(first, second, eps_inf, eps_one, TwoStageRr::one_hot(d), chain) == Status::ok);
  const double p1 = probability(chain.p1()), q1 = probability(chain.q1());
  const double rate[2] = {probability(chain.q2()), probability(chain.p2())};  // P(report 1 | memo bit)
  const auto theory = [&](uint32_t rounds, bool changes) {
    const double threshold = block_size(rounds) * (rate[0] + rate[1]) / 2;
    // 1 − P(flag | t) = Π over bits of P(that bit does not flag); then averaged over t.
    const auto no_flag = [&](uint32_t t) {
      double all = 1;
      for (uint32_t i = 0; i < d; ++i) {
        const double old_one = i == x ? p1 : q1, new_one = i == x_new ? p1 : q1;
        double stays = 0;
        for (uint32_t o = 0; o < 2; ++o) {
          const double po = o ? old_one : 1 - old_one;
          if (t == 0) {
            stays += po * (1 - binary_flag(rate, o, o, 0, rounds, threshold));
            continue;
          }
          for (uint32_t n = 0; n < 2; ++n)
            stays += po * (n ? new_one : 1 - new_one) * (1 - binary_flag(rate, o, n, t, rounds, threshold));
        }
        all *= stays;
      }
      return all;
    };
    if (!changes) return 1 - no_flag(0);
    double sum = 0;
    for (uint32_t t = 1; t < rounds; ++t) sum += 1 - no_flag(t);
    return sum / (rounds - 1);
  };
  const auto measure = [&](uint32_t rounds, bool changes) {
    return measured_flag_rate(
        rounds, changes, x, x_new,
        [&](const port::MemoKey& key, uint32_t v, Rng& rng, Observation& o) {
          uint8_t bits[d / 8];
          CHECK(chain.privatize(v, key, rng, bits, sizeof bits) == Status::ok);
          for (uint32_t i = 0; i < d; ++i) o.item[i] = static_cast<uint32_t>(bits[i / 8] >> (i % 8)) & 1u;
        },
        [&](const Observation* a, const Observation* c, uint32_t b) {
          return some_coordinate_differs(a, c, b, d, rate[0] + rate[1]);
        },
        seed + rounds);
  };
  compare(name, measure, theory);
  // The limit: the memos differ in some bit.
  double equal = 1;
  for (uint32_t i = 0; i < d; ++i) {
    const double a = i == x ? p1 : q1, c = i == x_new ? p1 : q1;
    equal *= a * c + (1 - a) * (1 - c);
  }
  print("    R -> infinity: once -> ");
  print_u64(static_cast<uint64_t>((1 - equal) * 1000 + 0.5));
  print("/1000\n");
}

// The GRR chains: report(key, v, rng) → the reported value in [g]; same_memo = P(M = M').
template <class Report>
void grr_chain(const char* name, const GrrChain& chain, double same_memo, Report report, uint32_t x, uint32_t x_new,
               uint64_t seed) {
  const uint32_t g = chain.range();
  double p2 = 0, q2 = 0;
  stage_probabilities(chain.fresh_stage(), p2, q2);
  const auto theory = [&](uint32_t rounds, bool changes) { return grr_flag_rate(g, p2, q2, same_memo, rounds, changes); };
  const auto measure = [&](uint32_t rounds, bool changes) {
    return measured_flag_rate(
        rounds, changes, x, x_new,
        [&](const port::MemoKey& key, uint32_t v, Rng& rng, Observation& o) { o.item[0] = report(key, v, rng); },
        [&](const Observation* a, const Observation* c, uint32_t b) {
          const uint32_t ma = strict_mode(a, b, g), mc = strict_mode(c, b, g);
          return ma < g && mc < g && ma != mc;
        },
        seed + rounds);
  };
  compare(name, measure, theory);
  print("    R -> infinity: once -> ");
  print_u64(static_cast<uint64_t>((1 - same_memo) * 1000 + 0.5));
  print("/1000\n");
}

// P(two independent memos of distinct values agree) for the chain's stage 1 over [g].
double memos_agree(const GrrChain& chain) {
  double p1 = 0, q1 = 0;
  stage_probabilities(chain.memo_stage(), p1, q1);
  return 2 * p1 * q1 + (chain.range() - 2) * q1 * q1;
}

// 1BitMean over 0 … 100, grid step 25, x = 40 → x' = 50; with_flip false: the report is the
// memo itself (γ = 0, which the core's configuration refuses: made from the core's own memoize).
void one_bit_mean(const char* name, bool with_flip, uint64_t seed) {
  constexpr uint32_t x = 40, x_new = 50;
  OneBitMean mean;
  CHECK(OneBitMean::configure(eps_inf, eps_one, OneBitMean::Grid{100, 25, 32, 0}, mean) == Status::ok);
  double p1 = 0, q1 = 0, keep = 0, gamma = 0;
  stage_probabilities(mean.chain().memo_stage(), p1, q1);
  stage_probabilities(mean.chain().fresh_stage(), keep, gamma);
  if (!with_flip) gamma = 0;
  const double rate[2] = {gamma, 1 - gamma};
  const uint32_t s = mean.grid().step, cells = mean.cells();
  const auto pi = [&](uint32_t j) { return q1 + (static_cast<double>(j) / cells) * (p1 - q1); };
  const auto theory = [&](uint32_t rounds, bool changes) {
    const double threshold = block_size(rounds) / 2.0;
    double sum = 0;
    for (uint32_t alpha = 0; alpha < s; ++alpha) {
      const uint32_t j = mean.grid_index(x, alpha), j_new = mean.grid_index(x_new, alpha);
      if (!changes) {
        sum += pi(j) * binary_flag(rate, 1, 1, 0, rounds, threshold) +
               (1 - pi(j)) * binary_flag(rate, 0, 0, 0, rounds, threshold);
        continue;
      }
      double over_t = 0;
      for (uint32_t t = 1; t < rounds; ++t)
        for (uint32_t o = 0; o < 2; ++o)
          for (uint32_t n = 0; n < 2; ++n) {
            const double po = o ? pi(j) : 1 - pi(j);
            const double joint = j == j_new ? (o == n ? po : 0) : po * (n ? pi(j_new) : 1 - pi(j_new));
            over_t += joint * binary_flag(rate, o, n, t, rounds, threshold);
          }
      sum += over_t / (rounds - 1);
    }
    return sum / s;
  };
  // The report, or without γ the memo itself (privatize's own steps, less the flip).
  const auto report = [&](const port::MemoKey& key, uint32_t v, Rng& rng, Observation& o) {
    if (with_flip) {
      uint8_t y = 0;
      CHECK(mean.privatize(v, key, rng, y) == Status::ok);
      o.item[0] = y;
      return;
    }
    auto offsets = key.memo_stream(mean.memo_attribute_word(), detail::device_draw_value);
    MemoDraws<decltype(offsets)> offset_draws(offsets);
    const uint32_t j = mean.grid_index(v, mean.rounding_offset(offset_draws));
    auto stream = key.memo_stream(mean.memo_attribute_word(), j);
    MemoDraws<decltype(stream)> memo(stream);
    o.item[0] = mean.memoize(j, memo);
  };
  const auto measure = [&](uint32_t rounds, bool changes) {
    return measured_flag_rate(
        rounds, changes, x, x_new, report,
        [&](const Observation* a, const Observation* c, uint32_t b) {
          return some_coordinate_differs(a, c, b, 1, 1.0);
        },
        seed + rounds);
  };
  compare(name, measure, theory);
  double limit = 0;
  for (uint32_t alpha = 0; alpha < s; ++alpha) {
    const uint32_t j = mean.grid_index(x, alpha), j_new = mean.grid_index(x_new, alpha);
    if (j != j_new) limit += pi(j) * (1 - pi(j_new)) + pi(j_new) * (1 - pi(j));
  }
  limit /= s;
  print("    R -> infinity: once -> ");
  print_u64(static_cast<uint64_t>(limit * 1000 + 0.5));
  print("/1000 (bounded: rounding and the memo's RR)\n");
  if (with_flip) return;
  // Without γ a sharper test exists: the first and the last report differ. It never flags an
  // unchanged device, and flags every change of the memo at any R — P(b ≠ b'), the limit above.
  compare(
      "1bitmean without gamma, first vs last report",
      [&](uint32_t rounds, bool changes) {
        return measured_flag_rate(
            rounds, changes, x, x_new, report,
            [](const Observation* a, const Observation* c, uint32_t b) { return a[0].item[0] != c[b - 1].item[0]; },
            seed + 7 * rounds);
      },
      [&](uint32_t, bool changes) { return changes ? limit : 0.0; });
}

TEST(l_osue_detects_changes_as_the_theory_says) { unary_chain("l-osue", UeStage::oue, UeStage::sue, 100); }

TEST(l_sue_detects_changes_as_the_theory_says) { unary_chain("l-sue", UeStage::sue, UeStage::sue, 200); }

TEST(l_grr_detects_changes_as_the_theory_says) {
  constexpr uint32_t k = 12;
  LongitudinalGrr l_grr;
  CHECK(LongitudinalGrr::configure(eps_inf, eps_one, k, l_grr) == Status::ok);
  grr_chain(
      "l-grr", l_grr.chain(), memos_agree(l_grr.chain()),
      [&](const port::MemoKey& key, uint32_t v, Rng& rng) {
        uint32_t y = 0;
        CHECK(l_grr.privatize(v, key, rng, y) == Status::ok);
        return y;
      },
      3, 7, 300);
}

TEST(loloha_detects_changes_as_the_theory_says) {
  constexpr uint32_t d = 100;
  Loloha loloha;
  CHECK(Loloha::configure_optimal(eps_inf, eps_one, d, loloha) == Status::ok);
  const double g = loloha.range();
  print("  loloha: g = ");
  print_u64(loloha.range());
  print("\n");
  grr_chain(
      "loloha", loloha.chain(), 1 / g + (1 - 1 / g) * memos_agree(loloha.chain()),
      [&](const port::MemoKey& key, uint32_t v, Rng& rng) {
        LocalHashingReport r{};
        CHECK(loloha.privatize(v, key, rng, r) == Status::ok);
        return r.value;
      },
      3, 7, 400);
}

TEST(one_bit_mean_with_gamma_detects_changes_as_the_theory_says) { one_bit_mean("1bitmean", true, 500); }

TEST(one_bit_mean_without_gamma_never_flags_an_unchanged_device) {
  one_bit_mean("1bitmean without gamma (the report is the memo)", false, 600);
}

}  // namespace
}  // namespace tinyldp::test
