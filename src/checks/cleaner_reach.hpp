// Which configured cleaners would delete a live JVM's files: its backing file
// (<temp>/hsperfdata_<user>/<pid>) and its attach socket (<temp>/.java_pid<pid>), judged from
// the cleaners' facts (model/cleaners.hpp) as each tool matches paths, and the exclusion each
// one needs. An analysis, not a rule family: it emits no finding; tmpdir.cleaner-ages-jvm-files
// reports what it finds. Pure.
#pragma once

#include <string>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::checks {

struct CleanerReach {
  const cleaners::Cleaning* cleaning = nullptr;
  bool backing_files = false;   // would delete <temp>/hsperfdata_<user>/<pid>
  bool attach_sockets = false;  // would delete <temp>/.java_pid<pid>
  // The exclusion that keeps it off what it reaches, as a line to write, and where: a
  // tmpfiles.d line per kind of file, a setting of /etc/tmpreaper.conf, the options to add to
  // a command.
  std::vector<std::string> exclusion_lines;
  std::string exclusion_where;
};

// The cleanings of `root.cleaners` that reach a live JVM's files in `root.temp_dir` (as the
// audited system names it) with no exclusion covering them, in configuration order. A
// disabled cleaning (a job that exits before it) reaches nothing.
std::vector<CleanerReach> cleaners_reaching_jvm_files(const TempRootFacts& root);

// `literal` as the start of a glob that matches exactly it: *, ?, [ and \ escaped.
std::string glob_literal(std::string_view literal);

}  // namespace hsperfguard::checks
