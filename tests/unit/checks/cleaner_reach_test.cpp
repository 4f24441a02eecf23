// tmpdir.cleaner-ages-jvm-files and tmpdir.cleaners-unread on hand-built cleaner facts
// (checks/cleaner_reach.hpp): which cleaners reach a live JVM's backing file and attach
// socket, as each tool matches paths, and the exact exclusion each one is told to add.
#include "checks/cleaner_reach.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "checks/checks.hpp"
#include "checks/rules.hpp"
#include "checks_builders.hpp"
#include "model/cleaners.hpp"

namespace hsperfguard::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TempRootFacts with_cleaners(const cleaners::Configuration& config, std::string temp_dir = "/tmp") {
  TempRootFacts root = temp_root();
  root.temp_dir = std::move(temp_dir);
  root.cleaners = CleanerFacts{config, {}};
  return root;
}

cleaners::Configuration tmpfiles(std::string_view text, std::string_view file = "/usr/lib/tmpfiles.d/tmp.conf") {
  cleaners::Configuration config;
  cleaners::parse_tmpfiles(file, text, config);
  return config;
}

cleaners::Configuration cron(std::string_view text, std::string_view file = "/etc/cron.d/clean") {
  cleaners::Configuration config;
  cleaners::parse_cron(file, text, cleaners::CronFile::system_crontab, {}, config);
  return config;
}

Findings cleaner_findings(const TempRootFacts& root) {
  Findings out;
  checks::tmpdir_cleaner_ages_jvm_files(root, out);
  return out;
}

std::vector<std::string> exclusion_lines(const Finding& f) {
  return f.evidence.at("exclusion_lines").get<std::vector<std::string>>();
}

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(HSPERFGUARD_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// systemd's upstream tmp.conf (Fedora, RHEL 8+, Arch): /tmp aged 10 days, both kinds of file.
TEST(CleanerAgesJvmFiles, UpstreamTmpfilesAgeRuleNeedsBothExclusions) {
  const Findings f = cleaner_findings(with_cleaners(tmpfiles("q /tmp 1777 root root 10d\n")));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].rule, "tmpdir.cleaner-ages-jvm-files");
  EXPECT_EQ(f[0].severity, Severity::medium);
  EXPECT_EQ(f[0].path, "/usr/lib/tmpfiles.d/tmp.conf");
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("x /tmp/hsperfdata_*", "x /tmp/.java_pid*"));
  EXPECT_EQ(f[0].message,
            "systemd-tmpfiles (/usr/lib/tmpfiles.d/tmp.conf line 1) deletes files of /tmp older than 10d, live "
            "JVMs' backing files (/tmp/hsperfdata_<user>/<pid>) and attach sockets (/tmp/.java_pid<pid>) among "
            "them: a JVM running longer than that becomes invisible to jps and jstat (jvm.backing-file-deleted), "
            "and can no longer be reached by jcmd or an agent (a JVM in a container with a network namespace of its "
            "own); it needs `x /tmp/hsperfdata_*` and "
            "`x /tmp/.java_pid*` in a file of /etc/tmpfiles.d/ (or hsperfguard's package: its "
            "/usr/lib/tmpfiles.d/hsperfguard.conf keeps only the pid-named files)");
  EXPECT_EQ(f[0].evidence.at("reaches"), nlohmann::json({"backing-files", "attach-sockets"}));
  EXPECT_EQ(f[0].evidence.at("age"), "10d");
}

// The lines it suggests are enough: with them the same rule is satisfied.
TEST(CleanerAgesJvmFiles, TheSuggestedTmpfilesLinesSatisfyIt) {
  cleaners::Configuration config = tmpfiles("q /tmp 1777 root root 10d\n");
  cleaners::parse_tmpfiles("/etc/tmpfiles.d/jvm.conf", "x /tmp/hsperfdata_*\nx /tmp/.java_pid*\n", config);
  EXPECT_THAT(cleaner_findings(with_cleaners(config)), IsEmpty());
}

// The snippet hsperfguard's package installs keeps tmpfiles off both, whatever the pid.
TEST(CleanerAgesJvmFiles, ThePackagedTmpfilesSnippetSatisfiesIt) {
  cleaners::Configuration config = tmpfiles("q /tmp 1777 root root 10d\n");
  const std::string shipped = source_file("packaging/tmpfiles.d/hsperfguard.conf");
  ASSERT_THAT(shipped, HasSubstr("x /tmp/.java_pid"));
  cleaners::parse_tmpfiles("/etc/tmpfiles.d/hsperfguard.conf", shipped, config);
  EXPECT_TRUE(config.not_understood.empty());
  EXPECT_THAT(cleaner_findings(with_cleaners(config)), IsEmpty());
}

// Only the directory itself (X) is not enough: the backing files below it still age.
TEST(CleanerAgesJvmFiles, AnUpperCaseXOnTheNamespacesIsNotEnough) {
  cleaners::Configuration config = tmpfiles("q /tmp 1777 root root 10d\nX /tmp/hsperfdata_*\nx /tmp/.java_pid*\n");
  const Findings f = cleaner_findings(with_cleaners(config));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("x /tmp/hsperfdata_*"));
}

TEST(CleanerAgesJvmFiles, DebiansTmpConfIsNoCleaner) {
  EXPECT_THAT(cleaner_findings(with_cleaners(tmpfiles("D /tmp 1777 root root -\n"))), IsEmpty());
}

// "~": only what is below /tmp's children ages: the backing files, not the sockets.
TEST(CleanerAgesJvmFiles, ATildeAgeReachesBackingFilesOnly) {
  const Findings f = cleaner_findings(with_cleaners(tmpfiles("d /tmp 1777 root root ~5d\n")));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("x /tmp/hsperfdata_*"));
}

TEST(CleanerAgesJvmFiles, OtherDirectoriesAreNotItsConcern) {
  EXPECT_THAT(cleaner_findings(with_cleaners(tmpfiles("q /var/tmp 1777 root root 30d\n"))), IsEmpty());
}

// A temp dir whose path holds a blank: the tmpfiles line quotes it.
TEST(CleanerAgesJvmFiles, APathWithABlankIsQuotedInTheTmpfilesLine) {
  const Findings f =
      cleaner_findings(with_cleaners(tmpfiles("d \"/srv/my tmp\" 1777 root root 2d\n"), "/srv/my tmp"));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("x \"/srv/my tmp/hsperfdata_*\"", "x \"/srv/my tmp/.java_pid*\""));
  // And those lines, read back by the parser, cover it.
  cleaners::Configuration config = tmpfiles("d \"/srv/my tmp\" 1777 root root 2d\n");
  cleaners::parse_tmpfiles("/etc/tmpfiles.d/jvm.conf",
                           exclusion_lines(f[0])[0] + "\n" + exclusion_lines(f[0])[1] + "\n", config);
  EXPECT_THAT(cleaner_findings(with_cleaners(config, "/srv/my tmp")), IsEmpty());
}

// A d line names one path, an e line a glob; a glob character of the temp dir's own name is
// escaped in the exclusion, so the line names that one directory.
TEST(CleanerAgesJvmFiles, AGlobCharacterOfTheTempDirIsEscaped) {
  const Findings f = cleaner_findings(with_cleaners(tmpfiles("d /srv/t[1] 1777 root root 2d\n"), "/srv/t[1]"));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("x \"/srv/t\\\\[1]/hsperfdata_*\"", "x \"/srv/t\\\\[1]/.java_pid*\""));
  // As a glob, "/srv/t[1]" is "/srv/t1": the e line does not reach /srv/t[1].
  EXPECT_THAT(cleaner_findings(with_cleaners(tmpfiles("e /srv/t[1] - - - 2d\n"), "/srv/t[1]")), IsEmpty());
  EXPECT_EQ(cleaner_findings(with_cleaners(tmpfiles("e /srv/t[1] - - - 2d\n"), "/srv/t1")).size(), 1U);
}

cleaners::Configuration debian_tmpreaper(std::string_view protect_extra) {
  cleaners::Configuration config;
  std::map<std::string, cleaners::Assignments> sourced;
  sourced["/etc/tmpreaper.conf"] = cleaners::parse_assignments(
      "/etc/tmpreaper.conf",
      "RUNFROMCRON=true\nTMPREAPER_PROTECT_EXTRA=" + std::string(protect_extra) +
          "\nTMPREAPER_DIRS='/tmp/.'\nTMPREAPER_DELAY='256'\nTMPREAPER_ADDITIONALOPTIONS=''\n",
      true, config);
  cleaners::parse_cron("/etc/cron.daily/tmpreaper",
                       "if [ -s /etc/tmpreaper.conf ]; then\n    . /etc/tmpreaper.conf\nfi\n"
                       "TMPREAPER_TIME=${TMPREAPER_TIME:-7d}\n"
                       "nice -n10 tmpreaper --delay=$TMPREAPER_DELAY --mtime-dir --symlinks $TMPREAPER_TIME  \\\n"
                       "  $TMPREAPER_ADDITIONALOPTIONS \\\n  --ctime \\\n"
                       "  --protect '/tmp/systemd-private*/*' \\\n"
                       "  `for i in $TMPREAPER_PROTECT_EXTRA; do echo --protect \"$i\"; done` \\\n"
                       "  $TMPREAPER_DIRS\n",
                       cleaners::CronFile::script, sourced, config);
  return config;
}

// tmpreaper protects the files a pattern finds, not what is below a directory found; sockets
// are safe without --all.
TEST(CleanerAgesJvmFiles, DebiansTmpreaperNeedsTheBackingFilesProtected) {
  const Findings f = cleaner_findings(with_cleaners(debian_tmpreaper("''")));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].path, "/etc/cron.daily/tmpreaper");
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("TMPREAPER_PROTECT_EXTRA='/tmp/hsperfdata_*/*'"));
  EXPECT_EQ(f[0].evidence.at("exclusion_where"),
            "/etc/tmpreaper.conf (in place of its TMPREAPER_PROTECT_EXTRA line)");
  EXPECT_EQ(f[0].evidence.at("reaches"), nlohmann::json({"backing-files"}));
  EXPECT_THAT(f[0].message, HasSubstr("tmpreaper (/etc/cron.daily/tmpreaper line 5) deletes files of /tmp older "
                                      "than 7d, live JVMs' backing files"));

  EXPECT_THAT(cleaner_findings(with_cleaners(debian_tmpreaper("'/tmp/hsperfdata_*/*'"))), IsEmpty());
  // The namespaces alone: their files are not protected.
  EXPECT_EQ(cleaner_findings(with_cleaners(debian_tmpreaper("'/tmp/hsperfdata_*'"))).size(), 1U);
  // What is there is kept in the suggested setting.
  const Findings kept = cleaner_findings(with_cleaners(debian_tmpreaper("'/tmp/isdnctrl*'")));
  ASSERT_EQ(kept.size(), 1U);
  EXPECT_THAT(exclusion_lines(kept[0]), ElementsAre("TMPREAPER_PROTECT_EXTRA='/tmp/isdnctrl* /tmp/hsperfdata_*/*'"));
}

TEST(CleanerAgesJvmFiles, TmpwatchOfRhelSparesBothWithoutAll) {
  cleaners::Configuration config;
  cleaners::parse_cron("/etc/cron.daily/tmpwatch",
                       "flags=-umc\n/usr/sbin/tmpwatch \"$flags\" -x /tmp/.X11-unix -X '/tmp/hsperfdata_*' 10d /tmp\n",
                       cleaners::CronFile::script, {}, config);
  EXPECT_THAT(cleaner_findings(with_cleaners(config)), IsEmpty());
}

TEST(CleanerAgesJvmFiles, TmpwatchWithAllNeedsTheSocketsExcluded) {
  const Findings f =
      cleaner_findings(with_cleaners(cron("0 4 * * * root /usr/sbin/tmpwatch -umca -X '/tmp/hsperfdata_*' 10d /tmp\n")));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("-X '/tmp/.java_pid*'"));
  const Findings all = cleaner_findings(with_cleaners(cron("0 4 * * * root tmpwatch --all 240 /tmp\n")));
  ASSERT_EQ(all.size(), 1U);
  EXPECT_THAT(exclusion_lines(all[0]), ElementsAre("-X '/tmp/hsperfdata_*' -X '/tmp/.java_pid*'"));
  EXPECT_THAT(all[0].message, HasSubstr("older than 240 hours"));
}

TEST(CleanerAgesJvmFiles, ACronFindIsToldWhatToAddToItsExpression) {
  const Findings f = cleaner_findings(with_cleaners(cron("30 3 * * * root find /tmp -type f -mtime +7 -delete\n")));
  ASSERT_EQ(f.size(), 1U);
  EXPECT_THAT(exclusion_lines(f[0]), ElementsAre("! -path '/tmp/hsperfdata_*'"));
  EXPECT_EQ(f[0].evidence.at("exclusion_where"), "the find command of /etc/cron.d/clean line 1, before its -delete or -exec");
  EXPECT_THAT(cleaner_findings(with_cleaners(
                  cron("30 3 * * * root find /tmp -type f ! -path '/tmp/hsperfdata_*' -mtime +7 -delete\n"))),
              IsEmpty());
  // -maxdepth 1 never reaches a backing file; a socket it does (no -type).
  const Findings shallow = cleaner_findings(with_cleaners(cron("@hourly root find /tmp -maxdepth 1 -mmin +60 -delete\n")));
  ASSERT_EQ(shallow.size(), 1U);
  EXPECT_THAT(exclusion_lines(shallow[0]), ElementsAre("! -path '/tmp/.java_pid*'"));
  // A pruned namespace and a name excluded.
  EXPECT_THAT(cleaner_findings(with_cleaners(cron(
                  "0 2 * * * root find /tmp -path '/tmp/hsperfdata_*' -prune -o ! -name '.java_pid*' -atime +3 -delete\n"))),
              IsEmpty());
}

TEST(CleanerAgesJvmFiles, AJobThatExitsFirstCleansNothing) {
  cleaners::Configuration config = cron("0 0 * * * root find /tmp -delete\n");
  config.cleanings[0].disabled = true;
  EXPECT_THAT(cleaner_findings(with_cleaners(config)), IsEmpty());
}

// Under --root DIR the finding names the file as this host reaches it, and whose system it is.
TEST(CleanerAgesJvmFiles, AForeignRootsFileIsNamedBeneathItsRoot) {
  TempRootFacts root = with_cleaners(tmpfiles("q /tmp 1777 root root 10d\n"));
  root.kind = RootKind::root;
  root.root = "/srv/img";
  const Findings f = cleaner_findings(root);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].path, "/srv/img/usr/lib/tmpfiles.d/tmp.conf");
  EXPECT_THAT(f[0].message, HasSubstr("line 1 of the system whose root is /srv/img)"));
}

TEST(CleanerAgesJvmFiles, RunsInTheTempRootsChecks) {
  const Findings f = checks::check_temp_root(with_cleaners(tmpfiles("q /tmp 1777 root root 10d\n")));
  EXPECT_THAT(ids(f), ElementsAre("tmpdir.cleaner-ages-jvm-files"));
  EXPECT_THAT(ids(checks::check_temp_root(temp_root())), IsEmpty());
}

TEST(CleanersUnread, ErrorsAndLinesNotUnderstoodAreReported) {
  TempRootFacts root = with_cleaners(tmpfiles("Y /tmp 1777 root root 1d\n", "/etc/tmpfiles.d/odd.conf"));
  Findings out;
  checks::tmpdir_cleaners_unread(root, out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].severity, Severity::low);
  EXPECT_THAT(out[0].message, HasSubstr("0 errors, 1 line not understood; first: /etc/tmpfiles.d/odd.conf line 1: "
                                        "unknown type 'Y'"));
  EXPECT_EQ(out[0].evidence.at("not_understood")[0].at("text"), "Y /tmp 1777 root root 1d");

  root.cleaners->errors.push_back(ObservationError{"/etc/tmpfiles.d/fifo.conf", "fstat", 22, "is a FIFO, not a regular file: not read"});
  out.clear();
  checks::tmpdir_cleaners_unread(root, out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_THAT(out[0].message, HasSubstr("1 error, 1 line not understood; first: /etc/tmpfiles.d/fifo.conf: fstat: is a FIFO"));

  out.clear();
  checks::tmpdir_cleaners_unread(with_cleaners(tmpfiles("q /tmp 1777 root root 10d\n")), out);
  EXPECT_THAT(out, IsEmpty());
}

}  // namespace
}  // namespace hsperfguard::test
