// attach.*: `.java_pid<pid>` listener sockets and `.attach_pid<pid>` trigger files.
#include <string>

#include "checks/evidence.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kListenerMode = 0600;

// Whom the socket should belong to: the process's uid when it was read, else the owner of
// the namespace that holds the backing file of the same pid.
struct ExpectedOwner {
  std::uint32_t uid = 0;
  std::string_view source;  // "process" or "namespace"
};

std::optional<ExpectedOwner> expected_owner(const TempRootFacts& root, const AttachFacts& attach) {
  if (const ProcessFacts* p = attach.liveness ? attach.liveness->alive() : nullptr; p && p->real_uid) {
    return ExpectedOwner{*p->real_uid, "process"};
  }
  if (!attach.pid) return std::nullopt;
  for (const auto& ns : root.namespaces) {
    const auto owner = namespace_owner(ns);
    if (!owner) continue;
    for (const auto& file : ns.files) {
      if (file.pid_name.kind == PidNameKind::canonical && file.pid_name.pid == attach.pid) {
        return ExpectedOwner{*owner, "namespace"};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

// HotSpot's attach files are a POSIX mechanism; Windows attaches through other means, so
// every attach rule judges POSIX roots only.

void attach_observation_error(const TempRootFacts& root, const AttachFacts& attach, Findings& out) {
  if (root.platform != Platform::posix || attach.errors.empty()) return;
  out.push_back(observation_error_finding("attach.observation-error", "attach file", attach.path,
                                          attach.errors));
}

void attach_socket_unsafe(const TempRootFacts& root, const AttachFacts& attach, Findings& out) {
  if (root.platform != Platform::posix || attach.kind != AttachFacts::Kind::listener_socket ||
      !attach.lstat) {
    return;
  }
  const InodeFacts& inode = *attach.lstat;
  const std::string where = printable(attach.path);
  nlohmann::json reasons = nlohmann::json::array();
  std::string why;
  const auto add = [&](std::string_view reason, const std::string& text) {
    reasons.push_back(reason);
    why += (why.empty() ? "" : "; ") + text;
  };

  if (inode.kind != FileKind::socket) {
    add("not-socket", "it is " + std::string(describe(inode.kind)) + ", not a socket");
  }
  const auto expected = expected_owner(root, attach);
  if (expected && inode.uid != expected->uid) {
    add("owner", "owned by uid " + std::to_string(inode.uid) + ", not by the " +
                     std::string(expected->source) + "'s uid " + std::to_string(expected->uid));
  }
  if ((inode.mode & 07777) != kListenerMode) {
    add("mode", "mode " + octal_mode(inode.mode) + " instead of 0600");
  }
  if (reasons.empty()) return;

  nlohmann::json evidence = {{"reasons", std::move(reasons)},
                             {"kind", to_string(inode.kind)},
                             {"uid", inode.uid},
                             {"expected_mode", "0600"}};
  put_mode(evidence, inode.mode);
  if (expected) {
    evidence["expected_uid"] = expected->uid;
    evidence["expected_uid_source"] = expected->source;
  } else {
    evidence["expected_uid"] = nullptr;
  }
  if (attach.pid) evidence["pid"] = *attach.pid;
  out.push_back(make_finding("attach.socket-unsafe", attach.path,
                             "attach listener " + where + " is not what a JVM creates: " + why,
                             std::move(evidence)));
}

// Only a positive observation of absence makes a file stale: the pid gone in every pid
// namespace whose processes use this temp dir (AttachLiveness::proves_gone, which the reaper's
// verdict follows too); no permission, an unreadable /proc or a search that could not place
// every process leaves it unknown, and unknown is not reported.
void attach_stale(const TempRootFacts& root, const AttachFacts& attach, Findings& out) {
  if (root.platform != Platform::posix || !attach.pid || !attach.liveness ||
      !attach.liveness->proves_gone()) {
    return;
  }
  nlohmann::json evidence = {
      {"existence", "gone"},
      {"kind",
       attach.kind == AttachFacts::Kind::listener_socket ? "listener-socket" : "trigger-file"},
      {"pid", *attach.pid},
      {"candidates_complete", true}};
  nlohmann::json gone = nlohmann::json::array();
  for (const ProcessFacts& p : attach.liveness->candidates) gone.push_back(p.pid);
  evidence["candidates"] = std::move(gone);
  out.push_back(make_finding("attach.stale", attach.path,
                             "attach file " + printable(attach.path) + " belongs to pid " +
                                 std::to_string(*attach.pid) +
                                 ", which no longer exists in any pid namespace using this temp dir",
                             std::move(evidence)));
}

// A listener socket whose pid lives but does not listen on it (AttachLiveness::
// proves_no_listener, which the reaper's verdict follows too): a killed JVM's socket whose pid
// was given to another process, or a socket file someone made. The JDK's attach client finds
// the file, connects, and gets "Connection refused" for as long as the file is there: it never
// signals the JVM to start a listener. Unknown listening state is not reported.
void attach_no_listener(const TempRootFacts& root, const AttachFacts& attach, Findings& out) {
  if (root.platform != Platform::posix || attach.kind != AttachFacts::Kind::listener_socket ||
      !attach.pid || !attach.lstat || attach.lstat->kind != FileKind::socket || !attach.liveness ||
      !attach.liveness->proves_no_listener()) {
    return;
  }
  const ProcessFacts& p = *attach.liveness->alive();
  nlohmann::json listeners = nlohmann::json::array();
  for (const AttachListenerFacts& l : attach.liveness->listeners) listeners.push_back(l.pid);
  nlohmann::json evidence = {{"existence", "alive"},
                             {"pid", *attach.pid},
                             {"listening", false},
                             {"checked_pids", std::move(listeners)},
                             {"candidates_complete", true}};
  if (p.maps_libjvm) {
    evidence["jvm"] = *p.maps_libjvm;
  } else {
    evidence["jvm"] = nullptr;
  }
  const std::string pid = "pid " + std::to_string(*attach.pid);
  const std::string what = !p.maps_libjvm  ? "a process that may not be a JVM"
                           : *p.maps_libjvm ? "a JVM without an attach listener"
                                            : "not a JVM";
  out.push_back(make_finding("attach.no-listener", attach.path,
                             "attach socket " + printable(attach.path) + " belongs to " + pid +
                                 ", which is alive but does not listen on it (" + what +
                                 "): attach tools get \"Connection refused\" from it",
                             std::move(evidence)));
}

}  // namespace hsperfguard::checks
