// The text for people: remedies that name the real path, the text audit report (grouping,
// the repair hint, the summary) and the words of a verdict. Pure: hand-built facts.
#include <gtest/gtest.h>

#include <string>

#include "model/rule_catalog.hpp"

namespace hsperfguard {
namespace {

std::string remedy(const char* rule, const std::string& path) {
  const RuleInfo* info = find_rule(rule);
  EXPECT_NE(info, nullptr) << rule;
  return info == nullptr ? std::string() : remediation_for(*info, path);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RemediationFor, NamesTheNamespaceAndItsUserWhereTheCatalogueHasPlaceholders) {
  const std::string writable = remedy("namespace.group-other-writable", "/srv/t/hsperfdata_bob");
  EXPECT_TRUE(has(writable, "`chmod go-w /srv/t/hsperfdata_bob`")) << writable;
  EXPECT_FALSE(has(writable, "<user>")) << writable;
  const std::string symlink = remedy("namespace.symlink", "/tmp/hsperfdata_bob");
  EXPECT_TRUE(has(symlink, "`unlink /tmp/hsperfdata_bob`")) << symlink;
  const std::string owner = remedy("namespace.owner-mismatch", "/tmp/hsperfdata_bob");
  EXPECT_TRUE(has(owner, "hsperfguard create --user bob`")) << owner;
  const std::string mode = remedy("file.mode", "/tmp/hsperfdata_bob/4242");
  EXPECT_TRUE(has(mode, "`chmod 0600 /tmp/hsperfdata_bob/4242`")) << mode;
  const std::string dacl = remedy("dacl.owner", "C:\\Temp\\hsperfdata_bob");
  EXPECT_TRUE(has(dacl, "icacls C:\\Temp\\hsperfdata_bob /setowner bob")) << dacl;
  const std::string compressed = remedy("file.compressed", "C:\\Temp\\hsperfdata_bob\\12");
  EXPECT_TRUE(has(compressed, "compact /u /s:C:\\Temp\\hsperfdata_bob")) << compressed;
}

// A name from the file system is one word of the command, whatever it holds.
TEST(RemediationFor, QuotesAPathThatAShellWouldSplitOrExpand) {
  const std::string spaced = remedy("file.mode", "/tmp/hsperfdata_bob/it's $(x)");
  EXPECT_TRUE(has(spaced, "`chmod 0600 '/tmp/hsperfdata_bob/it'\\''s $(x)'`")) << spaced;
  const std::string windows = remedy("dacl.admins-missing", "C:\\Users\\A B\\Temp\\hsperfdata_ab");
  EXPECT_TRUE(has(windows, "icacls \"C:\\Users\\A B\\Temp\\hsperfdata_ab\" /grant")) << windows;
  const std::string bytes = remedy("file.mode", std::string("/tmp/hsperfdata_bob/\xff"));
  EXPECT_TRUE(has(bytes, "/tmp/hsperfdata_bob/\\xff")) << bytes;
}

// Placeholders the path does not give are left for the reader.
TEST(RemediationFor, KeepsAPlaceholderThePathDoesNotGive) {
  const std::string unobserved = remedy("tmpdir.containers-unobserved", "/tmp");
  EXPECT_TRUE(has(unobserved, "/proc/<pid>/ns")) << unobserved;
  const std::string no_namespace = remedy("namespace.group-other-writable", "/srv/elsewhere");
  EXPECT_TRUE(has(no_namespace, "/tmp/hsperfdata_<user>")) << no_namespace;
}

}  // namespace
}  // namespace hsperfguard
