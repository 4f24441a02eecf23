#include "model/jvm_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace hsperfguard {
namespace {

// Launcher options whose value is the next argument.
constexpr std::array<std::string_view, 12> kTakesValue = {
    "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path",
    "--add-modules", "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module"};

struct State {
  std::optional<bool> use_perf_data;            // -XX:+/-UsePerfData
  std::optional<bool> disable_shared_mem;       // -XX:+/-PerfDisableSharedMem
  PerfDataOption use_flag, shared_mem_flag;     // where each was last set
  std::optional<AltTempDirOption> alt_temp_dir;  // -XX:AltTempDir=DIR, the last one
};

constexpr std::string_view kAltTempDir = "-XX:AltTempDir=";

void apply(State& state, std::string_view token, std::string_view source) {
  if (token.starts_with(kAltTempDir)) {
    state.alt_temp_dir = AltTempDirOption{std::string(token.substr(kAltTempDir.size())), std::string(source)};
    return;
  }
  const auto set = [&](std::optional<bool>& value, PerfDataOption& where, bool on) {
    value = on;
    where.flag = std::string(token);
    where.source = std::string(source);
  };
  if (token == "-XX:+UsePerfData") set(state.use_perf_data, state.use_flag, true);
  if (token == "-XX:-UsePerfData") set(state.use_perf_data, state.use_flag, false);
  if (token == "-XX:+PerfDisableSharedMem") set(state.disable_shared_mem, state.shared_mem_flag, true);
  if (token == "-XX:-PerfDisableSharedMem") set(state.disable_shared_mem, state.shared_mem_flag, false);
}

// Blank-separated options of an environment variable.
void apply_words(State& state, std::string_view text, std::string_view source) {
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n')) ++at;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n') ++end;
    if (end > at) apply(state, text.substr(at, end - at), source);
    at = end;
  }
}

// The value of NAME in a NUL-separated environment.
std::optional<std::string_view> variable(std::string_view environment, std::string_view name) {
  std::size_t at = 0;
  while (at < environment.size()) {
    std::size_t end = environment.find('\0', at);
    if (end == std::string_view::npos) end = environment.size();
    const std::string_view entry = environment.substr(at, end - at);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
    at = end + 1;
  }
  return std::nullopt;
}

// Every option of the JVM, in the order HotSpot reads them, applied to one state.
State scan(std::string_view cmdline, std::string_view environment) {
  State state;
  if (const auto v = variable(environment, "JAVA_TOOL_OPTIONS")) apply_words(state, *v, "JAVA_TOOL_OPTIONS");
  if (const auto v = variable(environment, "JDK_JAVA_OPTIONS")) apply_words(state, *v, "JDK_JAVA_OPTIONS");
  // The command line: argv[0], then the launcher's options up to the main class.
  std::size_t at = cmdline.find('\0');
  bool value_next = false;
  while (at != std::string_view::npos && at + 1 < cmdline.size()) {
    const std::size_t start = at + 1;
    at = cmdline.find('\0', start);
    const std::string_view arg = cmdline.substr(start, (at == std::string_view::npos ? cmdline.size() : at) - start);
    if (value_next) {
      value_next = false;
      continue;
    }
    if (arg == "-jar" || arg == "-m" || arg == "--module" || arg.starts_with("--module=")) break;
    if (arg.empty() || arg.front() != '-') break;  // the main class: the program's arguments follow
    bool takes_value = false;
    for (const auto option : kTakesValue) takes_value = takes_value || arg == option;
    if (takes_value) {
      value_next = true;
      continue;
    }
    apply(state, arg, "command line");
  }
  if (const auto v = variable(environment, "_JAVA_OPTIONS")) apply_words(state, *v, "_JAVA_OPTIONS");
  return state;
}

}  // namespace

std::optional<PerfDataOption> perf_data_option(std::string_view cmdline, std::string_view environment) {
  const State state = scan(cmdline, environment);
  if (state.disable_shared_mem.value_or(false)) {
    PerfDataOption out = state.shared_mem_flag;
    out.disables = true;
    return out;
  }
  if (state.use_perf_data) {
    PerfDataOption out = state.use_flag;
    out.disables = !*state.use_perf_data;
    return out;
  }
  if (state.disable_shared_mem) return state.shared_mem_flag;  // -XX:-PerfDisableSharedMem
  return std::nullopt;
}

std::optional<AltTempDirOption> alt_temp_dir_option(std::string_view cmdline, std::string_view environment) {
  return scan(cmdline, environment).alt_temp_dir;
}

std::string windows_temp_dir(std::string_view environment, std::string_view windows_dir) {
  auto value_of = [&](std::string_view name) -> std::optional<std::string_view> {
    std::optional<std::string_view> found;
    std::size_t at = 0;
    while (at < environment.size()) {
      const std::size_t end = std::min(environment.find('\0', at), environment.size());
      const std::string_view entry = environment.substr(at, end - at);
      at = end + 1;
      // "=C:=C:\\dir": the per-drive directories, whose names start with '='.
      const std::size_t equals = entry.find('=', 1);
      if (equals != name.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < name.size() && same; ++i) {
        same = std::toupper(static_cast<unsigned char>(entry[i])) == static_cast<unsigned char>(name[i]);
      }
      if (same) found = entry.substr(equals + 1);  // the block holds each name once; the last wins
    }
    return found;
  };
  std::string_view dir = windows_dir;
  for (const std::string_view name : {"TMP", "TEMP", "USERPROFILE"}) {
    if (const auto value = value_of(name); value && !value->empty()) {
      dir = *value;
      break;
    }
  }
  std::string out(dir);
  // "C:\\" keeps its separator: the root of a drive.
  while (out.size() > 1 && (out.back() == '\\' || out.back() == '/') && !(out.size() == 3 && out[1] == ':')) {
    out.pop_back();
  }
  return out;
}

}  // namespace hsperfguard
