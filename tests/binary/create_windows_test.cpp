// `create` on Windows. Three layers:
// - the descriptors create gives what it makes (win::creation_sddl), converted to real
//   SECURITY_DESCRIPTORs by the Win32 API, read back through the ACL API observation uses and
//   judged by the dacl.* rules: they must audit clean, and unlike HotSpot's own file DACL the
//   backing file's must not let Everyone read the data. Wine ignores DACLs when files are
//   opened, so this is where the descriptors themselves are proved;
// - the primitives (platform::make_namespace, make_backing_file) and the binary end to end,
//   in a private scratch temp dir: what create makes, inspect decodes and audit lists;
// - the refusals: a name already taken, a temp dir or namespace that is not the one judged,
//   and a directory link (made on the Unix side of wine) planted under the namespace name,
//   which is refused and never followed.
#include "platform/create.hpp"

#include <windows.h>
#include <sddl.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "checks/checks.hpp"
#include "checks/dacl_access.hpp"
#include "decide/create.hpp"
#include "model/perfdata.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard {
namespace {

using test::current_user_name;
using test::dacl_rules;
using test::exists;
using test::run_tool;

using checks::SecuredObject;
using platform::CreateFailure;
using platform::win::CreatedObject;
using platform::win::narrow;
using platform::win::widen;
namespace rights = checks::rights;

const std::string kUser = "S-1-5-21-1111-2222-3333-1001";

SecurityDescriptor from_sddl(const std::string& sddl) {
  const auto result = platform::win::security_from_sddl(sddl);
  EXPECT_TRUE(result.descriptor.has_value())
      << sddl << ": " << (result.error ? result.error->message : std::string("no descriptor"));
  return result.descriptor.value_or(SecurityDescriptor{});
}

std::set<std::string> rule_ids(const Findings& findings) {
  std::set<std::string> ids;
  for (const auto& f : findings) ids.insert(f.rule);
  return ids;
}

std::set<std::string> judge(const SecurityDescriptor& sd, SecuredObject object, const std::string& user_sid) {
  return rule_ids(checks::check_security_descriptor(sd, object, "C:\\t\\hsperfdata_u\\4242", user_sid));
}

std::string token_user_sid() {
  ObservationError error;
  const auto sid = platform::win::current_user_sid(&error);
  EXPECT_TRUE(sid.has_value()) << error.message;
  return sid.value_or("");
}

// ---- the descriptors -------------------------------------------------------------------------

TEST(CreateWindowsDescriptor, NamespaceDirectoryIsHotSpotsProtectedDaclAndAuditsClean) {
  for (const std::string& user : {kUser, token_user_sid()}) {
    SCOPED_TRACE(user);
    const auto sd = from_sddl(platform::win::creation_sddl(CreatedObject::namespace_directory, user, user));
    EXPECT_EQ(sd.owner_sid, user);
    EXPECT_TRUE(sd.dacl_present);
    EXPECT_NE(sd.control & checks::control::kDaclProtected, 0);
    // Exactly HotSpot's ACEs, masks mapped the way the access check maps GENERIC_READ.
    const auto hotspot = checks::hotspot_descriptor(SecuredObject::directory, user);
    ASSERT_EQ(sd.dacl.size(), hotspot.dacl.size());
    for (std::size_t i = 0; i < sd.dacl.size(); ++i) {
      EXPECT_EQ(sd.dacl[i].type, AceType::access_allowed) << i;
      EXPECT_EQ(sd.dacl[i].flags, 0) << i;
      EXPECT_EQ(sd.dacl[i].sid, hotspot.dacl[i].sid) << i;
      EXPECT_EQ(sd.dacl[i].mask, checks::map_generic(hotspot.dacl[i].mask, checks::kFileGenericMapping)) << i;
    }
    EXPECT_EQ(judge(sd, SecuredObject::directory, user), std::set<std::string>{});
    // Everyone lists and traverses, and can do nothing that writes.
    const auto everyone = checks::effective_rights(sd, checks::typical_principal(checks::sids::kEveryone));
    EXPECT_EQ(everyone, rights::kReadControl | rights::kSynchronize | rights::kReadData | rights::kReadEa |
                            rights::kExecute | rights::kReadAttributes);
    EXPECT_EQ(everyone & checks::write_class_rights(SecuredObject::directory), 0u);
  }
}

TEST(CreateWindowsDescriptor, BackingFileAuditsCleanWhereHotSpotsOwnLetsEveryoneReadTheData) {
  for (const std::string& user : {kUser, token_user_sid()}) {
    SCOPED_TRACE(user);
    const auto ours = from_sddl(platform::win::creation_sddl(CreatedObject::backing_file, user, user));
    EXPECT_EQ(ours.owner_sid, user);
    EXPECT_NE(ours.control & checks::control::kDaclProtected, 0);
    ASSERT_EQ(ours.dacl.size(), 3u);
    EXPECT_EQ(ours.dacl[0].sid, user);
    EXPECT_EQ(ours.dacl[0].mask, rights::kStandardRightsAll | rights::kFileAllAccess);
    EXPECT_EQ(ours.dacl[1].sid, checks::sids::kAdministrators);
    EXPECT_EQ(ours.dacl[1].mask, rights::kStandardRightsAll | rights::kFileAllAccess);
    EXPECT_EQ(ours.dacl[2].sid, checks::sids::kEveryone);
    EXPECT_EQ(ours.dacl[2].mask, rights::kReadControl | rights::kReadAttributes | rights::kReadEa);
    EXPECT_EQ(judge(ours, SecuredObject::file, user), std::set<std::string>{});
    const auto anyone = checks::effective_rights(ours, checks::Principal{"", checks::broad_group_sids()});
    EXPECT_EQ(anyone & rights::kReadData, 0u);
    EXPECT_EQ(anyone & checks::write_class_rights(SecuredObject::file), 0u);
    EXPECT_EQ(checks::effective_rights(ours, checks::typical_principal(user)) & rights::kFileAllAccess,
              rights::kFileAllAccess);

    // The contrast: HotSpot's file DACL as HotSpot passes it, through the same API and rules.
    const auto hotspot = from_sddl("O:" + user + "D:P(A;;0x001f01ff;;;" + user +
                                   ")(A;;0x001f01ff;;;BA)(A;;0x000200a9;;;WD)");
    EXPECT_EQ(judge(hotspot, SecuredObject::file, user), std::set<std::string>{"dacl.file-data-readable"});
    EXPECT_EQ(judge(checks::hotspot_descriptor(SecuredObject::file, user), SecuredObject::file, user),
              std::set<std::string>{"dacl.file-data-readable"});
  }
}

TEST(CreateWindowsDescriptor, PrivateNamespaceHasNoEveryoneAceAndAuditsClean) {
  const auto sd = from_sddl(platform::win::creation_sddl(CreatedObject::namespace_directory, kUser, kUser, false));
  ASSERT_EQ(sd.dacl.size(), 2u);
  EXPECT_EQ(sd.dacl[0].sid, kUser);
  EXPECT_EQ(sd.dacl[1].sid, checks::sids::kAdministrators);
  EXPECT_EQ(checks::effective_rights(sd, checks::typical_principal(checks::sids::kEveryone)), 0u);
  EXPECT_EQ(judge(sd, SecuredObject::directory, kUser), std::set<std::string>{});
}

TEST(CreateWindowsDescriptor, AnOwnerThatIsNotTheUserIsWhatTheAuditReports) {
  // Why create insists on the user's SID as owner: anything else is dacl.owner.
  const std::string other = "S-1-5-21-1111-2222-3333-1666";
  const auto sd = from_sddl(platform::win::creation_sddl(CreatedObject::namespace_directory, other, kUser));
  EXPECT_EQ(judge(sd, SecuredObject::directory, kUser), std::set<std::string>{"dacl.owner"});
}

// ---- the primitives and the binary, in a scratch temp dir -------------------------------------

DWORD attributes_of(const std::string& path) { return ::GetFileAttributesW(widen(path).c_str()); }
bool is_plain_directory(const std::string& path) {
  const DWORD a = attributes_of(path);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) != 0 && (a & FILE_ATTRIBUTE_REPARSE_POINT) == 0;
}

// Identity of a directory, opened as itself.
std::optional<InodeFacts> directory_facts(const std::string& path) {
  ObservationError error;
  auto pinned = platform::win::pin_directory(widen(path), &error);
  EXPECT_TRUE(pinned.has_value()) << path << ": " << error.message;
  if (!pinned) return std::nullopt;
  return pinned->facts;
}

bool is_empty_directory(const std::string& path) {
  WIN32_FIND_DATAW data{};
  const platform::win::UniqueFind find(::FindFirstFileW(widen(path + "\\*").c_str(), &data));
  if (!find.valid()) return false;
  do {
    const std::wstring name = data.cFileName;
    if (name != L"." && name != L"..") return false;
  } while (::FindNextFileW(find.get(), &data));
  return true;
}

// Whether this system keeps the protected DACL a directory is created with. Windows does;
// wine derives every descriptor from POSIX mode bits (unprotected, SYSTEM instead of
// Administrators) and keeps none, so there `create` must fail closed instead.
bool keeps_protected_dacls(const std::string& dir) {
  const std::string sddl =
      platform::win::creation_sddl(CreatedObject::namespace_directory, token_user_sid(), token_user_sid());
  platform::win::LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  EXPECT_TRUE(::ConvertStringSecurityDescriptorToSecurityDescriptorW(widen(sddl).c_str(), SDDL_REVISION_1,
                                                                     descriptor.out(), nullptr));
  SECURITY_ATTRIBUTES attributes{sizeof(SECURITY_ATTRIBUTES), descriptor.get(), FALSE};
  const std::wstring probe = widen(dir + "\\dacl-probe");
  EXPECT_TRUE(::CreateDirectoryW(probe.c_str(), &attributes));
  std::optional<SecurityDescriptor> stored;
  {
    const platform::win::UniqueHandle handle(::CreateFileW(probe.c_str(), READ_CONTROL, FILE_SHARE_READ, nullptr,
                                                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    EXPECT_TRUE(handle.valid());
    ObservationError error;
    if (handle.valid()) stored = platform::win::read_security(handle.get(), narrow(probe), &error);
  }
  EXPECT_TRUE(::RemoveDirectoryW(probe.c_str()));
  return stored && (stored->control & checks::control::kDaclProtected) != 0;
}

class CreateWindows : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = current_user_name();
    ASSERT_FALSE(user_.empty());
    ns_ = scratch_.path() + "\\hsperfdata_" + user_;
    keeps_dacls_ = keeps_protected_dacls(scratch_.path());
  }

  platform::TempDirLocation where() {
    platform::TempDirLocation w;
    w.kind = RootKind::host;
    w.root_dir = "";
    w.temp_dir = scratch_.path();
    if (auto facts = directory_facts(scratch_.path())) w.expected = expected_from(*facts);
    return w;
  }

  platform::NamespaceRequest namespace_request() {
    platform::NamespaceRequest request;
    request.where = where();
    request.name = "hsperfdata_" + user_;
    request.owner_sid = token_user_sid();
    return request;
  }

  platform::BackingFileRequest file_request(const ExpectedInode& ns) {
    platform::BackingFileRequest file;
    file.where = where();
    file.namespace_name = "hsperfdata_" + user_;
    file.namespace_expected = ns;
    file.name = "4242";
    file.owner_sid = token_user_sid();
    const PlannedRegion planned = plan_region(RegionRequest{std::nullopt, 1'700'000'000'000, "Main"},
                                              platform::page_size());
    EXPECT_FALSE(planned.error.has_value());
    file.content = planned.bytes;
    return file;
  }

  // A namespace made by the test itself (the temp dir's inherited DACL), and its identity.
  ExpectedInode plain_namespace() {
    EXPECT_TRUE(::CreateDirectoryW(widen(ns_).c_str(), nullptr));
    const auto facts = directory_facts(ns_);
    return facts ? expected_from(*facts) : ExpectedInode{};
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string ns_;
  bool keeps_dacls_ = false;
};

TEST_F(CreateWindows, PrimitivesMakeASecuredNamespaceAndRegionOrFailClosed) {
  const auto made = platform::make_namespace(namespace_request());
  if (!keeps_dacls_) {
    // Wine: the descriptor cannot be kept, so nothing is made (what was made is removed).
    EXPECT_EQ(made.failure, CreateFailure::failed);
    ASSERT_TRUE(made.error.has_value());
    EXPECT_EQ(made.error->op, "SetSecurityInfo");
    EXPECT_NE(made.error->message.find("does not keep the protected DACL"), std::string::npos) << made.error->message;
    EXPECT_NE(made.error->message.find("removed again"), std::string::npos) << made.error->message;
    EXPECT_FALSE(exists(ns_));
    // A backing file in a namespace that exists: written, found unsecured, deleted.
    const auto written = platform::make_backing_file(file_request(plain_namespace()));
    EXPECT_EQ(written.failure, CreateFailure::failed);
    ASSERT_TRUE(written.error.has_value());
    // Failing there, last, means the region was reserved, written and flushed first.
    EXPECT_EQ(written.error->op, "SetSecurityInfo");
    EXPECT_NE(written.error->message.find("the file was removed again"), std::string::npos) << written.error->message;
    EXPECT_FALSE(exists(ns_ + "\\4242"));
    EXPECT_TRUE(is_empty_directory(ns_));
    return;
  }
  ASSERT_TRUE(made.ok()) << (made.error ? made.error->op + ": " + made.error->message : "");
  EXPECT_TRUE(made.created);
  EXPECT_TRUE(made.notes.empty());  // our own SID: no owner had to be substituted
  ASSERT_TRUE(made.made.has_value());
  ASSERT_TRUE(is_plain_directory(ns_));
  const auto facts = directory_facts(ns_);
  ASSERT_TRUE(facts.has_value());
  EXPECT_EQ(made.made->dev, facts->dev);  // (volume serial, file index) of what is there
  EXPECT_EQ(made.made->ino, facts->ino);
  EXPECT_EQ(made.made->kind, FileKind::directory);

  const auto file = file_request(*made.made);
  const auto written = platform::make_backing_file(file);
  ASSERT_TRUE(written.ok()) << (written.error ? written.error->op + ": " + written.error->message : "");
  EXPECT_TRUE(written.created);
  ASSERT_TRUE(written.made.has_value());
  EXPECT_EQ(written.made->kind, FileKind::regular);
  EXPECT_EQ(written.made->nlink, 1u);
  EXPECT_EQ(written.made->dev, facts->dev);
  EXPECT_EQ(test::read_file(ns_ + "\\4242"), file.content);
}

TEST_F(CreateWindows, ExistingNamespaceIsVerifiedByItsIdentity) {
  const ExpectedInode ns = plain_namespace();
  auto verify = namespace_request();
  verify.existing = ns;
  const auto verified = platform::make_namespace(verify);
  ASSERT_TRUE(verified.ok()) << (verified.error ? verified.error->message : "");
  EXPECT_FALSE(verified.created);
  ASSERT_TRUE(verified.made.has_value());
  EXPECT_EQ(verified.made->ino, ns.ino);
  EXPECT_EQ(verified.made->dev, ns.dev);

  verify.existing->ino += 1;  // another directory than the one judged
  const auto other = platform::make_namespace(verify);
  EXPECT_EQ(other.failure, CreateFailure::changed);
  EXPECT_FALSE(other.created);
}

TEST_F(CreateWindows, TakenNamesAreNeverReused) {
  const ExpectedInode ns = plain_namespace();
  const auto again = platform::make_namespace(namespace_request());
  EXPECT_EQ(again.failure, CreateFailure::exists);
  EXPECT_FALSE(again.created);

  test::write_file(ns_ + "\\4242", test::to_bytes("precious"));
  const auto written = platform::make_backing_file(file_request(ns));
  EXPECT_EQ(written.failure, CreateFailure::exists);
  EXPECT_FALSE(written.created);
  EXPECT_EQ(test::read_file(ns_ + "\\4242"), test::to_bytes("precious"));
}

TEST_F(CreateWindows, TempDirOrNamespaceThatIsNotTheOneJudgedIsRefused) {
  auto request = namespace_request();
  ASSERT_TRUE(request.where.expected.has_value());
  request.where.expected->ino += 1;  // another temp dir than the one observed
  const auto made = platform::make_namespace(request);
  EXPECT_EQ(made.failure, CreateFailure::changed);
  EXPECT_FALSE(made.created);
  EXPECT_FALSE(exists(ns_));

  ExpectedInode ns = plain_namespace();
  ns.ino += 1;  // not the namespace that was verified
  const auto written = platform::make_backing_file(file_request(ns));
  EXPECT_EQ(written.failure, CreateFailure::changed);
  EXPECT_FALSE(written.created);
  EXPECT_FALSE(exists(ns_ + "\\4242"));
}

TEST_F(CreateWindows, BinaryCreatesTheNamespaceThenVerifiesItOrFailsClosed) {
  const auto first = run_tool({"create", "--user", user_, "--tmpdir", scratch_.path()});
  if (!keeps_dacls_) {
    EXPECT_EQ(first.exit_code, 3) << first.out << first.err;
    EXPECT_NE(first.err.find("does not keep the protected DACL"), std::string::npos) << first.err;
    EXPECT_EQ(first.out.find("created"), std::string::npos) << first.out;
    EXPECT_FALSE(exists(ns_));
    return;
  }
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("created " + ns_), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("protected DACL"), std::string::npos) << first.out;
  ASSERT_TRUE(is_plain_directory(ns_));
  const auto before = directory_facts(ns_);

  const auto second = run_tool({"create", "--user", user_, "--tmpdir", scratch_.path()});
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("verified " + ns_), std::string::npos) << second.out;
  const auto after = directory_facts(ns_);
  ASSERT_TRUE(before && after);
  EXPECT_EQ(before->ino, after->ino);  // the same directory, not remade
}

TEST_F(CreateWindows, BinaryCreatesARegionThatInspectDecodesAndAuditListsOrFailsClosed) {
  const auto made = run_tool({"create", "--user", user_, "--pid", "4242", "--command", "demo.Main", "--tmpdir",
                              scratch_.path()});
  const std::string file = ns_ + "\\4242";
  if (!keeps_dacls_) {
    EXPECT_EQ(made.exit_code, 3) << made.out << made.err;
    EXPECT_NE(made.err.find("does not keep the protected DACL"), std::string::npos) << made.err;
    EXPECT_FALSE(exists(file));
    EXPECT_FALSE(exists(ns_));
    return;
  }
  ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
  EXPECT_NE(made.out.find("created " + file), std::string::npos) << made.out;

  const auto bytes = test::read_file(file);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.size() % platform::page_size(), 0u);
  const auto parsed = perfdata::parse_region(bytes);
  EXPECT_TRUE(parsed.valid()) << (parsed.error ? parsed.error->reason : "");
  const auto* command = parsed.find("sun.rt.javaCommand");
  ASSERT_NE(command, nullptr);
  EXPECT_EQ(command->string_value, "demo.Main");

  const auto inspect = run_tool({"inspect", file, "--format", "json"});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  const auto decoded = nlohmann::json::parse(inspect.out, nullptr, false);
  ASSERT_FALSE(decoded.is_discarded()) << inspect.out;
  ASSERT_TRUE(decoded.contains("prologue") && decoded["prologue"].is_object()) << inspect.out;
  EXPECT_EQ(decoded["prologue"]["major_version"], 2);

  const auto audit = run_tool({"audit", "--tmpdir", scratch_.path(), "--format", "json"});
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.out << audit.err;
  const nlohmann::json* listed = nullptr;
  for (const auto& ns : report["namespaces"]) {
    if (ns["name"] != "hsperfdata_" + user_) continue;
    EXPECT_EQ(dacl_rules(ns["findings"]), std::set<std::string>{}) << ns["findings"].dump();
    for (const auto& f : ns["files"]) {
      if (f["name"] == "4242") listed = &f;
    }
  }
  ASSERT_NE(listed, nullptr) << audit.out;
  EXPECT_EQ((*listed)["kind"], "regular");
  EXPECT_EQ((*listed)["region"]["valid"], true);
  EXPECT_EQ((*listed)["inode"]["size"], bytes.size());
  // What create makes audits clean on a real descriptor.
  EXPECT_EQ(dacl_rules((*listed)["findings"]), std::set<std::string>{}) << (*listed)["findings"].dump();
}

TEST_F(CreateWindows, NamespaceNameTakenByAFileIsRefusedAndLeftAlone) {
  test::write_file(ns_, test::to_bytes("squatter"));
  const auto result = run_tool({"create", "--user", user_, "--tmpdir", scratch_.path()});
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_TRUE(result.exit_code == 3 || result.exit_code == 4) << result.exit_code << result.err;
  EXPECT_EQ(test::read_file(ns_), test::to_bytes("squatter"));
  EXPECT_FALSE(is_plain_directory(ns_));

  // The primitive alone: the name is taken, whatever the judgement said.
  const auto made = platform::make_namespace(namespace_request());
  EXPECT_EQ(made.failure, CreateFailure::exists);
  EXPECT_EQ(test::read_file(ns_), test::to_bytes("squatter"));
}

TEST_F(CreateWindows, DirectoryLinkPlantedAsTheNamespaceIsRefusedAndNeverFollowed) {
  const std::string elsewhere = scratch_.path() + "\\elsewhere";
  const auto target = test::unix_path(elsewhere);
  if (!target) GTEST_SKIP() << "not running under wine: no Unix side to make the link from";
  ASSERT_TRUE(::CreateDirectoryW(widen(elsewhere).c_str(), nullptr));
  const auto unix_link = test::unix_path(ns_);
  ASSERT_TRUE(unix_link.has_value());
  ASSERT_TRUE(test::unix_symlink(*target, *unix_link, ns_));
  const test::UnixLinkRemover remover{*unix_link, ns_};
  ASSERT_NE(attributes_of(ns_) & FILE_ATTRIBUTE_REPARSE_POINT, 0u) << "wine shows the link as a reparse point";

  const auto result = run_tool({"create", "--user", user_, "--pid", "4242", "--tmpdir", scratch_.path()});
  EXPECT_TRUE(result.exit_code == 3 || result.exit_code == 4) << result.exit_code << result.out << result.err;
  EXPECT_EQ(result.out.find("created"), std::string::npos) << result.out;
  EXPECT_TRUE(is_empty_directory(elsewhere));  // nothing made through the link

  // The primitives: the name is taken (never reused), and a namespace that is now the link
  // is not the one that was verified.
  EXPECT_EQ(platform::make_namespace(namespace_request()).failure, CreateFailure::exists);
  const auto target_facts = directory_facts(elsewhere);
  ASSERT_TRUE(target_facts.has_value());
  auto file = file_request(expected_from(*target_facts));  // even the target's own identity
  const auto written = platform::make_backing_file(file);
  EXPECT_EQ(written.failure, CreateFailure::changed);
  EXPECT_FALSE(written.created);
  EXPECT_TRUE(is_empty_directory(elsewhere));
}

}  // namespace
}  // namespace hsperfguard
