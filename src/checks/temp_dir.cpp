// tmpdir.*: the directory that holds every user's namespace.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"

namespace hsperfguard::checks {
namespace {

constexpr std::uint32_t kGroupOtherWrite = 0022;
constexpr std::uint32_t kSticky = 01000;

}  // namespace

void check_temp_dir(const TempRootFacts& root, Findings& out) {
  const std::string where = printable(root.temp_dir);

  if (!root.errors.empty()) {
    out.push_back(make_finding("tmpdir.observation-error", root.temp_dir,
                               "temp dir " + where + " could not be observed completely (" +
                                   std::to_string(root.errors.size()) + " error" +
                                   (root.errors.size() == 1 ? "" : "s") +
                                   ", first: " + printable(root.errors.front().op) + ": " +
                                   printable(root.errors.front().message) + ")",
                               {{"errors", errors_json(root.errors)}}));
  }

  if (identities_differ(root.opened, root.lstat)) {
    out.push_back(
        make_finding("tmpdir.identity-changed", root.temp_dir,
                     "temp dir " + where +
                         " was replaced while it was observed: lstat and the opened "
                         "directory name different inodes",
                     {{"lstat", inode_json(*root.lstat)}, {"fstat", inode_json(*root.opened)}}));
  }

  // Who may rearrange a temp dir is a POSIX question; Windows temp dirs are per user and
  // their DACLs are judged by the DACL rules.
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
  out.push_back(make_finding("tmpdir.unsafe", root.temp_dir,
                             "temp dir " + where + " is unsafe for hsperfdata namespaces: " + why,
                             std::move(evidence)));
}

}  // namespace hsperfguard::checks
