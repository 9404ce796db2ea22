// SPDX-License-Identifier: Apache-2.0
// Contexts are caller-owned and their sizes are documented in each header; this keeps the
// documentation true on every target (and the sizes constexpr).
#include "check.hpp"
#include "tinyldp/bit_flip_mean.hpp"
#include "tinyldp/dbitflip.hpp"
#include "tinyldp/discrete_laplace.hpp"
#include "tinyldp/hadamard_response.hpp"
#include "tinyldp/histogram_encoding.hpp"
#include "tinyldp/krr.hpp"
#include "tinyldp/local_hashing.hpp"
#include "tinyldp/loloha.hpp"
#include "tinyldp/longitudinal_grr.hpp"
#include "tinyldp/port/entropy/memo_key.hpp"
#include "tinyldp/port/storage/emulated_flash.hpp"
#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/privacy_ledger.hpp"
#include "tinyldp/random_bits.hpp"
#include "tinyldp/rr.hpp"
#include "tinyldp/stochastic_discretization.hpp"
#include "tinyldp/two_stage_rr.hpp"
#include "tinyldp/unary_encoding.hpp"
#include "tinyldp/wipe.hpp"

TEST(documented_context_sizes_hold) {
  static_assert(sizeof(tinyldp::BinaryRr) == 24);
  static_assert(sizeof(tinyldp::KaryRr) == 40);
  static_assert(sizeof(tinyldp::UnaryEncoding) == 48);
  static_assert(sizeof(tinyldp::LocalHashing) == 48);
  static_assert(sizeof(tinyldp::HadamardResponse) == 32);
  static_assert(sizeof(tinyldp::StochasticDiscretization) == 56);
  static_assert(sizeof(tinyldp::DiscreteLaplace) == 56);
  static_assert(sizeof(tinyldp::SummationHistogram) == 72);
  static_assert(sizeof(tinyldp::ThresholdHistogram) == 56);
  static_assert(sizeof(tinyldp::LongitudinalGrr) == 104);
  static_assert(sizeof(tinyldp::Loloha) == 112);
  // 1BitMean and dBitFlip keep J = m/s (k = J + 1) from their configuration: no division on
  // the report path of a context configured at run time (8 bytes with the alignment).
  static_assert(sizeof(tinyldp::OneBitMean) == 120);
  static_assert(sizeof(tinyldp::DBitFlip) == 136);
  static_assert(sizeof(tinyldp::TwoStageRr) == 128);
  static_assert(sizeof(tinyldp::port::MemoKey) == 40);
  // The ledger: 56 + 8 bytes per attribute slot (a Record reference, the cap, the totals).
  static_assert(sizeof(tinyldp::PrivacyLedger<tinyldp::port::EmulatedFlash, 1>) == 64);
  static_assert(sizeof(tinyldp::PrivacyLedger<tinyldp::port::EmulatedFlash, 8>) == 120);
  // A memo stream: its block buffer (64 B), nonce, counters and key pointer.
  CHECK(sizeof(tinyldp::port::MemoStream) == (sizeof(void*) == 8 ? 96u : 88u));
  static_assert(tinyldp::UnaryEncoding::report_bytes_for(1024) == 128);
  constexpr size_t reader = sizeof(tinyldp::RandomBits<tinyldp::port::CountingSource>);
  // 32-byte buffer + state: 80 B with 32-bit pointers, 88 B on 64-bit hosts.
  CHECK(reader == 80 || (sizeof(void*) == 8 && reader == 88));
}

// Contexts a firmware may keep as plain globals register no destructor (docs/privacy-model.md,
// "Static placement"); the mechanisms are also constant-initialized.
constinit tinyldp::UnaryEncoding global_ue;
constinit tinyldp::KaryRr global_krr;
TEST(contexts_are_trivially_destructible) {
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::RandomBits<tinyldp::port::CountingSource>));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::BinaryRr));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::KaryRr));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::UnaryEncoding));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::LocalHashing));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::HadamardResponse));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::StochasticDiscretization));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::DiscreteLaplace));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::SummationHistogram));
  static_assert(TINYLDP_TRIVIALLY_DESTRUCTIBLE(tinyldp::ThresholdHistogram));
  CHECK(tinyldp::UnaryEncoding::configure_oue(tinyldp::Epsilon::from_ratio(1, 1), 64, global_ue) ==
        tinyldp::Status::ok);
  CHECK(global_ue.report_bytes() == 8);
  CHECK(tinyldp::KaryRr::configure(tinyldp::Epsilon::from_ratio(1, 1), 4, global_krr) ==
        tinyldp::Status::ok);
}
