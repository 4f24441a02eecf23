#include "model/facts.hpp"

#include <cstdio>

namespace hsperfguard {

std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::regular: return "regular";
    case FileKind::directory: return "directory";
    case FileKind::symlink: return "symlink";
    case FileKind::fifo: return "fifo";
    case FileKind::socket: return "socket";
    case FileKind::char_device: return "char-device";
    case FileKind::block_device: return "block-device";
    case FileKind::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(RootKind kind) {
  switch (kind) {
    case RootKind::host: return "host";
    case RootKind::tmpdir: return "tmpdir";
    case RootKind::root: return "root";
    case RootKind::container: return "container";
    case RootKind::alt_temp_dir: return "alt-temp-dir";
    case RootKind::account_temp_dir: return "account-temp-dir";
  }
  return "host";
}

std::string_view to_string(ProcessFacts::Existence existence) {
  switch (existence) {
    case ProcessFacts::Existence::alive: return "alive";
    case ProcessFacts::Existence::gone: return "gone";
    case ProcessFacts::Existence::no_permission: return "no-permission";
    case ProcessFacts::Existence::unknown: return "unknown";
  }
  return "unknown";
}

std::string octal_mode(std::uint32_t mode) {
  char text[8];  // four octal digits: never truncated
  static_cast<void>(std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777u)));
  return text;
}

}  // namespace hsperfguard
