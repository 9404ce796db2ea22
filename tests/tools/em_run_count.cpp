// SPDX-License-Identifier: Apache-2.0
// Linked into tinyldp_em_count, the `tinyldp` command built with this one file more: at exit it
// prints how many times EM ran in the process (bayesian_update_runs), for test_cli_em_once.py.
#include <cinttypes>
#include <cstdio>

#include "tinyldp/collector/bayesian_update.hpp"

namespace {

struct ReportEmRunsAtExit {
  ~ReportEmRunsAtExit() {
    std::fprintf(stderr, "em runs: %" PRIu64 "\n", tinyldp::collector::bayesian_update_runs());
  }
} report_at_exit;

}  // namespace
