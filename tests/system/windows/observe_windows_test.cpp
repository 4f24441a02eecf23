// Observation of a real Windows temp dir (a private scratch dir on C:): namespaces, backing
// files, descriptors, volumes, users; a directory symbolic link made on the Unix side of
// wine (where CreateSymbolicLinkW is only a stub) must come out as a reparse point.
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "checks/checks.hpp"
#include "checks/dacl_access.hpp"
#include "model/perfdata.hpp"
#include "platform/files.hpp"
#include "platform/observe.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/win_util.hpp"
#include "rule_selections.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard::platform {
namespace {

using test::current_user_name;

namespace fs = std::filesystem;
using win::narrow;
using win::widen;

std::string current_user_sid() {
  win::UniqueHandle token;
  HANDLE raw = nullptr;
  EXPECT_TRUE(::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &raw));
  token.reset(raw);
  DWORD size = 0;
  ::GetTokenInformation(token.get(), TokenUser, nullptr, 0, &size);
  std::vector<std::byte> buffer(size);
  EXPECT_TRUE(::GetTokenInformation(token.get(), TokenUser, buffer.data(), size, &size));
  const auto* user = reinterpret_cast<const TOKEN_USER*>(buffer.data());
  return win::sid_to_string(user->User.Sid).value_or("");
}

std::vector<std::byte> region_bytes(std::int64_t pid) {
  perfdata::RegionSpec spec;
  spec.entries.push_back({"sun.rt.createVmBeginTime", perfdata::Units::ticks, perfdata::Variability::constant,
                          true, false, 1700000000000, "", 0});
  spec.entries.push_back({"sun.rt.javaCommand", perfdata::Units::string, perfdata::Variability::constant, true,
                          true, 0, "Main --pid " + std::to_string(pid), 0});
  auto built = perfdata::build_region(spec);
  EXPECT_FALSE(built.error.has_value());
  return built.bytes;
}

using test::unix_path;
using test::unix_symlink;
using test::UnixLinkRemover;

class ObserveWindows : public ::testing::Test {
 protected:
  // Windows-style paths, as observation reports them.
  std::string in_scratch(const std::string& name) const { return scratch_.path() + "\\" + name; }

  void SetUp() override {
    user_ = current_user_name();
    ns_ = in_scratch("hsperfdata_" + user_);
    fs::create_directory(fs::path(widen(ns_)));
    backing_ = ns_ + "\\" + std::to_string(::GetCurrentProcessId());
    test::write_file(backing_, region_bytes(::GetCurrentProcessId()));
    test::write_file(ns_ + "\\notes.txt", test::to_bytes("not a pid"));
    fs::create_directory(fs::path(widen(ns_ + "\\subdir")));
    // Another user's namespace, in upper case: NTFS names are case-insensitive.
    fs::create_directory(fs::path(widen(in_scratch("HSPERFDATA_nosuchuser42"))));
    test::write_file(in_scratch("hsperfdata_is_a_file"), test::to_bytes("x"));
    test::write_file(in_scratch("unrelated"), test::to_bytes("x"));
  }

  TempRootFacts observe(std::size_t max_region_bytes = 2 * 1024 * 1024) {
    RootSpec spec;
    spec.kind = RootKind::tmpdir;
    spec.root = "C:\\";
    spec.temp_dir = scratch_.path();
    ObserveOptions options;
    options.max_region_bytes = max_region_bytes;
    return observe_temp_root(spec, options);
  }

  static const NamespaceFacts* find_namespace(const TempRootFacts& root, std::string_view name) {
    const auto it = std::find_if(root.namespaces.begin(), root.namespaces.end(),
                                 [&](const NamespaceFacts& ns) { return ns.name == name; });
    return it == root.namespaces.end() ? nullptr : &*it;
  }

  static const FileFacts* find_file(const NamespaceFacts& ns, std::string_view name) {
    const auto it = std::find_if(ns.files.begin(), ns.files.end(), [&](const FileFacts& f) { return f.name == name; });
    return it == ns.files.end() ? nullptr : &*it;
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string ns_;
  std::string backing_;
};

TEST_F(ObserveWindows, TempRootFacts) {
  const auto root = observe();
  EXPECT_EQ(root.platform, Platform::windows);
  EXPECT_EQ(root.kind, RootKind::tmpdir);
  EXPECT_EQ(root.temp_dir, scratch_.path());
  ASSERT_TRUE(root.lstat.has_value());
  EXPECT_EQ(root.lstat->kind, FileKind::directory);
  ASSERT_TRUE(root.opened.has_value());
  EXPECT_EQ(root.opened->kind, FileKind::directory);
  EXPECT_NE(root.opened->ino, 0u);
  EXPECT_TRUE(root.errors.empty()) << root.errors.front().op << ": " << root.errors.front().message;
  ASSERT_TRUE(root.volume.has_value());
  EXPECT_FALSE(root.volume->unc_path);
  EXPECT_FALSE(root.volume->network);
  EXPECT_FALSE(root.volume->fs_type.empty());
  EXPECT_EQ(root.volume->acl_support, true);
  EXPECT_EQ(root.volume->compressed, false);
  // Only hsperfdata_* entries, whatever their case and kind.
  std::vector<std::string> names;
  for (const auto& ns : root.namespaces) names.push_back(ns.name);
  std::vector<std::string> expected = {"HSPERFDATA_nosuchuser42", "hsperfdata_is_a_file", "hsperfdata_" + user_};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
}

TEST_F(ObserveWindows, NamespaceFacts) {
  const auto root = observe();
  const NamespaceFacts* ns = find_namespace(root, "hsperfdata_" + user_);
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->user_suffix, user_);
  EXPECT_EQ(ns->path, ns_);
  ASSERT_TRUE(ns->lstat && ns->opened);
  EXPECT_EQ(ns->lstat->kind, FileKind::directory);
  EXPECT_EQ(ns->opened->kind, FileKind::directory);
  EXPECT_TRUE(ns->identity_matches);
  EXPECT_FALSE(ns->crosses_mount);
  EXPECT_TRUE(ns->errors.empty()) << ns->errors.front().op << ": " << ns->errors.front().message;
  // The suffix resolves to this account's SID, the one the token carries.
  ASSERT_TRUE(ns->user.has_value());
  EXPECT_EQ(ns->user->sid, current_user_sid());
  EXPECT_FALSE(ns->user->uid.has_value());  // POSIX fields stay empty
  EXPECT_FALSE(ns->access_acl.has_value());
  EXPECT_FALSE(ns->inode_flags.has_value());
  ASSERT_TRUE(ns->security.has_value());
  EXPECT_TRUE(ns->security->owner_sid.has_value());
  ASSERT_TRUE(ns->volume.has_value());
  EXPECT_EQ(ns->volume->acl_support, true);
  EXPECT_TRUE(checks::check_namespace(root, *ns, test::windows_rules()).empty());

  const NamespaceFacts* other = find_namespace(root, "HSPERFDATA_nosuchuser42");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->user_suffix, "nosuchuser42");
  EXPECT_FALSE(other->user.has_value());
  EXPECT_FALSE(other->user_lookup_failed);

  const NamespaceFacts* not_dir = find_namespace(root, "hsperfdata_is_a_file");
  ASSERT_NE(not_dir, nullptr);
  EXPECT_EQ(not_dir->lstat->kind, FileKind::regular);
  EXPECT_FALSE(not_dir->opened.has_value());
  EXPECT_TRUE(not_dir->files.empty());
}

TEST_F(ObserveWindows, BackingFilesAndRegions) {
  const auto root = observe();
  const NamespaceFacts* ns = find_namespace(root, "hsperfdata_" + user_);
  ASSERT_NE(ns, nullptr);
  ASSERT_EQ(ns->files.size(), 3u);

  const FileFacts* backing = find_file(*ns, std::to_string(::GetCurrentProcessId()));
  ASSERT_NE(backing, nullptr);
  EXPECT_EQ(backing->path, backing_);
  EXPECT_EQ(backing->pid_name.kind, PidNameKind::canonical);
  ASSERT_TRUE(backing->lstat && backing->opened);
  EXPECT_EQ(backing->opened->kind, FileKind::regular);
  EXPECT_EQ(backing->opened->size, perfdata::kDefaultRegionSize);
  EXPECT_EQ(backing->opened->nlink, 1u);
  EXPECT_EQ(backing->opened->dev, ns->opened->dev);
  ASSERT_TRUE(backing->opened->windows_attributes.has_value());
  EXPECT_EQ(*backing->opened->windows_attributes & FILE_ATTRIBUTE_COMPRESSED, 0u);
  EXPECT_FALSE(backing->crosses_mount);
  EXPECT_TRUE(backing->security.has_value());
  EXPECT_TRUE(backing->errors.empty()) << backing->errors.front().op << ": " << backing->errors.front().message;
  ASSERT_TRUE(backing->region.has_value());
  EXPECT_TRUE(backing->region->region.valid());
  // As much as the one rule says (`used`, at least a page), not the whole 32 KiB.
  const auto used = static_cast<std::size_t>(backing->region->region.prologue->used);
  EXPECT_EQ(backing->region->bytes_read, std::max(used, perfdata::kRegionHeadBytes));
  EXPECT_LT(backing->region->bytes_read, perfdata::kDefaultRegionSize);
  const auto* command = backing->region->region.find("sun.rt.javaCommand");
  ASSERT_NE(command, nullptr);
  EXPECT_EQ(command->string_value, "Main --pid " + std::to_string(::GetCurrentProcessId()));
  EXPECT_FALSE(backing->access_acl.has_value());  // POSIX fields stay empty
  EXPECT_TRUE(checks::check_file(root, *ns, *backing, test::windows_rules()).empty());

  const FileFacts* notes = find_file(*ns, "notes.txt");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->pid_name.kind, PidNameKind::not_a_pid);
  // A name that is no pid is opened for its facts, never read (as on Linux): no JVM or JVM tool
  // reads it.
  ASSERT_TRUE(notes->opened.has_value());
  EXPECT_TRUE(notes->security.has_value());
  EXPECT_FALSE(notes->region.has_value());

  const FileFacts* subdir = find_file(*ns, "subdir");
  ASSERT_NE(subdir, nullptr);
  EXPECT_EQ(subdir->lstat->kind, FileKind::directory);
  EXPECT_FALSE(subdir->region.has_value());
}

TEST_F(ObserveWindows, NoRegionBytesReadsNoContents) {
  const auto root = observe(0);
  const NamespaceFacts* ns = find_namespace(root, "hsperfdata_" + user_);
  ASSERT_NE(ns, nullptr);
  // The fixture's backing file, notes.txt and subdir are listed, and none was read.
  ASSERT_NE(find_file(*ns, std::to_string(::GetCurrentProcessId())), nullptr);
  ASSERT_NE(find_file(*ns, "notes.txt"), nullptr);
  for (const auto& file : ns->files) EXPECT_FALSE(file.region.has_value()) << file.name;
}

TEST_F(ObserveWindows, UnixSymlinkIsAReparsePointNamespace) {
  const auto target = unix_path(in_scratch("elsewhere"));
  if (!target) GTEST_SKIP() << "not running under wine: no Unix side to make the link from";
  fs::create_directory(fs::path(widen(in_scratch("elsewhere"))));
  test::write_file(in_scratch("elsewhere\\4242"), region_bytes(4242));
  const auto link = unix_path(in_scratch("hsperfdata_mallory"));
  ASSERT_TRUE(link.has_value());
  ASSERT_TRUE(unix_symlink(*target, *link, in_scratch("hsperfdata_mallory")));
  const UnixLinkRemover remover{*link, in_scratch("hsperfdata_mallory")};

  const auto root = observe();
  const NamespaceFacts* ns = find_namespace(root, "hsperfdata_mallory");
  ASSERT_NE(ns, nullptr);
  ASSERT_TRUE(ns->lstat.has_value());
  EXPECT_EQ(ns->lstat->kind, FileKind::symlink);
  ASSERT_TRUE(ns->lstat->windows_attributes.has_value());
  EXPECT_NE(*ns->lstat->windows_attributes & FILE_ATTRIBUTE_REPARSE_POINT, 0u);
  // Never followed: nothing behind it is opened or listed.
  EXPECT_FALSE(ns->opened.has_value());
  EXPECT_FALSE(ns->security.has_value());
  EXPECT_TRUE(ns->files.empty());

  std::vector<std::string> rules;
  for (const auto& f : checks::check_namespace(root, *ns, test::windows_rules()))
    rules.push_back(f.rule);
  EXPECT_EQ(rules, std::vector<std::string>{"namespace.reparse-point"});

  // The path-based readers refuse it too: find_backing_files does not enter it, and
  // read_regular_file does not open a reparse point.
  EXPECT_TRUE(find_backing_files(scratch_.path(), 4242).empty());
  const FileRead read = read_regular_file(in_scratch("hsperfdata_mallory"), 1024);
  ASSERT_TRUE(read.error.has_value());
  EXPECT_TRUE(read.bytes.empty());
}

TEST_F(ObserveWindows, FindBackingFilesAndReadThem) {
  const auto pid = static_cast<std::int32_t>(::GetCurrentProcessId());
  const auto found = find_backing_files(scratch_.path(), pid);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].path, backing_);
  const FileRead read = read_regular_file(found[0].path, 64);
  ASSERT_FALSE(read.error.has_value()) << read.error->op << ": " << read.error->message;
  EXPECT_EQ(read.bytes.size(), 64u);
  ASSERT_TRUE(read.stat.has_value());
  EXPECT_EQ(read.stat->size, perfdata::kDefaultRegionSize);
  EXPECT_TRUE(find_backing_files(scratch_.path(), pid + 4).empty());
}

TEST_F(ObserveWindows, ReadRegularFileRefusesDirectories) {
  const FileRead read = read_regular_file(ns_, 64);
  ASSERT_TRUE(read.error.has_value());
  EXPECT_TRUE(read.bytes.empty());
  ASSERT_TRUE(read.stat.has_value());
  EXPECT_EQ(read.stat->kind, FileKind::directory);
}

TEST_F(ObserveWindows, ReadRegularFileReportsMissingFiles) {
  const FileRead read = read_regular_file(ns_ + "\\nonexistent", 64);
  ASSERT_TRUE(read.error.has_value());
  EXPECT_EQ(read.error->code, ERROR_FILE_NOT_FOUND);
  EXPECT_FALSE(read.error->message.empty());
}

TEST(ObserveWindowsRoot, MissingTempDirIsAnError) {
  RootSpec spec;
  spec.temp_dir = "C:\\no\\such\\temp\\dir";
  const auto root = observe_temp_root(spec, ObserveOptions{});
  EXPECT_EQ(root.platform, Platform::windows);
  ASSERT_FALSE(root.errors.empty());
  EXPECT_TRUE(root.namespaces.empty());
}

TEST(ObserveWindowsRoot, ForeignRootUsesItsTmpAndItsPasswd) {
  test::ScratchDir scratch;
  for (const char* dir : {"\\etc", "\\tmp", "\\tmp\\hsperfdata_alice"}) {
    ASSERT_TRUE(::CreateDirectoryW(widen(scratch.path() + dir).c_str(), nullptr)) << dir;
  }
  test::write_file(scratch.path() + "\\etc\\passwd", test::to_bytes("alice:x:1000:1000::/home/alice:/bin/sh\n"));
  RootSpec spec;
  spec.kind = RootKind::root;
  spec.root = scratch.path();
  spec.temp_dir = "/tmp";
  const auto root = observe_temp_root(spec, ObserveOptions{});
  EXPECT_EQ(root.temp_dir, "/tmp");
  EXPECT_TRUE(root.errors.empty()) << root.errors.front().path << ": " << root.errors.front().message;
  ASSERT_EQ(root.namespaces.size(), 1u);
  const auto& ns = root.namespaces[0];
  EXPECT_EQ(ns.path, scratch.path() + "\\tmp\\hsperfdata_alice");
  ASSERT_TRUE(ns.user.has_value());
  EXPECT_EQ(ns.user->uid, 1000u);
  EXPECT_FALSE(ns.user_lookup_failed);
}

TEST(DefaultTempDir, IsGetTempPathWithoutTheTrailingSeparator) {
  wchar_t buffer[MAX_PATH + 1];
  const DWORD length = ::GetTempPathW(MAX_PATH + 1, buffer);
  ASSERT_GT(length, 0u);
  std::wstring expected(buffer, length);
  if (expected.size() > 3 && expected.back() == L'\\') expected.pop_back();
  EXPECT_EQ(default_temp_dir(), narrow(expected));
}

TEST(AccountLookup, ThisUserAndNobody) {
  const auto me = win::lookup_account(current_user_name());
  EXPECT_TRUE(me.found);
  EXPECT_EQ(me.sid, current_user_sid());
  const auto nobody = win::lookup_account("nosuchuser42");
  EXPECT_FALSE(nobody.found);
  EXPECT_FALSE(nobody.error.has_value());
}

}  // namespace
}  // namespace hsperfguard::platform
