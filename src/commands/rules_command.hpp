// `hsperfguard rules`: the compiled-in rule catalogue.
#pragma once

#include <iosfwd>

namespace hsperfguard {

int run_rules_command(bool json, std::ostream& out);

}  // namespace hsperfguard
