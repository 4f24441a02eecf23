#include "decide/reaper.hpp"

#include <algorithm>
#include <utility>

#include "decide/remedy.hpp"
#include "model/compact_json.hpp"
#include "model/roots.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using Existence = ProcessFacts::Existence;

bool special_kind(FileKind kind) {
  return kind == FileKind::fifo || kind == FileKind::socket || kind == FileKind::char_device ||
         kind == FileKind::block_device;
}

// How long ago the entry last changed: its data (mtime) or its inode (ctime, which a
// rename or chmod also moves and which cannot be set from user space). Both count, so a
// file being created, or just renamed into place, is young.
std::int64_t age_of(const InodeFacts& inode, std::int64_t now_ms) {
  return now_ms - std::max(inode.ctime.millis(), inode.mtime.millis());
}



LivenessSettings settings_for(const TempRootFacts& root, const ReapOptions& options) {
  LivenessSettings settings;
  settings.start_time_tolerance_ms = options.start_time_tolerance_ms;
  settings.container = root.kind == RootKind::container;
  return settings;
}

// A root run in a container's /tmp acts only as a host uid the container's user namespace
// maps: no process in it can own anything else, so an entry of another uid there was not made
// there (a user's own user and mount namespace can bind any directory of this host she can
// reach over its /tmp), and acting as its owner would remove files of this host. A map that
// could not be read maps nothing.
bool acts_outside_container(const RootPlan& root_plan, std::uint32_t owner, std::uint32_t euid) {
  if (root_plan.kind != RootKind::container || euid != 0) return false;
  return !root_plan.container || !root_plan.container->maps_host_uid(owner);
}

NamespacePlan plan_namespace(const NamespaceFacts& ns, const RootPlan& root_plan, std::size_t r,
                             std::size_t n, std::uint32_t euid) {
  NamespacePlan p;
  p.root = r;
  p.ns = n;
  p.name = ns.name;
  p.path = ns.path;
  p.user = ns.user_suffix;
  if (!ns.user_lookup_failed) p.user_exists = ns.user.has_value();
  if (ns.opened) p.expected = expected_from(*ns.opened);

  auto refuse = [&](std::string why) {
    p.actionable = false;
    p.why = std::move(why);
    return p;
  };
  if (!ns.lstat) return refuse("unobserved");
  if (ns.lstat->kind != FileKind::directory) return refuse("not-a-directory");
  if (ns.crosses_mount) return refuse("crosses-mount");
  if (!ns.opened) return refuse("unobserved");
  if (!ns.identity_matches || ns.opened->kind != FileKind::directory) return refuse("replaced");
  if (!root_plan.actionable) return refuse("temp-dir-unobserved");
  if (acts_outside_container(root_plan, ns.opened->uid, euid)) return refuse("owner-outside-container");
  if (euid == 0) {
    p.acting = ActingIdentity{ns.opened->uid, ns.opened->gid};
  } else if (ns.opened->uid != euid) {
    return refuse("not-owner");  // only root may act as another user
  }
  p.actionable = true;
  p.why = "ok";
  return p;
}

// ---- What the executor's identity may do --------------------------------------------------
//
// The executor (platform/reap.hpp) acts with the identity the plan names (a root run: the
// owner of the directory it works in, as fsuid and fsgid with no supplementary groups, which
// drops root's file-system capabilities; any other run: itself). To remove an entry it looks
// its name up in the directory (search), opens a regular file for reading to take its lock
// (read), and unlinks the name (write, and in a sticky directory it must own the entry or
// the directory). An entry that identity may not remove would fail on every run, so it is
// never planned for removal: it is kept, and a person decides (item_remediation says how).

// Who acts, as far as the plan knows: the identity it names, or the run's own user, whose
// supplementary groups the plan does not know (a group's bits then grant it nothing here:
// such an entry is kept rather than tried and failed).
struct Actor {
  std::uint32_t uid = 0;
  std::optional<std::uint32_t> gid;
};

Actor actor_of(const std::optional<ActingIdentity>& acting, std::uint32_t euid) {
  if (acting) return Actor{acting->uid, acting->gid};
  return Actor{euid, std::nullopt};
}

constexpr std::uint32_t kRead = 4, kWrite = 2, kSearch = 1;

// The permission bits of `inode` that apply to `actor`: the owner's, else the group's for its
// one group, else other's. Access ACLs are not read for the plan: an entry with one may be
// granted or refused otherwise, and the executor's checks then decide as always.
std::uint32_t bits_for(const Actor& actor, const ExpectedInode& inode) {
  if (inode.uid == actor.uid) return (inode.mode >> 6) & 7;
  if (actor.gid && inode.gid == *actor.gid) return (inode.mode >> 3) & 7;
  return inode.mode & 7;
}

// What stops `actor` from removing `entry` from `dir`, or nullopt. uid 0 keeps root's
// capabilities (its fsuid does not change) and may do it all.
std::optional<RemovalDenial> denial_for(const Actor& actor, const ExpectedInode& dir,
                                        const ExpectedInode& entry) {
  if (actor.uid == 0) return std::nullopt;
  const std::uint32_t on_dir = bits_for(actor, dir);
  if ((on_dir & kSearch) == 0) return RemovalDenial::search_directory;
  if ((on_dir & kWrite) == 0) return RemovalDenial::write_directory;
  if ((dir.mode & 01000) != 0 && entry.uid != actor.uid && dir.uid != actor.uid) {
    return RemovalDenial::sticky_directory;
  }
  if (entry.kind == FileKind::regular && (bits_for(actor, entry) & kRead) == 0) {
    return entry.uid == actor.uid ? RemovalDenial::read_own_entry : RemovalDenial::read_foreign_entry;
  }
  return std::nullopt;
}

// The directory a plan item is removed from: its namespace's, or the temp dir's (attach
// files, namespace directories).
const std::optional<ExpectedInode>& directory_of(const Plan& plan, const PlanItem& item) {
  if (item.subject == ReapSubject::namespace_file) return plan.namespaces.at(*item.ns).expected;
  for (const RootPlan& root : plan.roots) {
    if (root.root == item.root) return root.expected;
  }
  static const std::optional<ExpectedInode> none;
  return none;
}

// A removal the gates let through becomes "keep, not-permitted" when the identity that would
// carry it out may not: the dry run then shows what the real run will do.
void keep_if_denied(PlanItem& item, const std::optional<ExpectedInode>& dir, std::uint32_t euid,
                    Platform platform) {
  if (item.action != ReapAction::remove || platform != Platform::posix || !dir || !item.expected) return;
  if (denial_for(actor_of(item.acting, euid), *dir, *item.expected)) {
    item.action = ReapAction::keep;
    item.why = kNotPermitted;
  }
}

// The action for a reapable entry of an actionable directory: every reason not to act,
// in the order they are checked.
// `special_allowed`: FIFOs, sockets and devices may go (--include-special, or an attach
// listener, which is a socket by nature).
std::pair<ReapAction, std::string> gate(const InodeFacts& inode, std::int64_t age_ms,
                                        const ReapOptions& options, bool special_allowed) {
  if (inode.kind == FileKind::directory) return {ReapAction::skip, "directory"};
  if (special_kind(inode.kind) && !special_allowed) {
    return {ReapAction::skip, "special-file"};
  }
  if (inode.kind == FileKind::unknown) return {ReapAction::skip, "unexpected-kind"};
  // Removing one name of a hard-linked file changes the other file (its link count), and
  // a JVM refuses such a file anyway: an operator decides.
  if (inode.nlink > 1) return {ReapAction::skip, "hard-linked"};
  if (age_ms < options.min_age_ms) return {ReapAction::skip, "too-young"};
  return {ReapAction::remove, "reapable"};
}

PlanItem plan_file(const TempRootFacts& root, const NamespaceFacts& ns, const NamespacePlan& ns_plan,
                   std::size_t ns_index, std::size_t f, const ReapOptions& options,
                   std::int64_t now_ms, std::uint32_t euid) {
  const FileFacts& file = ns.files[f];
  PlanItem item;
  item.subject = ReapSubject::namespace_file;
  item.root = ns_plan.root;
  item.ns = ns_index;
  item.index = f;
  item.name = file.name;
  item.path = file.path;
  item.acting = ns_plan.acting;

  const LivenessJudgement v = judge_liveness(file, settings_for(root, options));
  item.verdict = v.verdict;
  item.reason = v.reason;
  item.liveness = v;
  if (file.lstat) {
    item.expected = expected_from(*file.lstat);
    item.age_ms = age_of(*file.lstat, now_ms);
  }

  if (!reapable(item.verdict) || !file.lstat) {
    item.action = ReapAction::keep;
    item.why = item.verdict == Verdict::live ? "live" : "unknown";
  } else if (!ns_plan.actionable) {
    item.action = ReapAction::skip;
    item.why = "namespace-not-actionable";
  } else {
    std::tie(item.action, item.why) =
        gate(*file.lstat, *item.age_ms, options, options.include_special);
    keep_if_denied(item, ns_plan.expected, euid, root.platform);
  }
  return item;
}

// An empty namespace directory of a user that no longer exists (only when asked): after its
// files, if every one of them is planned for removal. The executor's rmdir fails, changing
// nothing, if anything else is left in it by then.
PlanItem plan_namespace_dir(const RootPlan& root_plan, Platform platform, const NamespacePlan& ns_plan,
                            std::size_t ns_index, std::size_t planned_files,
                            std::size_t removable_files, const InodeFacts& dir,
                            const ReapOptions& options, std::int64_t now_ms, std::uint32_t euid) {
  PlanItem item;
  item.subject = ReapSubject::namespace_dir;
  item.root = ns_plan.root;
  item.ns = ns_index;
  item.index = ns_plan.ns;
  item.name = ns_plan.name;
  item.path = ns_plan.path;
  item.acting = ns_plan.acting;
  item.expected = expected_from(dir);
  item.age_ms = age_of(dir, now_ms);
  item.verdict = Verdict::stale;
  item.reason = "user-gone";
  if (!ns_plan.actionable) {
    item.action = ReapAction::skip;
    item.why = "namespace-not-actionable";
  } else if (removable_files != planned_files) {
    item.action = ReapAction::skip;
    item.why = "not-empty";
  } else if (*item.age_ms < options.min_age_ms) {
    item.action = ReapAction::skip;
    item.why = "too-young";
  } else {
    item.action = ReapAction::remove;
    item.why = "reapable";
    keep_if_denied(item, root_plan.expected, euid, platform);
  }
  return item;
}

// `attach`: root.attach_files[a], or one observed apart from its temp dir (count_reap).
PlanItem plan_attach(const TempRootFacts& root, const RootPlan& root_plan, const AttachFacts& attach,
                     std::size_t a, const ReapOptions& options, std::int64_t now_ms, std::uint32_t euid) {
  PlanItem item;
  item.subject = ReapSubject::attach_file;
  item.root = root_plan.root;
  item.index = a;
  item.name = attach.name;
  item.path = attach.path;
  LivenessVerdict v = judge_attach_file(attach);
  item.verdict = v.verdict;
  item.reason = std::move(v.reason);
  if (attach.lstat) {
    item.expected = expected_from(*attach.lstat);
    item.age_ms = age_of(*attach.lstat, now_ms);
    if (euid == 0) item.acting = ActingIdentity{attach.lstat->uid, attach.lstat->gid};
  }

  if (item.verdict == Verdict::foreign) {
    item.action = ReapAction::skip;  // not what a JVM leaves behind: the audit reports it
    item.why = item.reason;
  } else if (!reapable(item.verdict) || !attach.lstat) {
    item.action = ReapAction::keep;
    item.why = item.verdict == Verdict::live ? "live" : "unknown";
  } else if (!root_plan.actionable) {
    item.action = ReapAction::skip;
    item.why = "temp-dir-not-actionable";
  } else if (acts_outside_container(root_plan, attach.lstat->uid, euid)) {
    item.action = ReapAction::skip;
    item.why = "owner-outside-container";
  } else if (euid != 0 && attach.lstat->uid != euid) {
    item.action = ReapAction::skip;  // the temp dir is sticky: only the owner may remove it
    item.why = "not-owner";
  } else {
    std::tie(item.action, item.why) = gate(*attach.lstat, *item.age_ms, options, true);
    keep_if_denied(item, root_plan.expected, euid, root.platform);
  }
  return item;
}

}  // namespace

namespace {

// "/proc/42/fd: read: Permission denied": why a listener could not be seen.
std::string error_text(const ObservationError& e) {
  std::string text = e.path + ": " + e.op;
  if (!e.message.empty()) text += ": " + e.message;
  return text;
}

}  // namespace

LivenessVerdict judge_attach_file(const AttachFacts& attach) {
  LivenessVerdict v;
  json file = {{"attach_kind", attach.kind == AttachFacts::Kind::listener_socket ? "listener-socket"
                                                                                : "trigger-file"}};
  if (attach.pid) file["pid"] = *attach.pid;
  if (attach.lstat) {
    file["kind"] = to_string(attach.lstat->kind);
    file["dev"] = attach.lstat->dev;
    file["ino"] = attach.lstat->ino;
  }
  v.evidence = {{"file", file}};
  auto decide = [&](Verdict verdict, std::string reason, std::string decided_by,
                    std::string message) {
    v.verdict = verdict;
    v.reason = std::move(reason);
    v.message = std::move(message);
    v.evidence["decided_by"] = std::move(decided_by);
    v.evidence["reason"] = v.reason;
    return v;
  };

  if (!attach.lstat) return decide(Verdict::unknown, "file-unobserved", "file", "the file could not be stat'ed");
  if (!attach.pid) {
    return decide(Verdict::foreign, "not-a-pid-name", "name", "the name does not end in a pid");
  }
  const FileKind want = attach.kind == AttachFacts::Kind::listener_socket ? FileKind::socket
                                                                          : FileKind::regular;
  if (attach.lstat->kind != want) {
    return decide(Verdict::foreign, "unexpected-kind", "file-kind",
                  "a " + std::string(to_string(attach.lstat->kind)) + " where the JVM puts a " +
                      std::string(to_string(want)));
  }
  if (!attach.liveness) {
    return decide(Verdict::unknown, "process-unobserved", "process",
                  "pid " + std::to_string(*attach.pid) + " was not looked up");
  }
  const AttachLiveness& al = *attach.liveness;
  json candidates = json::array();
  for (const ProcessFacts& p : al.candidates) {
    json c = {{"pid", p.pid}, {"existence", to_string(p.existence)}};
    if (!p.ns_pids.empty()) c["ns_pids"] = p.ns_pids;
    if (p.mount_namespace) c["mount_namespace"] = *p.mount_namespace;
    if (p.start_time_ms) c["start_time_ms"] = *p.start_time_ms;
    candidates.push_back(std::move(c));
  }
  v.evidence["candidates"] = std::move(candidates);
  v.evidence["candidates_complete"] = al.candidates_complete;
  const std::string pid = "pid " + std::to_string(*attach.pid);
  const auto alive_text = [&](const ProcessFacts& p) {
    return p.pid == *attach.pid ? pid + " is alive"
                                : pid + " is alive (host pid " + std::to_string(p.pid) +
                                      ", in another pid namespace using this temp dir)";
  };
  if (!al.listeners.empty()) {
    json listeners = json::array();
    for (const AttachListenerFacts& l : al.listeners) {
      json one = {{"pid", l.pid}, {"listens", l.listens ? json(*l.listens) : json(nullptr)}};
      if (l.socket_inode) one["socket_inode"] = *l.socket_inode;
      if (!l.bound_path.empty()) one["bound_path"] = l.bound_path;
      if (!l.errors.empty()) one["error"] = error_text(l.errors.front());
      listeners.push_back(std::move(one));
    }
    v.evidence["listeners"] = std::move(listeners);
  }
  // A listener socket whose live process listens on it is that JVM's; one that nothing
  // listens on is stale whatever its pid: attach tools only get "Connection refused" from it,
  // and a JVM makes its socket file only once its listener listens, so it is never a JVM's
  // about to be used. Whether one listens that could not be read keeps it, as any doubt does.
  if (const ProcessFacts* p = al.alive(); p != nullptr && !al.listeners.empty()) {
    for (const AttachListenerFacts& l : al.listeners) {
      if (l.listens == true) {
        v.evidence["decided_by_pid"] = l.pid;
        return decide(Verdict::live, "process-alive", "listener",
                      alive_text(*p) + " and listens on this socket");
      }
    }
    for (const AttachListenerFacts& l : al.listeners) {
      if (!l.listens) {
        v.evidence["decided_by_pid"] = l.pid;
        return decide(Verdict::unknown, "listener-unobserved", "listener",
                      alive_text(*p) + "; whether it listens on this socket could not be read (" +
                          (l.errors.empty() ? std::string("no reason given") : error_text(l.errors.front())) +
                          ")");
      }
    }
    if (al.proves_no_listener()) {
      v.evidence["decided_by_pid"] = p->pid;
      const std::string what = !p->maps_libjvm ? "it may not be a JVM"
                               : *p->maps_libjvm ? pid + " is a JVM without an attach listener"
                                                 : pid + " is not a JVM";
      return decide(Verdict::stale, "no-listener", "listener",
                    alive_text(*p) + " but nothing listens on this socket (" + what + ")");
    }
  }
  // Any candidate that lives keeps it, any doubt keeps it; it is stale only when the pid is
  // gone in every pid namespace whose processes use this temp dir.
  if (const ProcessFacts* p = al.alive()) {
    v.evidence["decided_by_pid"] = p->pid;
    return decide(Verdict::live, "process-alive", "process", alive_text(*p));
  }
  for (const ProcessFacts& p : al.candidates) {
    if (p.existence == Existence::no_permission) {
      v.evidence["decided_by_pid"] = p.pid;
      return decide(Verdict::unknown, "process-no-permission", "process",
                    "pid " + std::to_string(p.pid) + " exists but may not be inspected (EPERM)");
    }
    if (p.existence == Existence::unknown) {
      v.evidence["decided_by_pid"] = p.pid;
      return decide(Verdict::unknown, "process-unknown", "process",
                    "whether pid " + std::to_string(p.pid) + " exists could not be determined");
    }
  }
  if (!al.proves_gone()) {
    return decide(Verdict::unknown, "process-scan-incomplete", "process",
                  "no process was found with " + pid +
                      ", but not every process that may use this temp dir from another pid "
                      "namespace could be placed");
  }
  return decide(Verdict::stale, "process-gone", "process",
                pid + " no longer exists in any pid namespace whose processes use this temp dir");
}

bool region_may_decide(const FileFacts& file) {
  if (!file.liveness) return true;
  for (const ProcessFacts& p : file.liveness->candidates) {
    if (p.existence != Existence::gone) return true;
  }
  return false;
}

LivenessVerdict explain_item(const std::vector<TempRootFacts>& roots, const Plan& plan,
                             std::size_t i, const ReapOptions& options, std::string& evidence) {
  const PlanItem& item = plan.items.at(i);
  if (item.subject == ReapSubject::namespace_file) {
    const TempRootFacts& root = roots.at(item.root);
    const NamespacePlan& ns = plan.namespaces.at(*item.ns);
    const FileFacts& file = root.namespaces.at(ns.ns).files.at(item.index);
    const LivenessSettings settings = settings_for(root, options);
    return explain_liveness(item.liveness ? *item.liveness : judge_liveness(file, settings), file,
                            settings, evidence);
  }
  LivenessVerdict v = explain_item(roots, plan, i, options);
  append_json(evidence, v.evidence);
  v.evidence = nullptr;
  return v;
}

LivenessVerdict explain_item(const std::vector<TempRootFacts>& roots, const Plan& plan,
                             std::size_t i, const ReapOptions& options) {
  const PlanItem& item = plan.items.at(i);
  const TempRootFacts& root = roots.at(item.root);
  switch (item.subject) {
    case ReapSubject::namespace_file: {
      const NamespacePlan& ns = plan.namespaces.at(*item.ns);
      const FileFacts& file = root.namespaces.at(ns.ns).files.at(item.index);
      const LivenessSettings settings = settings_for(root, options);
      return explain_liveness(item.liveness ? *item.liveness : judge_liveness(file, settings), file,
                              settings);
    }
    case ReapSubject::attach_file:
      return judge_attach_file(root.attach_files.at(item.index));
    case ReapSubject::namespace_dir: {
      const NamespacePlan& ns = plan.namespaces.at(*item.ns);
      LivenessVerdict v;
      v.verdict = item.verdict;
      v.reason = item.reason;
      v.message = "no user '" + ns.user + "' exists: no JVM can use this directory";
      v.evidence = {{"user", ns.user},
                    {"user_exists", false},
                    {"entries", ns.entries},
                    {"entries_planned_for_removal", ns.entries_planned_for_removal},
                    {"decided_by", "user"},
                    {"reason", item.reason}};
      return v;
    }
  }
  return {};
}

ReapPlanner::ReapPlanner(Plan& plan, const ReapOptions& options, std::uint32_t euid)
    : plan_(plan), options_(options), euid_(euid) {
  plan_.euid = euid;
}

namespace {

// How a person removes an entry the reaper leaves: with the rights of the user who may remove
// it (the directory's owner; in a sticky directory the entry's), since the owner of the
// directory can put anything at the path before the command runs (decide/remedy.hpp); a
// container's entry from inside the container, never through /proc/<pid>/root, where an
// absolute link resolves on this host.
std::string remove_by_hand(const Plan& plan, const PlanItem& item, const ExpectedInode& dir,
                           RemovalDenial denial) {
  const RootPlan* root = item.root < plan.roots.size() ? &plan.roots[item.root] : nullptr;
  if (root != nullptr && root->kind == RootKind::container) {
    const std::string inside =
        path_inside_root(item.path, reachable_path(root->root_dir, root->temp_dir), root->temp_dir)
            .value_or(item.path);
    return "check what it is, then remove it inside the container (its runtime's exec, as the owner "
           "of the directory it is in), where it is `rm -- " + shell_word(inside) +
           "`; never through " + shell_word(item.path) + " from this host";
  }
  std::string rm = "`rm -- " + shell_word(item.path) + "`";
  const bool sticky = denial == RemovalDenial::sticky_directory;
  const std::uint32_t uid = sticky ? item.expected->uid : dir.uid;
  const std::uint32_t gid = sticky ? item.expected->gid : dir.gid;
  if (uid != 0) rm = run_as_owner(std::move(rm), uid, gid);
  return "check what it is, then remove it by hand (" + rm + ")";
}

}  // namespace

std::optional<std::string> item_remediation(const Plan& plan, std::size_t i) {
  const PlanItem& item = plan.items.at(i);
  if (item.why != kNotPermitted || !item.expected) return std::nullopt;
  const std::optional<ExpectedInode>& dir = directory_of(plan, item);
  if (!dir) return std::nullopt;
  const Actor actor = actor_of(item.acting, plan.euid);
  const std::optional<RemovalDenial> denial = denial_for(actor, *dir, *item.expected);
  if (!denial) return std::nullopt;
  const std::string as = "uid " + std::to_string(actor.uid);
  const std::string where = item.subject == ReapSubject::namespace_file ? "its namespace" : "the temp dir";
  const std::string by_hand = remove_by_hand(plan, item, *dir, *denial);
  switch (*denial) {
    case RemovalDenial::search_directory:
    case RemovalDenial::write_directory:
      return "The reaper acts here as " + as + ", who may not " +
             (*denial == RemovalDenial::search_directory ? "search " : "write to ") + where +
             " (mode " + octal_mode(dir->mode) + ", owner uid " + std::to_string(dir->uid) +
             "), so it cannot remove this entry: give the directory's owner back its permissions"
             " (for a namespace, `hsperfguard repair` fixes namespace.owner-no-access), then " + by_hand + ".";
    case RemovalDenial::sticky_directory:
      return "The reaper acts here as " + as + ", and " + where + " is sticky (mode " +
             octal_mode(dir->mode) + ") and owned by uid " + std::to_string(dir->uid) +
             " while the entry is uid " + std::to_string(item.expected->uid) +
             "'s, so it cannot remove this entry: " + by_hand + ".";
    case RemovalDenial::read_own_entry:
      return "Its owner, " + as + ", as whom the reaper acts here, may not read it (mode " +
             octal_mode(item.expected->mode) +
             "), so the reaper cannot take its lock and leaves it: " + by_hand +
             ", or give its owner read permission (chmod u+r) for the next run.";
    case RemovalDenial::read_foreign_entry:
      return "Owned by uid " + std::to_string(item.expected->uid) + ", not by " + as +
             ", the owner of " + where + " as whom the reaper acts here, who may not read it (mode " +
             octal_mode(item.expected->mode) +
             "), so the reaper cannot take its lock and leaves it. No JVM of " + as +
             " made it (the audit reports file.owner-mismatch): " + by_hand +
             " and find out how it got there.";
  }
  return std::nullopt;
}

namespace {

RootPlan root_plan_of(const TempRootFacts& root, std::size_t r) {
  RootPlan rp;
  rp.root = r;
  rp.kind = root.kind;
  rp.root_dir = root.root;
  rp.temp_dir = root.temp_dir;
  if (root.opened) rp.expected = expected_from(*root.opened);
  rp.container = root.container;
  rp.actionable = root.opened.has_value() && root.opened->kind == FileKind::directory;
  rp.why = rp.actionable ? "ok" : "temp-dir-unobserved";
  return rp;
}

// What a count makes of one planned item: a removal, or a reapable entry the plan keeps (a
// foreign attach file is not one: the reaper never removes what no JVM leaves behind).
void count_item(const PlanItem& item, ReapCount& count) {
  if (item.action == ReapAction::remove) {
    ++count.remove;
  } else if (reapable(item.verdict) &&
             !(item.subject == ReapSubject::attach_file && item.verdict == Verdict::foreign)) {
    ++count.kept_reapable;
  }
}

}  // namespace

void ReapPlanner::begin_root(const TempRootFacts& root, std::size_t r, std::int64_t now_ms) {
  now_ms_ = now_ms;
  plan_.roots.push_back(root_plan_of(root, r));
  attach_added_ = attach_removals_ = attach_others_ = 0;
}

void ReapPlanner::add_namespace(const TempRootFacts& root, const NamespaceFacts& ns, std::size_t n) {
  const RootPlan& rp = plan_.roots.back();
  // A later part of a namespace in parts continues its plan: the namespace is planned once.
  if (ns.part == 0 || plan_.namespaces.empty()) {
    plan_.namespaces.push_back(plan_namespace(ns, rp, rp.root, n, euid_));
  }
  const std::size_t ns_index = plan_.namespaces.size() - 1;
  NamespacePlan& ns_plan = plan_.namespaces.back();
  // Items arrive a namespace at a time, their total unknown: room for many namespaces like
  // this one at once (only what is used is ever touched), not a reallocation every doubling.
  if (plan_.items.capacity() - plan_.items.size() < ns.files.size() + 1) {
    plan_.items.reserve(std::max(2 * plan_.items.capacity(),
                                 plan_.items.size() + (ns.files.size() + 1) * 128));
  }
  for (std::size_t f = 0; f < ns.files.size(); ++f) {
    plan_.items.push_back(plan_file(root, ns, ns_plan, ns_index, f, options_, now_ms_, euid_));
    if (plan_.items.back().action == ReapAction::remove) ++ns_plan.entries_planned_for_removal;
  }
  ns_plan.entries += ns.files.size();
  // The directory after its last part's files, when every entry of every part is known.
  if (options_.remove_empty_namespaces && ns_plan.user_exists == false && ns.opened && !ns.more_parts) {
    plan_.items.push_back(plan_namespace_dir(rp, root.platform, ns_plan, ns_index, ns_plan.entries,
                                             ns_plan.entries_planned_for_removal, *ns.opened, options_,
                                             now_ms_, euid_));
  }
}

bool ReapPlanner::add_attach(const TempRootFacts& root, std::size_t a) {
  RootPlan& rp = plan_.roots.back();
  ++attach_added_;
  ++rp.attach_judged;
  PlanItem item = plan_attach(root, rp, root.attach_files[a], a, options_, now_ms_, euid_);
  const bool removal = item.action == ReapAction::remove;
  std::size_t& planned = removal ? attach_removals_ : attach_others_;
  if (planned >= kAttachItemsPerRun) {
    ++(removal ? rp.attach_deferred : rp.attach_unlisted);
    return false;
  }
  ++planned;
  plan_.items.push_back(std::move(item));
  return true;
}

void ReapPlanner::end_root(const TempRootFacts& root) {
  for (std::size_t a = attach_added_; a < root.attach_files.size(); ++a) add_attach(root, a);
}

// The planner's own functions, item by item, each item dropped once counted: the same
// decisions as plan_reap's (plan_namespace, plan_file and plan_namespace_dir, plan_attach), in
// the memory of one item.
ReapCount count_reap(const TempRootFacts& root, const NamespaceFacts& ns, const ReapOptions& options,
                     std::int64_t now_ms, std::uint32_t euid) {
  ReapCount count;
  const RootPlan rp = root_plan_of(root, 0);
  const NamespacePlan ns_plan = plan_namespace(ns, rp, 0, 0, euid);
  std::size_t removable = 0;
  for (std::size_t f = 0; f < ns.files.size(); ++f) {
    const PlanItem item = plan_file(root, ns, ns_plan, 0, f, options, now_ms, euid);
    if (item.action == ReapAction::remove) ++removable;
    count_item(item, count);
  }
  if (options.remove_empty_namespaces && ns_plan.user_exists == false && ns.opened) {
    count_item(plan_namespace_dir(rp, root.platform, ns_plan, 0, ns.files.size(), removable, *ns.opened,
                                  options, now_ms, euid),
               count);
  }
  return count;
}

ReapCount count_reap(const TempRootFacts& root, const AttachFacts& attach, const ReapOptions& options,
                     std::int64_t now_ms, std::uint32_t euid) {
  ReapCount count;
  count_item(plan_attach(root, root_plan_of(root, 0), attach, 0, options, now_ms, euid), count);
  return count;
}

Plan plan_reap(const std::vector<TempRootFacts>& roots, const ReapOptions& options,
               std::int64_t now_ms, std::uint32_t euid) {
  Plan plan;
  std::size_t total_files = 0;
  for (const auto& root : roots) {
    for (const auto& ns : root.namespaces) total_files += ns.files.size() + 1;
    total_files += root.attach_files.size();
  }
  plan.items.reserve(total_files);
  ReapPlanner planner(plan, options, euid);
  for (std::size_t r = 0; r < roots.size(); ++r) {
    planner.begin_root(roots[r], r, now_ms);
    for (std::size_t n = 0; n < roots[r].namespaces.size(); ++n) {
      planner.add_namespace(roots[r], roots[r].namespaces[n], n);
    }
    planner.end_root(roots[r]);
  }
  return plan;
}

}  // namespace hsperfguard
