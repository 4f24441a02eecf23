// The cleaners' configuration parsers (model/cleaners.hpp) on the real packages' lines:
// systemd's tmp.conf and Debian's, Debian's tmpreaper.conf and its daily job, RHEL's tmpwatch
// job, crontab lines running find; and the lines they do not understand, kept as such.
#include "model/cleaners.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cleaner_fixtures.hpp"

namespace hsperfguard::cleaners {
namespace {

using test::kDebianTmpreaperConf;
using test::kDebianTmpreaperJob;
using test::kRhelTmpwatchJob;

Configuration debian_job(std::string_view conf) {
  Configuration config;
  std::map<std::string, Assignments> sourced;
  sourced["/etc/tmpreaper.conf"] = parse_assignments("/etc/tmpreaper.conf", conf, true, config);
  parse_cron("/etc/cron.daily/tmpreaper", kDebianTmpreaperJob, CronFile::script, sourced, config);
  return config;
}

TEST(TmpfilesParser, AgeRulesAreCleaningsAndXLinesExclusions) {
  Configuration config;
  parse_tmpfiles("/usr/lib/tmpfiles.d/tmp.conf",
                 "#  This file is part of systemd.\n"
                 "# See tmpfiles.d(5) for details\n"
                 "\n"
                 "# Clear tmp directories separately, to make them easier to override\n"
                 "q /tmp 1777 root root 10d\n"
                 "q /var/tmp 1777 root root 30d\n"
                 "D /run/lock 1777 root root -\n"
                 "x /tmp/systemd-private-%b-*\n"
                 "X /tmp/systemd-private-%b-*/tmp\n"
                 "d /var/lib/systemd/coredump 0755 root root 3d\n"
                 "e /srv/cache - - - a:~2w\n"
                 "L /var/lock - - - - ../run/lock\n"
                 "r! /forcefsck\n",
                 config);
  ASSERT_EQ(config.cleanings.size(), 4U);
  EXPECT_EQ(config.cleanings[0].paths, std::vector<std::string>{"/tmp"});
  EXPECT_EQ(config.cleanings[0].age, "10d");
  EXPECT_EQ(config.cleanings[0].line, 5U);
  EXPECT_EQ(config.cleanings[0].text, "q /tmp 1777 root root 10d");
  EXPECT_EQ(config.cleanings[1].paths, std::vector<std::string>{"/var/tmp"});
  EXPECT_EQ(config.cleanings[2].paths, std::vector<std::string>{"/var/lib/systemd/coredump"});
  EXPECT_FALSE(config.cleanings[2].below_children_only);
  EXPECT_EQ(config.cleanings[3].age, "a:~2w");
  EXPECT_TRUE(config.cleanings[3].below_children_only);
  ASSERT_EQ(config.tmpfiles_exclusions.size(), 2U);
  EXPECT_TRUE(config.tmpfiles_exclusions[0].with_contents);
  EXPECT_FALSE(config.tmpfiles_exclusions[1].with_contents);
  EXPECT_EQ(config.tmpfiles_exclusions[1].path, "/tmp/systemd-private-%b-*/tmp");
  EXPECT_TRUE(config.not_understood.empty());
}

// Debian 12's own tmp.conf: /tmp is made, never aged.
TEST(TmpfilesParser, DebiansTmpConfIsNoCleaner) {
  Configuration config;
  parse_tmpfiles("/usr/lib/tmpfiles.d/tmp.conf", "D /tmp 1777 root root -\n#q /var/tmp 1777 root root 30d\n", config);
  EXPECT_TRUE(config.cleanings.empty());
  EXPECT_TRUE(config.not_understood.empty());
}

TEST(TmpfilesParser, QuotedPathsAreUnquotedAndUnescaped) {
  Configuration config;
  parse_tmpfiles("/etc/tmpfiles.d/a.conf",
                 "d \"/srv/my tmp\" 1777 root root 5d\n"
                 "x \"/srv/my tmp/keep\\x20me*\"\n",
                 config);
  ASSERT_EQ(config.cleanings.size(), 1U);
  EXPECT_EQ(config.cleanings[0].paths, std::vector<std::string>{"/srv/my tmp"});
  ASSERT_EQ(config.tmpfiles_exclusions.size(), 1U);
  EXPECT_EQ(config.tmpfiles_exclusions[0].path, "/srv/my tmp/keep me*");
}

TEST(TmpfilesParser, WhatItDoesNotUnderstandIsKeptNeverGuessed) {
  Configuration config;
  parse_tmpfiles("/etc/tmpfiles.d/b.conf",
                 "Y /tmp 1777 root root 1d\n"
                 "q \"/tmp 1777 root root 1d\n"
                 "q /tmp 1777 root root ten-days\n"
                 "q\n",
                 config);
  EXPECT_TRUE(config.cleanings.empty());
  ASSERT_EQ(config.not_understood.size(), 4U);
  EXPECT_EQ(config.not_understood[0].line, 1U);
  EXPECT_EQ(config.not_understood[0].why, "unknown type 'Y'");
  EXPECT_EQ(config.not_understood[1].why, "unterminated quote or bad escape");
  EXPECT_EQ(config.not_understood[2].why, "bad age 'ten-days'");
  EXPECT_EQ(config.not_understood[3].why, "no path");
}

// As installed, SHOWWARNING=true: the daily job prints a warning and exits before tmpreaper.
TEST(TmpreaperParser, DebiansJobAsInstalledExitsBeforeItCleans) {
  const Configuration config = debian_job(kDebianTmpreaperConf);
  ASSERT_EQ(config.cleanings.size(), 1U);
  const Cleaning& c = config.cleanings[0];
  EXPECT_EQ(c.tool, Tool::tmpreaper);
  EXPECT_TRUE(c.disabled);
  EXPECT_EQ(c.disabled_by, "the job exits at line 88 before it");
  EXPECT_TRUE(config.not_understood.empty());
}

TEST(TmpreaperParser, DebiansJobEnabledCleansTmpAfterSevenDaysAndSparesSockets) {
  std::string conf(kDebianTmpreaperConf);
  conf.replace(conf.find("\nSHOWWARNING=true"), 17, "\n#SHOWWARNING=true");
  const Configuration config = debian_job(conf);
  ASSERT_EQ(config.cleanings.size(), 1U);
  const Cleaning& c = config.cleanings[0];
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.file, "/etc/cron.daily/tmpreaper");
  EXPECT_EQ(c.line, 102U);
  EXPECT_EQ(c.age, "7d");
  EXPECT_EQ(c.paths, std::vector<std::string>{"/tmp/."});
  EXPECT_FALSE(c.removes_sockets);
  EXPECT_EQ(c.protect_patterns.size(), 8U);
  EXPECT_EQ(c.protect_patterns.back(), "/tmp/systemd-private*/*");
  EXPECT_EQ(c.protect_variable, "TMPREAPER_PROTECT_EXTRA");
  EXPECT_EQ(c.protect_variable_value, "");
  EXPECT_EQ(c.protect_variable_file, "/etc/tmpreaper.conf");
}

TEST(TmpreaperParser, ProtectExtraAndAdditionalOptionsReachTheCommand) {
  std::string conf(kDebianTmpreaperConf);
  conf.replace(conf.find("\nSHOWWARNING=true"), 17, "\nSHOWWARNING=false");
  conf.replace(conf.find("TMPREAPER_PROTECT_EXTRA=''"), 26,
               "TMPREAPER_PROTECT_EXTRA='/tmp/isdnctrl* /tmp/hsperfdata_*/*'");
  conf.replace(conf.find("TMPREAPER_ADDITIONALOPTIONS=''"), 30, "TMPREAPER_ADDITIONALOPTIONS='--all'");
  conf += "TMPREAPER_TIME=3d\n";
  const Configuration config = debian_job(conf);
  ASSERT_EQ(config.cleanings.size(), 1U);
  const Cleaning& c = config.cleanings[0];
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.age, "3d");
  EXPECT_TRUE(c.removes_sockets);
  ASSERT_EQ(c.protect_patterns.size(), 10U);
  EXPECT_EQ(c.protect_patterns[8], "/tmp/isdnctrl*");
  EXPECT_EQ(c.protect_patterns[9], "/tmp/hsperfdata_*/*");
  EXPECT_EQ(c.protect_variable_value, "/tmp/isdnctrl* /tmp/hsperfdata_*/*");
}

TEST(TmpreaperParser, RunFromCronNotTrueStopsTheJob) {
  std::string conf(kDebianTmpreaperConf);
  conf.replace(conf.find("\nSHOWWARNING=true"), 17, "\nSHOWWARNING=");
  conf.replace(conf.find("\nRUNFROMCRON=true"), 17, "\nRUNFROMCRON=no");
  const Configuration config = debian_job(conf);
  ASSERT_EQ(config.cleanings.size(), 1U);
  EXPECT_TRUE(config.cleanings[0].disabled);
  EXPECT_EQ(config.cleanings[0].disabled_by, "the job exits at line 92 before it");
}

TEST(TmpwatchParser, RhelsJobCleansTmpAndVarTmpAndSparesHsperfdata) {
  Configuration config;
  parse_cron("/etc/cron.daily/tmpwatch", kRhelTmpwatchJob, CronFile::script, {}, config);
  ASSERT_EQ(config.cleanings.size(), 2U);
  const Cleaning& tmp = config.cleanings[0];
  EXPECT_EQ(tmp.tool, Tool::tmpwatch);
  EXPECT_EQ(tmp.line, 3U);
  EXPECT_EQ(tmp.age, "10d");
  EXPECT_EQ(tmp.paths, std::vector<std::string>{"/tmp"});
  EXPECT_EQ(tmp.exclude_paths.size(), 5U);
  EXPECT_EQ(tmp.protect_patterns, std::vector<std::string>{"/tmp/hsperfdata_*"});
  EXPECT_FALSE(tmp.removes_sockets);
  EXPECT_EQ(config.cleanings[1].paths, std::vector<std::string>{"/var/tmp"});
  // The man page loop's "$d" is not known without running the shell.
  ASSERT_EQ(config.not_understood.size(), 1U);
  EXPECT_EQ(config.not_understood[0].line, 9U);
}

TEST(TmpwatchParser, AllAndHoursAreRead) {
  Configuration config;
  parse_cron("/etc/cron.d/tmp", "0 4 * * * root /usr/sbin/tmpwatch -am 240 /tmp >/dev/null 2>&1\n",
             CronFile::system_crontab, {}, config);
  ASSERT_EQ(config.cleanings.size(), 1U);
  EXPECT_EQ(config.cleanings[0].age, "240");
  EXPECT_TRUE(config.cleanings[0].removes_sockets);
  EXPECT_EQ(config.cleanings[0].paths, std::vector<std::string>{"/tmp"});
}

TEST(CronParser, FindDeleteAndExecRmAreCleaningsOtherFindsAreNot) {
  Configuration config;
  parse_cron("/etc/crontab",
             "SHELL=/bin/sh\n"
             "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin\n"
             "17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly\n"
             "30 3 * * * root find /tmp -type f -mtime +7 -delete\n"
             "@daily root find /tmp -mindepth 1 -maxdepth 1 ! -name '.java_pid*' -mmin +1440 -exec rm -rf {} +\n"
             "0 1 * * * root find /var/log -name '*.gz' -print\n"
             "0 2 * * * root find /tmp -path '/tmp/hsperfdata_*' -prune -o -atime +3 -delete\n",
             CronFile::system_crontab, {}, config);
  ASSERT_EQ(config.cleanings.size(), 3U);
  const Cleaning& a = config.cleanings[0];
  EXPECT_EQ(a.tool, Tool::find);
  EXPECT_EQ(a.line, 4U);
  EXPECT_EQ(a.age, "-mtime +7");
  EXPECT_TRUE(a.removes_regular);
  EXPECT_FALSE(a.removes_sockets);
  const Cleaning& b = config.cleanings[1];
  EXPECT_EQ(b.max_depth, 1);
  EXPECT_EQ(b.exclude_names, std::vector<std::string>{".java_pid*"});
  EXPECT_EQ(b.age, "-mmin +1440");
  const Cleaning& c = config.cleanings[2];
  EXPECT_EQ(c.prune_patterns, std::vector<std::string>{"/tmp/hsperfdata_*"});
  EXPECT_TRUE(config.not_understood.empty()) << config.not_understood.front().line << ": " << config.not_understood.front().why;
}

TEST(CronParser, AUsersCrontabHasNoUserField) {
  Configuration config;
  parse_cron("/var/spool/cron/crontabs/alice", "*/5 * * * * nice -n 19 find /tmp/. -user alice -delete\n",
             CronFile::user_crontab, {}, config);
  ASSERT_EQ(config.cleanings.size(), 1U);
  EXPECT_EQ(config.cleanings[0].paths, std::vector<std::string>{"/tmp/."});
  EXPECT_TRUE(config.cleanings[0].age.empty());
}

TEST(CronParser, ACommandSubstitutionInACleanerIsNotUnderstood) {
  Configuration config;
  parse_cron("/etc/cron.d/x", "0 0 * * * root find $(cat /etc/dirs) -delete\n", CronFile::system_crontab, {},
             config);
  EXPECT_TRUE(config.cleanings.empty());
  ASSERT_EQ(config.not_understood.size(), 1U);
  EXPECT_NE(config.not_understood[0].why.find("not known here"), std::string::npos);
}

TEST(AssignmentsParser, LastOneWinsAndOtherLinesAreNotUnderstood) {
  Configuration config;
  const auto vars = parse_assignments("/etc/tmpreaper.conf",
                                      "A=1\nA='two words'\nB=\"x $A\"\nrm -rf /tmp/x\n", true, config);
  EXPECT_EQ(vars.at("A"), "two words");
  EXPECT_EQ(vars.at("B"), "x two words");
  ASSERT_EQ(config.not_understood.size(), 1U);
  EXPECT_EQ(config.not_understood[0].line, 4U);
}

TEST(GlobMatch, AsFnmatch) {
  EXPECT_TRUE(glob_match("/tmp/hsperfdata_*", "/tmp/hsperfdata_bob", true, true));
  EXPECT_FALSE(glob_match("/tmp/hsperfdata_*", "/tmp/hsperfdata_bob/12", true, true));
  EXPECT_TRUE(glob_match("/tmp/hsperfdata_*", "/tmp/hsperfdata_bob/12", false, false));
  EXPECT_TRUE(glob_match("/tmp/.java_pid[1-9][0-9]", "/tmp/.java_pid42", true, true));
  EXPECT_FALSE(glob_match("/tmp/.java_pid[1-9][0-9]", "/tmp/.java_pid02", true, true));
  EXPECT_FALSE(glob_match("/tmp/*", "/tmp/.java_pid42", true, true));
  EXPECT_TRUE(glob_match("/tmp/*", "/tmp/.java_pid42", true, false));
  EXPECT_TRUE(glob_match("/tmp/[!a]?", "/tmp/bc", true, true));
  EXPECT_TRUE(glob_match("/my\\ tmp/\\*", "/my tmp/*", true, true));
  EXPECT_FALSE(glob_match("/my\\ tmp/\\*", "/my tmp/x", true, true));
  EXPECT_FALSE(glob_match("", "x", true, true));
}

}  // namespace
}  // namespace hsperfguard::cleaners
