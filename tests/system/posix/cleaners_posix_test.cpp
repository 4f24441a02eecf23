// The cleaners of a --root system read from a real tree (platform/posix/cleaners_posix.hpp)
// and judged by the audit's rule: Debian's tmpreaper as installed and enabled, a tmpfiles.d
// age rule and its override by name; and what a hostile root plants for a root-run audit: a
// cron.d entry linked out of the root, a FIFO in tmpfiles.d, a configuration file of 100 MB.
#include "platform/posix/cleaners_posix.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "checks/checks.hpp"
#include "checks/rules.hpp"
#include "cleaner_fixtures.hpp"
#include "platform/observe.hpp"
#include "platform/posix/posix_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using test::ScratchDir;

void make_dirs(const std::string& base, const std::string& relative) {
  ::mkdir(base.c_str(), 0755);
  std::size_t at = 0;
  while ((at = relative.find('/', at + 1)) != std::string::npos) ::mkdir((base + relative.substr(0, at)).c_str(), 0755);
  ::mkdir((base + relative).c_str(), 0755);
}

void put(const std::string& root, const std::string& path, std::string_view text) {
  make_dirs(root, path.substr(0, path.rfind('/')));
  test::write_file(root + path, test::to_bytes(std::string(text)));
}

// A Debian 12 root with tmpreaper installed: its /tmp, its tmpfiles.d and tmpreaper's files.
struct DebianRoot {
  ScratchDir dir;
  std::string root = dir / "root";

  explicit DebianRoot(std::string_view tmpreaper_conf) {
    make_dirs(root, "/tmp");
    ::chmod((root + "/tmp").c_str(), 01777);
    put(root, "/usr/lib/tmpfiles.d/tmp.conf", "D /tmp 1777 root root -\n");
    put(root, "/etc/tmpreaper.conf", tmpreaper_conf);
    put(root, "/etc/cron.daily/tmpreaper", test::kDebianTmpreaperJob);
  }

  TempRootFacts observe() const {
    RootSpec spec;
    spec.kind = RootKind::root;
    spec.root = root;
    spec.temp_dir = "/tmp";
    ObserveOptions options;
    options.cleaners = true;
    return observe_temp_root(spec, options);
  }
};

std::string enabled(std::string conf) {
  conf.replace(conf.find("\nSHOWWARNING=true"), 17, "\n#SHOWWARNING=true");
  return conf;
}

std::vector<std::string> rules_of(const Findings& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) {
    if (f.rule.starts_with("tmpdir.cleaner")) out.push_back(f.rule);
  }
  return out;
}

TEST(CleanersOfARoot, DebiansTmpreaperAsInstalledIsNoCleaner) {
  const DebianRoot debian(test::kDebianTmpreaperConf);
  const TempRootFacts facts = debian.observe();
  ASSERT_TRUE(facts.cleaners);
  EXPECT_THAT(facts.cleaners->errors, IsEmpty());
  EXPECT_THAT(facts.cleaners->configuration.files,
              ElementsAre("/usr/lib/tmpfiles.d/tmp.conf", "/etc/tmpreaper.conf", "/etc/cron.daily/tmpreaper"));
  ASSERT_EQ(facts.cleaners->configuration.cleanings.size(), 1U);
  EXPECT_TRUE(facts.cleaners->configuration.cleanings[0].disabled);
  EXPECT_THAT(rules_of(checks::check_temp_root(facts)), IsEmpty());
}

TEST(CleanersOfARoot, DebiansTmpreaperEnabledWithNoProtectExtraIsReportedUntilProtected) {
  const DebianRoot debian(enabled(std::string(test::kDebianTmpreaperConf)));
  const Findings f = checks::check_temp_root(debian.observe());
  ASSERT_THAT(rules_of(f), ElementsAre("tmpdir.cleaner-ages-jvm-files"));
  const Finding& finding = *std::find_if(f.begin(), f.end(), [](const Finding& x) { return x.rule == "tmpdir.cleaner-ages-jvm-files"; });
  EXPECT_EQ(finding.path, debian.root + "/etc/cron.daily/tmpreaper");
  EXPECT_EQ(finding.evidence.at("exclusion_lines"), nlohmann::json({"TMPREAPER_PROTECT_EXTRA='/tmp/hsperfdata_*/*'"}));
  EXPECT_THAT(finding.message, HasSubstr("tmpreaper (/etc/cron.daily/tmpreaper line 102 of the system whose root is " +
                                         debian.root + ") deletes files of /tmp older than 7d"));

  // With the line it names in place of the empty one, nothing is reported.
  std::string conf = enabled(std::string(test::kDebianTmpreaperConf));
  conf.replace(conf.find("TMPREAPER_PROTECT_EXTRA=''"), 26, "TMPREAPER_PROTECT_EXTRA='/tmp/hsperfdata_*/*'");
  const DebianRoot protected_root(conf);
  EXPECT_THAT(rules_of(checks::check_temp_root(protected_root.observe())), IsEmpty());
}

// A tmpfiles.d age rule in /usr/lib, then the same name in /etc overriding it, then masked.
TEST(CleanersOfARoot, TmpfilesAgeRuleAndItsOverrideByName) {
  const DebianRoot debian(test::kDebianTmpreaperConf);
  put(debian.root, "/usr/lib/tmpfiles.d/clean.conf", "q /tmp 1777 root root 10d\n");
  Findings f = checks::check_temp_root(debian.observe());
  ASSERT_THAT(rules_of(f), ElementsAre("tmpdir.cleaner-ages-jvm-files"));
  EXPECT_EQ(f[0].path, debian.root + "/usr/lib/tmpfiles.d/clean.conf");

  put(debian.root, "/etc/tmpfiles.d/clean.conf", "q /tmp 1777 root root -\n");
  EXPECT_THAT(rules_of(checks::check_temp_root(debian.observe())), IsEmpty());

  ASSERT_EQ(::unlink((debian.root + "/etc/tmpfiles.d/clean.conf").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/null", (debian.root + "/etc/tmpfiles.d/clean.conf").c_str()), 0);
  EXPECT_THAT(rules_of(checks::check_temp_root(debian.observe())), IsEmpty());

  // The packaged snippet, installed, satisfies an age rule on /tmp.
  ASSERT_EQ(::unlink((debian.root + "/etc/tmpfiles.d/clean.conf").c_str()), 0);
  const std::vector<std::byte> shipped = test::read_file(test::source_path("packaging/tmpfiles.d/hsperfguard.conf"));
  put(debian.root, "/usr/lib/tmpfiles.d/hsperfguard.conf", "");
  test::write_file(debian.root + "/usr/lib/tmpfiles.d/hsperfguard.conf", shipped);
  EXPECT_THAT(rules_of(checks::check_temp_root(debian.observe())), IsEmpty());
}

// A cron.d entry that is a link to a file out of the root: resolved inside the root (where it
// names nothing) or refused, never read from the host.
TEST(CleanersOfARoot, ACronEntryLinkedOutOfTheRootIsNotFollowed) {
  const DebianRoot debian(test::kDebianTmpreaperConf);
  const std::string outside = debian.dir / "host-cron";
  test::write_file(outside, test::to_bytes("* * * * * root find /tmp -delete\n"));
  make_dirs(debian.root, "/etc/cron.d");
  ASSERT_EQ(::symlink(outside.c_str(), (debian.root + "/etc/cron.d/evil").c_str()), 0);
  ASSERT_EQ(::symlink("../../../host-cron", (debian.root + "/etc/cron.d/evil2").c_str()), 0);
  const TempRootFacts facts = debian.observe();
  ASSERT_TRUE(facts.cleaners);
  EXPECT_THAT(facts.cleaners->configuration.cleanings.size(), 1U);  // tmpreaper's, disabled
  EXPECT_THAT(rules_of(checks::check_temp_root(facts)), ElementsAre("tmpdir.cleaners-unread"));
  ASSERT_EQ(facts.cleaners->errors.size(), 2U);
  EXPECT_EQ(facts.cleaners->errors[0].path, debian.root + "/etc/cron.d/evil");
}

// A FIFO in tmpfiles.d: held, never opened (an open would block until a writer came).
TEST(CleanersOfARoot, AFifoInTmpfilesDIsNotReadNorWaitedOn) {
  const DebianRoot debian(test::kDebianTmpreaperConf);
  make_dirs(debian.root, "/etc/tmpfiles.d");
  ASSERT_EQ(::mkfifo((debian.root + "/etc/tmpfiles.d/fifo.conf").c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  const TempRootFacts facts = debian.observe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_TRUE(facts.cleaners);
  ASSERT_EQ(facts.cleaners->errors.size(), 1U);
  EXPECT_EQ(facts.cleaners->errors[0].path, debian.root + "/etc/tmpfiles.d/fifo.conf");
  EXPECT_THAT(facts.cleaners->errors[0].message, HasSubstr("not a regular file: not read"));
}

// A configuration file of 100 MB: its first MiB is read, and the run says so.
TEST(CleanersOfARoot, AHundredMegabyteConfigIsReadOnlyInItsFirstMegabyte) {
  const DebianRoot debian(test::kDebianTmpreaperConf);
  make_dirs(debian.root, "/etc/cron.d");
  const std::string path = debian.root + "/etc/cron.d/huge";
  {
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd.valid());
    const std::string line = "* * * * * root true\n";  // 20 bytes
    std::string chunk;
    for (int i = 0; i < 52429; ++i) chunk += line;  // ~1 MiB
    for (int i = 0; i < 100; ++i) ASSERT_EQ(::write(fd.get(), chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
    const std::string cleaner = "0 0 * * * root find /tmp -delete\n";  // past the first MiB
    ASSERT_EQ(::write(fd.get(), cleaner.data(), cleaner.size()), static_cast<ssize_t>(cleaner.size()));
  }
  const TempRootFacts facts = debian.observe();
  ASSERT_TRUE(facts.cleaners);
  ASSERT_EQ(facts.cleaners->errors.size(), 1U);
  EXPECT_EQ(facts.cleaners->errors[0].path, path);
  EXPECT_THAT(facts.cleaners->errors[0].message, HasSubstr("only its beginning was read"));
  EXPECT_THAT(rules_of(checks::check_temp_root(facts)), ElementsAre("tmpdir.cleaners-unread"));
}

}  // namespace
}  // namespace hsperfguard::platform
