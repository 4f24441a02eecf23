// The rule catalogue (rules/*.json) and profiles (rules/profiles/*.json) as compiled into
// the binary. The definitions are generated at build time by rules/embed_rules.cmake;
// src/rule_catalog.cpp parses and validates them.
#pragma once

#include <span>
#include <string_view>

namespace hsperfguard::embedded_rules {

struct EmbeddedFile {
  std::string_view name;  // file name relative to its folder: "namespace.json"
  std::string_view text;  // the JSON text, byte for byte
};

// One file per rule family, each an array of rules; sorted by name.
std::span<const EmbeddedFile> rule_files();
// One file per built-in profile ("default.json" is the profile "default"); sorted by name.
std::span<const EmbeddedFile> profile_files();

}  // namespace hsperfguard::embedded_rules
