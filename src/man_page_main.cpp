// hsperfguard_man_page, a build tool: writes the man page hsperfguard(1) to standard output from
// the command line hsperfguard itself parses with and the template named by its argument
// (docs/hsperfguard.1.in; commands/man_page.hpp). Not installed.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "commands/command_line.hpp"
#include "commands/man_page.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: hsperfguard_man_page TEMPLATE > hsperfguard.1\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream text;
  if (in.is_open()) text << in.rdbuf();
  if (!in.is_open() || in.bad()) {
    std::cerr << "hsperfguard_man_page: " << argv[1] << ": cannot read\n";
    return 1;
  }
  const hsperfguard::CommandLine line;
  std::string error;
  const auto page = hsperfguard::man_page(line.app, text.str(), hsperfguard::kVersion, error);
  if (!page) {
    std::cerr << "hsperfguard_man_page: " << argv[1] << ": " << error << "\n";
    return 1;
  }
  std::cout << *page;
  return std::cout.flush() ? 0 : 1;
}
