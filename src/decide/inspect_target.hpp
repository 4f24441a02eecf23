// Which file `inspect PID` reads. jstat takes the newest file named PID in any user's
// namespace, so anyone who can write a namespace (her own) could show root a region of her
// making under another user's pid. The choice here trusts what the process itself says first:
// the file it maps, then its user.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decide/ps.hpp"
#include "model/facts.hpp"

namespace hsperfguard {

struct InspectTarget {
  std::optional<std::size_t> candidate;  // the index of the file to read; nullopt: none
  std::string refusal;                   // why none, when there is none
  std::vector<std::string> notes;        // what the reader should know (files passed over)
};

// What is known of the process for the choice. `maps_read`: its maps could be read (then
// `mapped` is the backing file it maps, or nullopt for none).
struct InspectProcess {
  struct Mapped {
    std::uint64_t dev = 0;  // as st_dev
    std::uint64_t ino = 0;
  };
  std::int32_t pid = 0;
  ProcessFacts::Existence existence = ProcessFacts::Existence::unknown;
  std::optional<std::uint32_t> effective_uid;
  bool maps_read = false;
  std::optional<Mapped> mapped;
};

// - The process maps a backing file: the candidate that is that very file (device and inode),
//   or none (it maps a file of another root, a container's, or one replaced since).
// - Otherwise a running process's file is one its effective user owns (a JVM creates its file
//   as that user); files of other owners are passed over, named in the notes.
// - A pid that runs no process: its one file (a stale one, said so); several are ambiguous.
// - A process whose user cannot be read: its one file, said so; several are ambiguous.
InspectTarget choose_backing_file(const InspectProcess& process, const std::vector<BackingFileCandidate>& candidates);

// Why `inspect PID` has no backing file to read, in ps's words, when the process says why:
// - no process PID and no file named after it: "no process 4242" (files of that name are
//   choose_backing_file's to speak of: a stale one, or several that are ambiguous);
// - a live process that maps no libjvm: "pid 4242 is not a JVM (comm bash)";
// - a JVM that ps lists with no backing file (`jvm`, its row: blind or deleted): ps's
//   diagnosis, "pid 4242 is a JVM started with -XX:-UsePerfData (command line): it has no
//   backing file", with its fix; an OpenJ9 JVM (its row's state openj9): "pid 4242 is an
//   OpenJ9 JVM, which has no backing file", and what reaches it.
// nullopt when none of these holds (the caller keeps choose_backing_file's refusal).
struct NoBackingFileFacts {
  std::int32_t pid = 0;
  ProcessFacts::Existence existence = ProcessFacts::Existence::unknown;
  std::size_t files = 0;              // files named after the pid in the namespaces looked at
  std::optional<bool> maps_libjvm;    // nullopt: its maps could not be read
  std::optional<std::string> comm;    // its command name
  const PsRow* jvm = nullptr;         // ps's row of this pid, when ps lists it without a file
};
std::optional<std::string> explain_no_backing_file(const NoBackingFileFacts& facts);

}  // namespace hsperfguard
