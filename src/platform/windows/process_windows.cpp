#include <windows.h>

#include "platform/process.hpp"
#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform {

ProcessFacts observe_process(std::int32_t pid) {
  ProcessFacts facts;
  facts.pid = pid;
  if (pid <= 0) {
    facts.existence = ProcessFacts::Existence::gone;  // no JVM runs as pid 0 or below
    return facts;
  }
  // Process ids are client-id handle values, multiples of 4; OpenProcess ignores the two
  // low bits, so OpenProcess(4243) would answer about process 4240. A name that is not a
  // multiple of 4 can only be a pid that no process has.
  if (pid % 4 != 0) {
    facts.existence = ProcessFacts::Existence::gone;
    return facts;
  }
  const auto id = static_cast<DWORD>(pid);
  // SYNCHRONIZE lets us wait on the process, which is the only unambiguous "has it exited"
  // test: an exit code of STILL_ACTIVE (259) is also a legal exit status.
  bool can_wait = true;
  win::UniqueHandle process(::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, id));
  if (!process.valid() && ::GetLastError() == ERROR_ACCESS_DENIED) {
    can_wait = false;
    process.reset(::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, id));
  }
  if (!process.valid()) {
    const DWORD error = ::GetLastError();
    if (error == ERROR_INVALID_PARAMETER) {
      facts.existence = ProcessFacts::Existence::gone;  // no process has this id
    } else if (error == ERROR_ACCESS_DENIED) {
      // It exists; HotSpot would call its file stale, we may not (docs/POLICY.md section 6).
      facts.existence = ProcessFacts::Existence::no_permission;
      facts.error = win::make_error("pid " + std::to_string(pid), "OpenProcess", error);
    } else {
      facts.error = win::make_error("pid " + std::to_string(pid), "OpenProcess", error);
    }
    return facts;
  }

  if (can_wait) {
    const DWORD wait = ::WaitForSingleObject(process.get(), 0);
    if (wait == WAIT_OBJECT_0) {
      facts.existence = ProcessFacts::Existence::gone;  // exited; a handle keeps its object
    } else if (wait == WAIT_TIMEOUT) {
      facts.existence = ProcessFacts::Existence::alive;
    } else {
      facts.error = win::make_error("pid " + std::to_string(pid), "WaitForSingleObject", ::GetLastError());
    }
  } else {
    DWORD exit_code = 0;
    if (!::GetExitCodeProcess(process.get(), &exit_code)) {
      facts.error = win::make_error("pid " + std::to_string(pid), "GetExitCodeProcess", ::GetLastError());
    } else {
      // Without SYNCHRONIZE, STILL_ACTIVE cannot be told from an exit status of 259: the
      // safe reading is "alive".
      facts.existence = exit_code == STILL_ACTIVE ? ProcessFacts::Existence::alive
                                                  : ProcessFacts::Existence::gone;
    }
  }

  FILETIME created{}, exited{}, kernel{}, user{};
  if (::GetProcessTimes(process.get(), &created, &exited, &kernel, &user)) {
    facts.start_time_ms = win::to_timestamp(created).millis();
  }
  return facts;
}

std::optional<std::string> process_name(std::int32_t /*pid*/) { return std::nullopt; }

}  // namespace hsperfguard::platform
