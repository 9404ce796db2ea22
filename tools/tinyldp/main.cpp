// SPDX-License-Identifier: Apache-2.0
// tinyldp — the command line: simulate devices, aggregate their reports, plan a deployment,
// inspect report files, wrap a capture of device frames into a report file. One file per subcommand (simulate.cpp, aggregate.cpp, plan.cpp,
// inspect.cpp); what they share is in cli_common.hpp, the one output writer in output.hpp.
// See docs/cli.md.
//
// Exit codes: 0 success; 1 bad usage (options); 2 bad input (unreadable or invalid file, value
// outside the domain, a configuration the collector refuses, mismatched mechanisms); 3 some
// reports were rejected (`aggregate` still prints its estimates; --allow-rejected makes this 0).
#include <iostream>

#include "cli_common.hpp"
#include "tinyldp/version.hpp"

int main(int argc, char** argv) {
  using namespace tinyldp;
  const std::string numeric = collector::mechanism_names(collector::MechanismKind::numeric);
  CLI::App app{
      "tinyldp — local differential privacy on the device, accurate statistics on the collector.\n"
      "Simulate devices privatizing a column of data, aggregate their reports into frequency\n"
      "estimates with confidence intervals, plan epsilon and sample sizes, inspect reports."};
  app.set_version_flag("--version", "tinyldp " TINYLDP_VERSION_STRING);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  tinyldp plan --mechanism oue --epsilon 1 --domain 16 --n 100000\n"
      "  tinyldp plan --epsilon 1 --domain 16 --n 100000 --max-flash 1500 --explain\n"
      "  tinyldp simulate --mechanism oue --epsilon 1 --domain 16 --input ages.txt --output r.tldp\n"
      "  tinyldp aggregate r.tldp --postprocess norm-sub --truth ages.txt --plot ages.svg\n"
      "  tinyldp simulate -m krr -e 0.5 -d 16 -i adult.csv -c education --labels -o edu.tldp\n"
      "  tinyldp aggregate edu.tldp --labels edu.tldp.labels -f json\n"
      "  tinyldp simulate -m krr -e 0.5 -d 16 -i more.csv -c education --labels-from edu.tldp.labels -o more.tldp\n"
      "  tinyldp inspect r.tldp --json\n"
      "  tinyldp simulate -m sd -e 1 --lo 17 --hi 90 --levels 8 -i adult.csv -c age -o age.tldp\n"
      "  tinyldp plan -m dlaplace -e 1 --lo 0 --hi 99 --n 50000\n"
      "  tinyldp simulate -m l-osue -e 2 --epsilon-one 1 -d 100 -i adult.csv -c age --rounds 3 -o a.tldp\n"
      "  tinyldp aggregate a.tldp --epoch 2\n"
      "  tinyldp wrap uart.bin -m l-osue -e 2 --epsilon-one 1 -d 256 -o fleet.tldp\n"
      "  tinyldp joint plan --domains 2x16 --f 0.1 0.5 0.7 0.9\n"
      "  tinyldp joint simulate -i nltcs.csv --no-header --sample 0.2 --f 0.5 -o n.tldpj\n"
      "  tinyldp joint n.tldpj --attributes 0,1,2 --truth nltcs.csv --no-header\n"
      "Mechanisms: " + collector::mechanism_names(collector::MechanismKind::categorical) + ", " + numeric +
      " (rr is binary: domain 2).\n"
      "Records of several attributes (joint, multi; wrap and inspect with --domains): " +
      collector::mechanism_names(collector::MechanismKind::record) + ".\n"
      "Numeric mechanisms (" + numeric + ") take integers of [--lo, --hi] instead of --domain;\n"
      "aggregate prints their mean with an interval, then the distribution.\n"
      "Epsilon is a decimal (0.5, 2, 1e-1), read exactly and rounded down to 2^-32.\n"
      "Exit codes: 0 ok, 1 bad usage, 2 bad input, 3 reports rejected (aggregate, inspect).\n"
      "Full manual: docs/cli.md");
  const tools::Subcommand commands[] = {tools::add_simulate(app), tools::add_aggregate(app),
                                        tools::add_plan(app), tools::add_inspect(app),
                                        tools::add_wrap(app), tools::add_joint(app),
                                        tools::add_multi(app), tools::add_gate(app),
                                        tools::add_publish(app), tools::add_keys(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  try {
    for (const auto& command : commands)
      if (*command.app) return command.run();
  } catch (const std::exception& e) {
    std::cerr << "tinyldp: error: " << e.what() << "\n";
    return tools::exit_bad_input;
  }
  return 1;
}
