// Facts about the running system and process, and small OS services the commands need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"
#include "model/host_info.hpp"

namespace hsperfguard::platform {

HostInfo observe_host();
std::int64_t now_epoch_ms();
bool stdout_is_terminal();
bool stderr_is_terminal();
// The width in columns of the terminal standard output is, nullopt when it is none (or says 0).
std::optional<std::size_t> stdout_terminal_columns();

// While an object lives, std::cout writes standard output whole. A terminal or pipe shares its
// file description with every program it was handed to, and one of them may have made it
// non-blocking (O_NONBLOCK): a write the reader is not ready for then fails (EAGAIN), and the
// stream failed, the report cut and the run called incomplete (seen: an audit's JSON on such
// a terminal, 276 of 1,163 lines and exit 3). POSIX waits until the reader takes more (poll),
// and writes again after a signal that asks no stop (EINTR); once a stop signal (StopSignals)
// has come, no write waits: it ends the stream, as before, where the reader is not ready.
// Output is buffered as stdio's was: by line on a terminal, by 64 KiB elsewhere. The
// destructor flushes what is left and gives std::cout its buffer back. Windows: nothing
// changes (a pipe handle put in PIPE_NOWAIT mode by another program is not handled).
class WholeStandardOutput {
 public:
  WholeStandardOutput();
  ~WholeStandardOutput();
  WholeStandardOutput(const WholeStandardOutput&) = delete;
  WholeStandardOutput& operator=(const WholeStandardOutput&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a small configuration file (a policy document). Not for untrusted namespaces. POSIX:
// refused unless every directory on its path is root's or ours and the file is root's or ours
// and writable by nobody else (a user could otherwise lower what the audit reports).
std::optional<std::string> read_config_file(const std::string& path, ObservationError* error);

// The conventional policy file, read when --policy names none: /etc/hsperfguard/policy.json
// (the packages install it). None on Windows.
std::optional<std::string> default_policy_file();
// Whether read_config_file's error says that the file, or a directory on its way, does not
// exist (the default policy file's absence is not an error; any other failure is).
bool config_file_absent(const ObservationError& error);

}  // namespace hsperfguard::platform
