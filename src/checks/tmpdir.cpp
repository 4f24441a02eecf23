// tmpdir.*: the directory that holds every user's namespace, and what a JVM of a user who
// has no namespace there yet would meet.
#include <optional>
#include <string>

#include "checks/cleaner_reach.hpp"
#include "checks/evidence.hpp"
#include "checks/publication.hpp"
#include "checks/rules.hpp"
#include "model/roots.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kSticky = 01000;

// The temp dir as findings name it: as this host reaches it, and, for a container's or a
// foreign root's, whose it is, so that nobody takes it for this host's /tmp.
std::string named_temp_dir(const TempRootFacts& root) {
  std::string out = printable(root.shown_temp_dir());
  if (root.kind == RootKind::container) {
    out += " (the /tmp of container host_pid " +
           (root.container ? std::to_string(root.container->host_pid) : std::string("?"));
    if (root.container && !root.container->mount_namespace.empty()) {
      out += ", mount namespace " + printable(root.container->mount_namespace);
    }
    out += ", not this host's /tmp)";
  } else if (root.kind == RootKind::root) {
    out += " (the /tmp of the system whose root is " + printable(root.root) + ")";
  }
  return out;
}

// Whose temp dir this is, for the evidence.
nlohmann::json temp_dir_json(const TempRootFacts& root) {
  nlohmann::json j = {{"path", printable(root.shown_temp_dir())},
                      {"kind", to_string(root.kind)},
                      {"root", printable(root.root)}};
  if (root.container) {
    j["host_pid"] = root.container->host_pid;
    j["mount_namespace"] = printable(root.container->mount_namespace);
  }
  return j;
}

// What to do about an unsafe temp dir that is not this host's /tmp: the catalogue's remedy
// (`chown root:root /tmp`) names this host's /tmp.
std::optional<std::string> unsafe_remediation(const TempRootFacts& root) {
  const std::string path = printable(root.shown_temp_dir());
  if (root.kind == RootKind::container) {
    const std::string pid =
        root.container ? std::to_string(root.container->host_pid) : std::string("?");
    return "This is the /tmp of a container (the one host pid " + pid +
           " is in), reached as " + path +
           "; this host's /tmp is not concerned: change nothing there. Inside the container, /tmp "
           "must be a directory owned by its root with mode 1777, as its image or runtime makes it "
           "(for example `--tmpfs /tmp:mode=1777`). A /tmp owned by an unprivileged uid of this host "
           "is the temp dir of a user namespace that uid made (unshare -Ur, a rootless container): "
           "find who runs it (`ps -o user,pid,args -p " + pid +
           "`) and have it fixed or stopped there, or disable this rule for such containers with a "
           "policy file.";
  }
  if (root.kind == RootKind::root) {
    const std::string word = shell_word(root.shown_temp_dir());
    return "Make " + path + " a real directory owned by root with mode 1777 (sticky), in the system "
           "whose root is " + printable(root.root) + ": `chown root:root " + word + " && chmod 1777 " +
           word + "`; if it is a symbolic link, replace it with a directory.";
  }
  if (root.kind == RootKind::alt_temp_dir && root.platform == Platform::posix) {
    // A JVM's -XX:AltTempDir: HotSpot makes its namespace and attach socket there, so it is
    // judged as a temp dir; the catalogue's example names /tmp.
    const std::string word = shell_word(root.shown_temp_dir());
    return "Make " + path + " a real directory owned by root with mode 1777 (sticky) or narrower, "
           "for example `chown root:root " + word + " && chmod 1777 " + word +
           "`; if it is a symbolic link, replace it with a directory; or start the JVM" +
           (root.alt_temp_dir_pid ? " (pid " + std::to_string(*root.alt_temp_dir_pid) + ")" : std::string()) +
           " with an -XX:AltTempDir that is.";
  }
  if (root.kind == RootKind::tmpdir && root.platform == Platform::posix) {
    // The catalogue's example names /tmp; the directory given with --tmpdir is this one.
    const std::string word = shell_word(root.shown_temp_dir());
    return "Make " + path + " a real directory owned by root with mode 1777 (sticky) or narrower, "
           "for example `chown root:root " + word + " && chmod 1777 " + word +
           "`; if it is a symbolic link, replace it with a directory. When auditing a private "
           "scratch directory given with --tmpdir, disable this rule with a policy file if the "
           "non-root owner is intended.";
  }
  return std::nullopt;
}

}  // namespace

Finding observation_error_finding(std::string_view rule, std::string_view noun,
                                  const std::string& path,
                                  const std::vector<ObservationError>& errors) {
  return make_finding(
      rule, path,
      std::string(noun) + " " + printable(path) + " could not be observed completely (" +
          std::to_string(errors.size()) + " error" + (errors.size() == 1 ? "" : "s") + ", first: " +
          printable(errors.front().op) + ": " + printable(errors.front().message) + ")",
      {{"errors", errors_json(errors)}});
}

void tmpdir_observation_error(const TempRootFacts& root, Findings& out) {
  if (root.errors.empty()) return;
  out.push_back(observation_error_finding("tmpdir.observation-error", "temp dir",
                                          root.shown_temp_dir(), root.errors));
}

void tmpdir_identity_changed(const TempRootFacts& root, Findings& out) {
  if (!identities_differ(root.opened, root.lstat)) return;
  out.push_back(
      make_finding("tmpdir.identity-changed", root.shown_temp_dir(),
                   "temp dir " + named_temp_dir(root) +
                       " was replaced while it was observed: lstat and the opened "
                       "directory name different inodes",
                   {{"lstat", inode_json(*root.lstat)}, {"fstat", inode_json(*root.opened)}}));
}

// Who may rearrange a temp dir is a POSIX question; Windows temp dirs are per user and
// their DACLs are judged by the DACL rules.
void tmpdir_unsafe(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix) return;
  const InodeFacts* inode = judged_inode(root.opened, root.lstat);
  if (inode == nullptr) return;

  nlohmann::json reasons = nlohmann::json::array();
  std::string why;
  const auto add = [&](std::string_view reason, const std::string& text) {
    reasons.push_back(reason);
    why += (why.empty() ? "" : "; ") + text;
  };
  if (is_symlink(root.opened, root.lstat)) {
    add("symlink", "it is a symbolic link");
  } else if (inode->kind != FileKind::directory) {
    add("not-directory", "it is " + std::string(describe(inode->kind)) + ", not a directory");
  } else {
    if (inode->uid != 0)
      add("not-root-owned", "owned by uid " + std::to_string(inode->uid) + ", not root");
    if ((inode->mode & kGroupOtherWrite) != 0 && (inode->mode & kSticky) == 0) {
      add("writable-without-sticky", "writable by group or others (mode " +
                                         octal_mode(inode->mode) + ") without the sticky bit");
    }
  }
  if (reasons.empty()) return;

  // For a link, show the link itself, not whatever it points to.
  const bool link = is_symlink(root.opened, root.lstat) && root.lstat;
  const InodeFacts& shown = link ? *root.lstat : *inode;
  nlohmann::json evidence = {{"reasons", std::move(reasons)},
                             {"kind", to_string(shown.kind)},
                             {"uid", shown.uid},
                             {"expected_uid", 0},
                             {"sticky", (shown.mode & kSticky) != 0},
                             {"source", link ? "lstat" : inode_source(root.opened)}};
  put_mode(evidence, shown.mode);
  evidence["temp_dir"] = temp_dir_json(root);
  Finding finding = make_finding(
      "tmpdir.unsafe", root.shown_temp_dir(),
      "temp dir " + named_temp_dir(root) + " is unsafe for hsperfdata namespaces: " + why,
      std::move(evidence));
  if (auto remedy = unsafe_remediation(root)) finding.remediation = std::move(*remedy);
  out.push_back(std::move(finding));
}

// Several containers see this /tmp: each numbers its processes from 1, so a locked name is
// a name another container's JVM may be given.
void tmpdir_shared_pid_names(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix || !root.opened || root.sharing_mount_namespaces.empty())
    return;
  nlohmann::json locked = nlohmann::json::object();
  for (const auto& ns : root.namespaces) {
    const auto names = predict_publication(root, ns).locked_names;
    if (!names.empty()) locked[printable(ns.name)] = names;
  }
  if (locked.empty()) return;
  // Every mount namespace whose /tmp this is: the others, and the root's own (a container's,
  // or the host's as the tool sees it) when it is known. The count said is that of them all,
  // and where the host's own id was not read the message says so: the list is one short.
  nlohmann::json evidence = {{"locked_names", locked},
                             {"mount_namespaces", root.sharing_mount_namespaces}};
  const std::optional<std::string> own = root.container
                                             ? std::optional<std::string>(root.container->mount_namespace)
                                             : root.own_mount_namespace;
  if (own) evidence["mount_namespaces"].push_back(*own);
  const char* own_unread = own ? "" : " (this host's own unread)";
  out.push_back(
      make_finding("tmpdir.shared-pid-names", root.shown_temp_dir(),
                   printable(root.shown_temp_dir()) + " is the /tmp of " +
                       std::to_string(root.sharing_mount_namespaces.size() + 1) +
                       " mount namespaces" + own_unread +
                       " and live JVMs hold backing files there: a JVM of the "
                       "same user given the same pid in another container finds its file "
                       "locked and runs invisible to jps and jstat (JDK-8286030)",
                   std::move(evidence)));
}

void tmpdir_new_namespaces_fail(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix || !root.opened) return;
  const PublicationPrediction p = predict_new_namespace(root, false);
  if (p.create_failures.empty()) return;
  std::string why;
  for (const auto& c : p.create_failures) why += (why.empty() ? "" : ", ") + c;
  out.push_back(make_finding("tmpdir.new-namespaces-fail", root.shown_temp_dir(),
                             "JVMs of users who have no namespace in " + named_temp_dir(root) +
                                 " yet cannot make one with their backing file (" + why +
                                 "): they run invisible to jps and jstat",
                             prediction_evidence(p, root.volume)));
}

// The container scan of this run could not look into some processes: a container of theirs
// was neither audited nor reaped.
void tmpdir_containers_unobserved(const TempRootFacts& root, Findings& out) {
  const UnobservedProcesses& u = root.unobserved;
  if (u.empty()) return;
  std::string first;
  if (!u.errors.empty()) {
    first = ", first: " + printable(u.errors.front().path) + ": " + printable(u.errors.front().op) + ": " +
            printable(u.errors.front().message);
  }
  out.push_back(make_finding(
      "tmpdir.containers-unobserved", root.temp_dir,
      std::to_string(u.count) + " process" + (u.count == 1 ? "" : "es") +
          " could not be looked into (mount namespace or root unreadable" + first +
          "): a container of theirs was neither audited nor reaped; the run is incomplete",
      {{"processes", u.count}, {"pids", u.pids}, {"errors", errors_json(u.errors)}}));
}

namespace {

// A configuration file of the audited system as this host reaches it ("DIR/etc/crontab" for
// --root DIR).
std::string reached_file(const TempRootFacts& root, const std::string& file) {
  return root.kind == RootKind::root ? reachable_path(root.root, file) : file;
}

std::string what_it_deletes(const CleanerReach& r, const std::string& temp) {
  const std::string t = temp == "/" ? "" : temp;
  std::string out;
  if (r.backing_files) out = "live JVMs' backing files (" + t + "/hsperfdata_<user>/<pid>)";
  if (r.attach_sockets) {
    out += std::string(out.empty() ? "" : " and ") + "attach sockets (" + t + "/.java_pid<pid>)";
  }
  return out;
}

std::string age_text(const cleaners::Cleaning& c) {
  if (c.age.empty()) return "of any age";
  if (c.tool == cleaners::Tool::find) return "matching " + c.age;
  if (c.tool == cleaners::Tool::tmpwatch && c.age.find_first_not_of("0123456789") == std::string::npos) {
    return "older than " + c.age + " hours";
  }
  return "older than " + c.age;
}

}  // namespace

// A cleaner that ages out a live JVM's files: the JVM runs on, invisible to jps and jstat (its
// backing file gone) or unreachable by jcmd and agents (its attach socket gone).
void tmpdir_cleaner_ages_jvm_files(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix || !root.cleaners) return;
  const std::string temp = root.temp_dir.empty() ? std::string("/tmp") : root.temp_dir;
  for (const CleanerReach& r : cleaners_reaching_jvm_files(root)) {
    const cleaners::Cleaning& c = *r.cleaning;
    std::string lines;
    for (const std::string& l : r.exclusion_lines) lines += (lines.empty() ? "`" : "` and `") + l;
    lines += "`";
    std::string harm;
    if (r.backing_files) harm = "a JVM running longer than that becomes invisible to jps and jstat (jvm.backing-file-deleted)";
    if (r.attach_sockets) {
      harm += std::string(harm.empty() ? "a JVM running longer than that" : ", and") +
              " can no longer be reached by jcmd or an agent";
      // systemd-tmpfiles keeps a socket listed in /proc/net/unix of its own network namespace.
      if (c.tool == cleaners::Tool::tmpfiles) harm += " (a JVM in a container with a network namespace of its own)";
    }
    const std::string system = root.kind == RootKind::root ? " of the system whose root is " + printable(root.root) : "";
    nlohmann::json reaches = nlohmann::json::array();
    if (r.backing_files) reaches.push_back("backing-files");
    if (r.attach_sockets) reaches.push_back("attach-sockets");
    nlohmann::json paths = nlohmann::json::array();
    for (const std::string& p : c.paths) paths.push_back(printable(p));
    Finding finding = make_finding(
        "tmpdir.cleaner-ages-jvm-files", reached_file(root, c.file),
        std::string(cleaners::to_string(c.tool)) + " (" + printable(c.file) + " line " + std::to_string(c.line) + system +
            ") deletes files of " + printable(temp) + " " + age_text(c) + ", " + what_it_deletes(r, printable(temp)) +
            " among them: " + harm + "; it needs " + printable(lines) + " in " + printable(r.exclusion_where),
        {{"tool", cleaners::to_string(c.tool)},
         {"file", printable(c.file)},
         {"line", c.line},
         {"text", printable(c.text)},
         {"age", printable(c.age)},
         {"paths", std::move(paths)},
         {"reaches", std::move(reaches)},
         {"exclusion_lines", r.exclusion_lines.empty() ? nlohmann::json::array() : nlohmann::json(r.exclusion_lines)},
         {"exclusion_where", printable(r.exclusion_where)}});
    for (auto& l : finding.evidence["exclusion_lines"]) l = printable(l.get<std::string>());
    out.push_back(std::move(finding));
  }
}

// Cleaner configuration that was not read or not understood: a cleaner configured there was
// not judged.
void tmpdir_cleaners_unread(const TempRootFacts& root, Findings& out) {
  if (root.platform != Platform::posix || !root.cleaners) return;
  const CleanerFacts& f = *root.cleaners;
  const auto& lines = f.configuration.not_understood;
  if (f.errors.empty() && lines.empty()) return;
  nlohmann::json not_understood = nlohmann::json::array();
  for (const auto& l : lines) {
    if (not_understood.size() == 50) break;
    not_understood.push_back({{"file", printable(l.file)}, {"line", l.line}, {"text", printable(l.text)},
                              {"why", printable(l.why)}});
  }
  std::string first;
  if (!f.errors.empty()) {
    first = printable(f.errors.front().path) + ": " + printable(f.errors.front().op) + ": " +
            printable(f.errors.front().message);
  } else {
    first = printable(lines.front().file) + " line " + std::to_string(lines.front().line) + ": " +
            printable(lines.front().why);
  }
  const std::string system = root.kind == RootKind::root ? " of the system whose root is " + printable(root.root) : "";
  out.push_back(make_finding(
      "tmpdir.cleaners-unread", root.shown_temp_dir(),
      "the cleaners' configuration" + system + " was not read completely (" + std::to_string(f.errors.size()) +
          " error" + (f.errors.size() == 1 ? "" : "s") + ", " + std::to_string(lines.size()) + " line" +
          (lines.size() == 1 ? "" : "s") + " not understood; first: " + first +
          "): a cleaner configured there was not judged by tmpdir.cleaner-ages-jvm-files",
      {{"errors", errors_json(f.errors)}, {"not_understood", std::move(not_understood)},
       {"not_understood_count", lines.size()}}));
}

}  // namespace hsperfguard::checks
