// Operations, end to end on this machine: the Debian package (cpack, lintian, dpkg -i, the
// installed audit, dpkg --purge), the RPM, the floor both packages keep to for the
// distributions they are made for (packaging/floor.txt), the capabilities the
// reap service keeps, and the Windows Task Scheduler definition.
//
// The package test installs into the real system (CI runs as root on a fresh machine). It
// refuses to run where hsperfguard is already installed or its directories exist, so that
// it never replaces or purges someone's installation, and it purges what it installed even
// when an assertion fails.
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jvm_support.hpp"
#include "reap_test_support.hpp"
#include "test_support.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

using reaptest::exists;
using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;

const std::string kSource = HSPERFGUARD_SOURCE_DIR;
const std::string kBuildDir = std::filesystem::path(HSPERFGUARD_BINARY).parent_path().string();

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

test::CommandResult shell(const std::string& script) { return test::run({"sh", "-c", script}); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool package_installed() {
  return shell("dpkg-query -W -f='${Status}' hsperfguard 2>/dev/null | grep -q 'install ok installed'")
             .exit_code == 0;
}

// Purges the package when the test ends, whatever happened in between.
struct PurgeAtExit {
  bool armed = false;
  ~PurgeAtExit() {
    if (armed) shell("DEBIAN_FRONTEND=noninteractive dpkg --purge hsperfguard >/dev/null 2>&1");
  }
};

// The packages, built by cpack into `dir` with each of `generators` ("DEB", "RPM"); the path of
// each in `packages`, by its extension (".deb", ".rpm").
::testing::AssertionResult build_packages(const std::string& dir,
                                          const std::vector<std::string>& generators,
                                          std::map<std::string, std::string>& packages) {
  for (const auto& generator : generators) {
    const auto cpack = test::run(
        {"cpack", "-G", generator, "--config", kBuildDir + "/CPackConfig.cmake", "-B", dir});
    if (cpack.exit_code != 0)
      return ::testing::AssertionFailure() << "cpack -G " << generator << ":\n"
                                           << cpack.out << cpack.err;
  }
  for (const auto& e : std::filesystem::directory_iterator(dir))
    packages[e.path().extension().string()] = e.path().string();
  for (const auto& generator : generators) {
    std::string extension = "." + generator;
    for (auto& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!packages.contains(extension))
      return ::testing::AssertionFailure() << "cpack made no " << extension;
  }
  return ::testing::AssertionSuccess();
}

TEST(DebianPackage, BuildsLintsInstallsAuditsAndPurgesCleanly) {
  for (const auto& [program, package] : std::vector<std::pair<std::string, std::string>>{
           {"cpack", "cmake"}, {"lintian", "lintian"}, {"dpkg-shlibdeps", "dpkg-dev"},
           {"dpkg", "dpkg"}}) {
    ASSERT_FALSE(test::find_program(program).empty()) << program << " not found: install Debian's package " << package;
  }
  if (!test::is_root()) GTEST_SKIP() << "installs a package: needs root";
  ASSERT_TRUE(exists(kBuildDir + "/share/man/man1/hsperfguard.1.gz")) << "the man page was not built";
  ASSERT_FALSE(package_installed()) << "hsperfguard is installed on this machine: this test would replace "
                                       "and purge it; remove it first (dpkg --purge hsperfguard)";
  for (const char* dir : {"/etc/hsperfguard", "/var/lib/hsperfguard", "/var/log/hsperfguard"}) {
    ASSERT_FALSE(exists(dir)) << dir << " exists: this test would purge it; move it away first";
  }

  // Build.
  test::ScratchDir scratch;
  std::map<std::string, std::string> packages;
  ASSERT_TRUE(build_packages(scratch / "pkg", {"DEB"}, packages));
  const std::string deb = packages[".deb"];
  std::printf("package: %s\n", std::filesystem::path(deb).filename().c_str());

  // Contents and conffiles.
  const auto contents = test::run({"dpkg-deb", "--contents", deb});
  ASSERT_EQ(contents.exit_code, 0) << contents.err;
  for (const char* path :
       {"./usr/bin/hsperfguard", "./usr/share/man/man1/hsperfguard.1.gz",
        "./usr/share/man/man5/hsperfguard-policy.5.gz",
        "./usr/share/hsperfguard/rules/file.json",
        "./usr/share/hsperfguard/rules/profiles/hotspot.json",
        "./usr/lib/systemd/system/hsperfguard-reap.service",
        "./usr/lib/systemd/system/hsperfguard-reap.timer",
        "./usr/lib/systemd/system/hsperfguard-audit.service",
        "./usr/lib/systemd/system/hsperfguard-audit.timer", "./etc/cron.d/hsperfguard",
        "./usr/lib/tmpfiles.d/hsperfguard.conf", "./etc/hsperfguard/policy.json",
        "./usr/share/doc/hsperfguard/copyright", "./usr/share/doc/hsperfguard/changelog.gz",
        "./usr/share/bash-completion/completions/hsperfguard",
                           "./usr/share/hsperfguard/prometheus/hsperfguard.rules.yml",
                           "./usr/share/doc/hsperfguard/README.md",
                           "./usr/share/doc/hsperfguard/docs/operations.md",
                           "./usr/share/doc/hsperfguard/docs/migration.md",
                           "./usr/share/hsperfguard/report.schema.json",
                           "./usr/share/hsperfguard/report-3-to-2.jq",
                           "./usr/share/hsperfguard/report-2-to-1.jq"}) {
    EXPECT_NE(contents.out.find(std::string(path) + "\n"), std::string::npos) << path << " missing:\n" << contents.out;
  }
  EXPECT_EQ(contents.out.find(" ./usr/local/"), std::string::npos) << contents.out;
  // Not under /lib: on merged-/usr Debian 13 `dpkg -S` finds a file only by the path listed.
  EXPECT_EQ(contents.out.find(" ./lib/"), std::string::npos) << contents.out;
  const auto conffiles = test::run({"dpkg-deb", "--info", deb, "conffiles"});
  EXPECT_EQ(conffiles.out, "/etc/cron.d/hsperfguard\n/etc/hsperfguard/policy.json\n");
  const auto depends = test::run({"dpkg-deb", "--field", deb, "Depends"});
  EXPECT_NE(depends.out.find("libc6"), std::string::npos) << "dependencies from dpkg-shlibdeps: " << depends.out;
  // The license: the machine-readable copyright file names it and points to Debian's text of it,
  // which is the sources' LICENSE, byte for byte.
  const auto copyright = test::run({"sh", "-c", "dpkg-deb --fsys-tarfile '" + deb +
                                                    "' | tar -xOf - ./usr/share/doc/hsperfguard/copyright"});
  ASSERT_EQ(copyright.exit_code, 0) << copyright.err;
  EXPECT_TRUE(copyright.out.starts_with("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
      << copyright.out;
  EXPECT_NE(copyright.out.find("\nFiles: *\nCopyright: 2026 the hsperfguard authors\nLicense: Apache-2.0\n"),
            std::string::npos)
      << copyright.out;
  EXPECT_NE(copyright.out.find("\"/usr/share/common-licenses/Apache-2.0\""), std::string::npos) << copyright.out;
  // liburing, linked statically: its copyright and its license's text.
  EXPECT_NE(copyright.out.find("\nFiles: liburing/*\nCopyright: 2019-2022 Jens Axboe <axboe@kernel.dk>\nLicense: MIT\n"),
            std::string::npos)
      << copyright.out;
  EXPECT_NE(copyright.out.find("\nLicense: MIT\n Permission is hereby granted, free of charge,"), std::string::npos)
      << copyright.out;
  // libacl, linked statically by default: its copyright, its license and how to relink.
  EXPECT_NE(copyright.out.find("\nFiles: libacl/*\n"), std::string::npos) << copyright.out;
  EXPECT_NE(copyright.out.find("\nLicense: LGPL-2.1+\n This library is free software"), std::string::npos)
      << copyright.out;
  EXPECT_NE(copyright.out.find("-DHSPERFGUARD_STATIC_LIBACL=OFF"), std::string::npos) << copyright.out;
  EXPECT_EQ(read_text(kSource + "/LICENSE"), read_text("/usr/share/common-licenses/Apache-2.0"));

  // lintian: no errors. Warnings are printed for the record (README lists them and why).
  const auto lint = test::run({"lintian", "--tag-display-limit", "0", deb});
  std::printf("lintian:\n%s%s", lint.out.c_str(), lint.err.c_str());
  for (const auto& line : lines_of(lint.out)) EXPECT_FALSE(line.starts_with("E:")) << line;
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;

  // Install.
  PurgeAtExit purge;
  purge.armed = true;
  const auto install = shell("DEBIAN_FRONTEND=noninteractive dpkg -i '" + deb + "' 2>&1");
  ASSERT_EQ(install.exit_code, 0) << install.out;
  ASSERT_TRUE(package_installed());
  const auto listed = test::run({"dpkg", "-L", "hsperfguard"});
  ASSERT_EQ(listed.exit_code, 0);

  const auto version = test::run({"/usr/bin/hsperfguard", "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find(std::string("hsperfguard ") + kVersion), std::string::npos) << version.out;
  // The installed units run the installed binary; the audit reads the site policy; their
  // Documentation= names the installed runbook.
  const std::string unit_dir = "/usr/lib/systemd/system/";
  EXPECT_NE(read_text(unit_dir + "hsperfguard-reap.service").find("ExecStart=/usr/bin/hsperfguard reap "),
            std::string::npos);
  EXPECT_NE(read_text(unit_dir + "hsperfguard-audit.service")
                .find("ExecStart=/usr/bin/hsperfguard audit --policy /etc/hsperfguard/policy.json "),
            std::string::npos);
  for (const char* unit : {"hsperfguard-reap.service", "hsperfguard-reap.timer", "hsperfguard-audit.service",
                           "hsperfguard-audit.timer"}) {
    EXPECT_NE(read_text(unit_dir + unit)
                  .find("\nDocumentation=man:hsperfguard(1) file:///usr/share/doc/hsperfguard/docs/operations.md\n"),
              std::string::npos)
        << unit;
  }
  EXPECT_TRUE(exists("/usr/share/doc/hsperfguard/docs/operations.md"));
  // The maintainer scripts: prerm stops and disables the units on removal, as the RPM's %preun.
  const auto prerm = test::run({"dpkg-deb", "--info", deb, "prerm"});
  EXPECT_NE(prerm.out.find("systemctl --no-reload disable --now hsperfguard-reap.timer"), std::string::npos)
      << prerm.out;
  // The cron job is there, disabled.
  const std::string cron = read_text("/etc/cron.d/hsperfguard");
  EXPECT_NE(cron.find("#*/15 * * * * root "), std::string::npos) << cron;
  for (const auto& line : lines_of(cron)) {
    EXPECT_FALSE(!line.starts_with("#") && line.find("hsperfguard reap") != std::string::npos) << line;
  }
  // systemd-tmpfiles --create made the tool's directories, with the units' modes.
  EXPECT_TRUE(std::filesystem::is_directory("/var/lib/hsperfguard"));
  for (const char* dir : {"/var/lib/hsperfguard", "/var/log/hsperfguard"}) {
    struct stat st {};
    EXPECT_EQ(::stat(dir, &st), 0) << dir;
    EXPECT_EQ(st.st_mode & 07777, 0750u) << dir;
  }
  if (!test::find_program("systemd-analyze").empty() && exists("/usr/lib/systemd/system/sysinit.target")) {
    const auto verify = shell(
        "systemd-analyze verify --man=no /usr/lib/systemd/system/hsperfguard-reap.service "
        "/usr/lib/systemd/system/hsperfguard-reap.timer /usr/lib/systemd/system/hsperfguard-audit.service "
        "/usr/lib/systemd/system/hsperfguard-audit.timer");
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_EQ(verify.err, "");
  }

  // The installed audit, with the installed policy, on a tree with one unsafe namespace.
  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const auto audit = test::run({"/usr/bin/hsperfguard", "audit", "--policy", "/etc/hsperfguard/policy.json",
                                "--tmpdir", tree.tmp, "--format", "json", "--metrics", tree.scratch / "audit.prom"});
  EXPECT_EQ(audit.exit_code, 1) << audit.err;
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.out;
  EXPECT_EQ(report.at("schema"), "hsperfguard-report/3");
  EXPECT_NE(audit.out.find("namespace.group-other-writable"), std::string::npos);
  EXPECT_TRUE(exists(tree.scratch / "audit.prom"));

  // Purge: every file the package had is gone, and what the tool wrote.
  const auto purged = shell("DEBIAN_FRONTEND=noninteractive dpkg --purge hsperfguard 2>&1");
  ASSERT_EQ(purged.exit_code, 0) << purged.out;
  purge.armed = false;
  EXPECT_FALSE(package_installed());
  std::size_t files = 0;
  for (const auto& path : lines_of(listed.out)) {
    struct stat st {};
    // Directories stay when others use them (/usr, /lib: a symlink on merged-/usr systems).
    if (path.empty() || path == "/." || (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) continue;
    ++files;
    EXPECT_FALSE(exists(path)) << path << " left behind";
  }
  EXPECT_GE(files, 13u);
  for (const char* dir : {"/etc/hsperfguard", "/usr/share/hsperfguard", "/usr/share/doc/hsperfguard",
                          "/var/lib/hsperfguard", "/var/log/hsperfguard"}) {
    EXPECT_FALSE(exists(dir)) << dir << " left behind";
  }
}

// ---- the RPM ---------------------------------------------------------------------------------

// The regular files (and links) a package lists, as paths: the .deb's `dpkg-deb --contents`
// lines end with the path, the RPM's `rpm -qpl` lines are the path.
std::set<std::string> package_files(const std::string& listing, bool deb) {
  std::set<std::string> out;
  for (const auto& line : lines_of(listing)) {
    if (line.empty()) continue;
    if (deb && line[0] == 'd') continue;  // a directory
    std::string path = deb ? line.substr(line.find(" ./") + 2) : line;
    if (const auto arrow = path.find(" -> "); arrow != std::string::npos) path.resize(arrow);
    out.insert(path);
  }
  return out;
}

// A root for `rpm --root` in which the package's scriptlets can run: /bin/sh, rm and install,
// with the libraries they load, copied from this machine, and /dev/null (a scriptlet's
// redirection to it fails the command where there is none). No systemd-tmpfiles: %post makes
// the directories with install -d.
::testing::AssertionResult make_scriptlet_root(const std::string& root) {
  std::filesystem::create_directories(root + "/dev");
  if (::mknod((root + "/dev/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::chmod((root + "/dev/null").c_str(), 0666) != 0)
    return ::testing::AssertionFailure() << "mknod " << root << "/dev/null: " << std::strerror(errno);
  for (const char* program : {"/bin/sh", "/bin/rm", "/usr/bin/install"}) {
    const auto libs =
        test::run({"sh", "-c", std::string("ldd ") + program + " | grep -o '/[^ ]*'"});
    std::vector<std::string> files = lines_of(libs.out);
    files.push_back(program);
    for (const auto& file : files) {
      std::error_code ec;
      std::filesystem::create_directories(root + std::filesystem::path(file).parent_path().string(),
                                          ec);
      std::filesystem::copy_file(std::filesystem::canonical(file), root + file,
                                 std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) return ::testing::AssertionFailure() << "copy " << file << ": " << ec.message();
      ::chmod((root + file).c_str(), 0755);
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(RpmPackage, BuildsLintsInstallsIntoAScratchRootRunsAndErasesCleanly) {
  for (const auto& [program, package] :
       std::vector<std::pair<std::string, std::string>>{{"cpack", "cmake"},
                                                        {"rpmbuild", "rpm"},
                                                        {"rpm", "rpm"},
                                                        {"rpmlint", "rpmlint"},
                                                        {"dpkg-deb", "dpkg"},
                                                        {"readelf", "binutils"}}) {
    ASSERT_FALSE(test::find_program(program).empty())
        << program << " not found: install Debian's package " << package;
  }
  if (!test::is_root())
    GTEST_SKIP() << "installs into a root it makes with root's files: needs root";
  test::ScratchDir scratch;
  std::map<std::string, std::string> packages;
  ASSERT_TRUE(build_packages(scratch / "pkg", {"RPM", "DEB"}, packages));
  const std::string rpm = packages[".rpm"], deb = packages[".deb"];
  std::printf("package: %s\n", std::filesystem::path(rpm).filename().c_str());

  // rpmlint: no error, and only the warnings packaging/rpm/rpmlint.toml explains.
  const auto lint = test::run({"rpmlint", "-c", kSource + "/packaging/rpm/rpmlint.toml", rpm});
  std::printf("rpmlint:\n%s%s", lint.out.c_str(), lint.err.c_str());
  const std::set<std::string> explained = {"no-manual-page-for-binary", "dangerous-command-in-%postun",
                                           "dangerous-command-in-%post"};
  for (const auto& line : lines_of(lint.out)) {
    EXPECT_EQ(line.find(": E: "), std::string::npos) << line;
    if (const auto w = line.find(": W: "); w != std::string::npos) {
      const std::string tag = line.substr(w + 5, line.find(' ', w + 5) - w - 5);
      EXPECT_TRUE(explained.contains(tag))
          << "a warning packaging/rpm/rpmlint.toml does not explain: " << line;
    }
  }
  EXPECT_NE(lint.out.find("0 errors"), std::string::npos) << lint.out;

  // The same files as the .deb; units where RHEL's systemd looks.
  const auto rpm_list = test::run({"rpm", "-qpl", rpm});
  ASSERT_EQ(rpm_list.exit_code, 0) << rpm_list.err;
  std::set<std::string> in_rpm;
  for (const auto& path : package_files(rpm_list.out, false)) {
    if (path.starts_with("/usr/lib/.build-id")) continue;  // rpmbuild's debug-id links
    in_rpm.insert(path);
  }
  std::set<std::string> in_deb;
  const auto deb_list = test::run({"dpkg-deb", "--contents", deb});
  for (const auto& path : package_files(deb_list.out, true)) in_deb.insert(path);
  // The RPM lists its own directories; the .deb's files must all be there, and nothing else but
  // directories of ours.
  for (const auto& path : in_deb)
    EXPECT_TRUE(in_rpm.contains(path)) << path << " is in the .deb, not the RPM";
  // The RPM's license file is its own (the .deb's copyright file points to Debian's copy).
  const std::string license = "/usr/share/licenses/hsperfguard/LICENSE";
  for (const auto& path : in_rpm) {
    const bool ours_dir = path == "/etc/hsperfguard" ||
                          path.starts_with("/usr/share/hsperfguard") ||
                          path == "/usr/share/doc/hsperfguard" || path == "/usr/share/doc/hsperfguard/docs" ||
                          path == "/usr/share/licenses/hsperfguard";
    EXPECT_TRUE(in_deb.contains(path) || ours_dir || path == license) << path << " is in the RPM, not the .deb";
  }
  std::printf("files: %zu in the .deb, %zu in the RPM (with its own directories)\n", in_deb.size(),
              in_rpm.size());

  // Dependencies declared, not bundled: every library the binary needs, by soname.
  const auto requires_ = test::run({"rpm", "-qpR", rpm});
  const auto needed =
      test::run({"sh", "-c",
                 "readelf -d '" + kBuildDir +
                     "/hsperfguard' | sed -n 's/.*Shared library: \\[\\(.*\\)\\]/\\1/p'"});
  ASSERT_FALSE(lines_of(needed.out).empty());
  for (const auto& soname : lines_of(needed.out)) {
    if (soname.starts_with("ld-linux")) continue;
    EXPECT_NE(requires_.out.find(soname + "()(64bit)"), std::string::npos)
        << soname << " not required:\n"
        << requires_.out;
  }
  // The license: the tag in SPDX (liburing's and GCC's runtime's too, and libacl's when the
  // binary holds it rather than needing libacl.so.1), the project's text marked %license.
  const auto license_tag = test::run({"rpm", "-qp", "--qf", "%{LICENSE}", rpm});
  const auto sonames = lines_of(needed.out);
  const bool holds_libacl =
      std::find(sonames.begin(), sonames.end(), std::string("libacl.so.1")) == sonames.end();
  EXPECT_EQ(license_tag.out, std::string("Apache-2.0 AND MIT AND GPL-3.0-or-later WITH GCC-exception-3.1") +
                                 (holds_libacl ? " AND LGPL-2.1-or-later" : ""));
  const auto license_files = test::run({"rpm", "-qpL", rpm});
  EXPECT_EQ(lines_of(license_files.out), std::vector<std::string>{license});
  // The site policy and the cron example are the admin's: kept on upgrade.
  const auto configs = test::run({"rpm", "-qpc", rpm});
  EXPECT_EQ(lines_of(configs.out),
            (std::vector<std::string>{"/etc/cron.d/hsperfguard", "/etc/hsperfguard/policy.json"}));
  const auto scripts = test::run({"rpm", "-qp", "--scripts", rpm});
  for (const char* scriptlet :
       {"postinstall scriptlet", "preuninstall scriptlet", "postuninstall scriptlet"}) {
    EXPECT_NE(scripts.out.find(scriptlet), std::string::npos) << scripts.out;
  }

  // Install into a scratch root (its scriptlets run there), run the installed binary, erase.
  const std::string root = scratch / "root";
  ASSERT_TRUE(make_scriptlet_root(root));
  const auto install = test::run({"rpm", "--root", root, "--nodeps", "-i", rpm});
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  EXPECT_EQ(install.err.find("scriptlet failed"), std::string::npos) << install.err;
  EXPECT_EQ(read_text(root + license), read_text(kSource + "/LICENSE"));
  EXPECT_NE(read_text(root + "/usr/lib/systemd/system/hsperfguard-reap.service")
                .find("ExecStart=/usr/bin/hsperfguard reap "),
            std::string::npos);
  // %post made the tool's directories without systemd-tmpfiles, with the units' modes.
  for (const auto& [dir, mode] : {std::pair{"/run/hsperfguard", 0755u}, std::pair{"/var/lib/hsperfguard", 0750u},
                                  std::pair{"/var/log/hsperfguard", 0750u}}) {
    struct stat st {};
    EXPECT_EQ(::stat((root + dir).c_str(), &st), 0) << dir;
    EXPECT_EQ(st.st_mode & 07777, mode) << dir;
  }
  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const auto audit =
      test::run({root + "/usr/bin/hsperfguard", "audit", "--policy",
                 root + "/etc/hsperfguard/policy.json", "--tmpdir", tree.tmp, "--format", "json"});
  EXPECT_EQ(audit.exit_code, 1) << audit.err;
  EXPECT_NE(audit.out.find("namespace.group-other-writable"), std::string::npos) << audit.out;

  // What the tool wrote there goes with the package (the %postun scriptlet, run in the root).
  test::write_file(root + "/var/lib/hsperfguard/audit.json", test::to_bytes("{}\n"));
  // A systemd "running" in the root (/run/systemd/system) and a systemctl that records its
  // arguments: %preun stops, disables and forgets the units, %postun reloads.
  ASSERT_TRUE(std::filesystem::create_directories(root + "/run/systemd/system"));
  std::filesystem::create_directories(root + "/usr/bin");
  test::write_file(root + "/usr/bin/systemctl", test::to_bytes("#!/bin/sh\necho \"$*\" >> /systemctl.log\n"));
  ::chmod((root + "/usr/bin/systemctl").c_str(), 0755);
  const auto erase = test::run({"rpm", "--root", root, "-e", "hsperfguard"});
  ASSERT_EQ(erase.exit_code, 0) << erase.out << erase.err;
  EXPECT_EQ(erase.err.find("scriptlet failed"), std::string::npos) << erase.err;
  const std::string units =
      "hsperfguard-reap.timer hsperfguard-audit.timer hsperfguard-reap.service hsperfguard-audit.service";
  EXPECT_EQ(read_text(root + "/systemctl.log"), "--no-reload disable --now " + units + "\nreset-failed " + units +
                                                    "\n--system daemon-reload\n");
  std::size_t files = 0;
  for (const auto& path : in_rpm) {
    ++files;
    EXPECT_FALSE(exists(root + path)) << path << " left behind";
  }
  EXPECT_GE(files, 30u);
  EXPECT_FALSE(exists(root + "/var/lib/hsperfguard")) << "the %postun scriptlet did not run";
}

// ---- the floor: what the packages need against what their distributions ship -------------------

// A symbol version node ("GLIBCXX_3.4.29"): its family ("GLIBCXX") and its numbers (3, 4, 29).
struct VersionNode {
  std::string family;
  std::vector<long> numbers;
  std::string text;
};

std::optional<VersionNode> parse_node(const std::string& text) {
  static const std::regex node(R"(([A-Za-z][A-Za-z0-9_]*?)_([0-9]+(\.[0-9]+)*))");
  std::smatch m;
  if (!std::regex_match(text, m, node)) return std::nullopt;
  VersionNode v{m[1], {}, text};
  std::istringstream parts(m[2].str());
  for (std::string part; std::getline(parts, part, '.');) v.numbers.push_back(std::stol(part));
  return v;
}

// packaging/floor.txt: the floor of each library's symbol versions, what each target
// distribution ships, and what the RPM may require besides libraries.
struct Floor {
  struct Ships {
    std::string distribution, format, soname;
    VersionNode node;
    std::string package, version;
  };
  std::map<std::pair<std::string, std::string>, VersionNode> floors;  // by (soname, family)
  std::vector<Ships> ships;
  std::set<std::string> rpm_requires;
  std::vector<std::string> errors;  // lines that say nothing this format knows

  bool names_library(const std::string& soname) const {
    return std::any_of(floors.begin(), floors.end(),
                       [&](const auto& f) { return f.first.first == soname; });
  }
  std::set<std::string> distributions(const std::string& format) const {
    std::set<std::string> out;
    for (const auto& s : ships) {
      if (format.empty() || s.format == format) out.insert(s.distribution);
    }
    return out;
  }
};

Floor parse_floor(const std::string& text) {
  Floor floor;
  for (const auto& line : lines_of(text)) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty() || words[0].starts_with("#")) continue;
    const auto node = words.size() > 2 ? parse_node(words[2]) : std::nullopt;
    const auto shipped = words.size() > 4 ? parse_node(words[4]) : std::nullopt;
    if (words[0] == "floor" && words.size() == 3 && node) {
      floor.floors.insert_or_assign({words[1], node->family}, *node);
    } else if (words[0] == "ships" && words.size() >= 8 &&
               (words[2] == "deb" || words[2] == "rpm") && shipped) {
      floor.ships.push_back({words[1], words[2], words[3], *shipped, words[5], words[6]});
    } else if (words[0] == "rpm-requires" && words.size() == 2) {
      floor.rpm_requires.insert(words[1]);
    } else {
      floor.errors.push_back(line);
    }
  }
  return floor;
}

// Each floor against each target distribution: every distribution ships every library the
// floor names, at the floor's version or newer.
std::vector<std::string> floor_contradictions(const Floor& floor) {
  std::vector<std::string> problems;
  for (const auto& entry : floor.floors) {  // not a structured binding: clang 14 cannot capture one
    const std::string& soname = entry.first.first;
    const std::string& family = entry.first.second;
    const VersionNode& node = entry.second;
    for (const auto& distribution : floor.distributions("")) {
      const auto shipped =
          std::find_if(floor.ships.begin(), floor.ships.end(), [&](const Floor::Ships& s) {
            return s.distribution == distribution && s.soname == soname && s.node.family == family;
          });
      if (shipped == floor.ships.end()) {
        problems.push_back(distribution + ": no " + soname + " " + family + "_ version listed");
      } else if (shipped->node.numbers < node.numbers) {
        problems.push_back(distribution + " ships " + soname + " up to " + shipped->node.text +
                           ", below the floor " + node.text);
      }
    }
  }
  return problems;
}

// What `objdump -p` says a binary needs: its libraries (NEEDED) and, per library, the symbol
// versions (Version References).
struct BinaryNeeds {
  std::vector<std::string> libraries;
  std::vector<std::pair<std::string, std::string>> versions;  // (soname, node)
};

BinaryNeeds parse_objdump_p(const std::string& text) {
  static const std::regex needed(R"(^\s+NEEDED\s+(\S+)$)");
  static const std::regex from(R"(^\s+required from (\S+):$)");
  static const std::regex version(R"(^\s+0x[0-9a-f]+ 0x[0-9a-f]+ [0-9]+ (\S+)$)");
  BinaryNeeds needs;
  std::string library;
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, needed)) {
      needs.libraries.push_back(m[1]);
    } else if (std::regex_match(line, m, from)) {
      library = m[1];
    } else if (!library.empty() && std::regex_match(line, m, version)) {
      needs.versions.emplace_back(library, m[1]);
    }
  }
  return needs;
}

// A library's symbol version against the floor; "" when within it.
std::string past_floor(const Floor& floor, const std::string& soname,
                       const std::string& node_text) {
  const auto node = parse_node(node_text);
  if (!node) return soname + " " + node_text + ": not a version the floor can compare";
  const auto f = floor.floors.find({soname, node->family});
  if (f == floor.floors.end())
    return soname + " " + node_text + ": the floor names no " + node->family + "_ of " + soname;
  if (f->second.numbers < node->numbers)
    return soname + " " + node_text + ": past the floor " + f->second.text;
  return "";
}

// The binary's libraries and symbol versions against the floor. `symbols` (objdump -T -C of
// the same binary) names the functions that need a version past it.
std::vector<std::string> binary_past_floor(const Floor& floor, const BinaryNeeds& needs,
                                           const std::string& symbols) {
  std::vector<std::string> problems;
  for (const auto& library : needs.libraries) {
    if (!floor.names_library(library))
      problems.push_back("needs " + library + ", a library the floor does not name");
  }
  for (const auto& [soname, node] : needs.versions) {
    std::string problem = past_floor(floor, soname, node);
    if (problem.empty()) continue;
    for (const auto& line : lines_of(symbols)) {
      if (const auto at = line.find(" (" + node + ") "); at != std::string::npos) {
        problem += "; " + line.substr(at + node.size() + 4);
      }
    }
    problems.push_back(problem);
  }
  return problems;
}

// The .deb's Depends against what each Debian-format target ships ("libc6 (>= 2.34), ...";
// alternatives "a | b": one of them met is enough).
std::vector<std::string> deb_depends_past_floor(const Floor& floor, const std::string& depends) {
  static const std::regex relation(
      R"(^\s*([a-z0-9][a-z0-9+.-]*)(:[a-z0-9]+)?\s*(\((<<|<=|=|>=|>>)\s*([^)\s]+)\))?\s*$)");
  static const std::map<std::string, std::string> op = {
      {"<<", "lt"}, {"<=", "le"}, {"=", "eq"}, {">=", "ge"}, {">>", "gt"}};
  std::vector<std::string> problems;
  std::istringstream clauses(depends);
  for (std::string clause; std::getline(clauses, clause, ',');) {
    const auto first = clause.find_first_not_of(" \n");
    if (first == std::string::npos) continue;
    clause = clause.substr(first, clause.find_last_not_of(" \n") + 1 - first);
    for (const auto& distribution : floor.distributions("deb")) {
      bool met = false;
      std::istringstream alternatives(clause);
      for (std::string alternative; !met && std::getline(alternatives, alternative, '|');) {
        std::smatch m;
        if (!std::regex_match(alternative, m, relation)) continue;
        for (const auto& s : floor.ships) {
          if (s.distribution != distribution || s.package != m[1]) continue;
          met = !m[3].matched ||
                test::run({"dpkg", "--compare-versions", s.version, op.at(m[4]), m[5]}).exit_code ==
                    0;
          break;
        }
      }
      if (!met) problems.push_back(distribution + " cannot meet " + clause);
    }
  }
  return problems;
}

// The RPM's requirements (`rpm -qpR`, one a line) against the floor: a library's, by soname
// and symbol version; anything else must be listed as rpm-requires.
std::vector<std::string> rpm_requires_past_floor(const Floor& floor, const std::string& requires_) {
  static const std::regex library(R"(^([^()\s]+\.so[^()\s]*)\(([^()]*)\)(\(64bit\))?$)");
  std::vector<std::string> problems;
  for (const auto& line : lines_of(requires_)) {
    if (line.empty()) continue;
    std::smatch m;
    if (std::regex_match(line, m, library)) {
      if (!floor.names_library(m[1])) {
        problems.push_back(line + ": a library the floor does not name");
      } else if (m[2].length() > 0) {
        if (const auto problem = past_floor(floor, m[1], m[2]); !problem.empty())
          problems.push_back(line + ": " + problem);
      }
    } else if (!floor.rpm_requires.contains(line.substr(0, line.find(' ')))) {
      problems.push_back(line + ": not a library, and not listed as rpm-requires");
    }
  }
  return problems;
}

std::vector<std::string> requirement_lines(const std::string& text, bool libraries) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(text)) {
    if (!line.empty() && (line.find(".so") != std::string::npos) == libraries) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kFloorFile = kSource + "/packaging/floor.txt";

// The floor is that of the distributions the issue named, and each of them meets it.
TEST(PackageFloor, EveryTargetDistributionMeetsTheFloor) {
  const Floor floor = parse_floor(read_text(kFloorFile));
  EXPECT_EQ(floor.errors, std::vector<std::string>{});
  EXPECT_EQ(floor.distributions("deb"),
            (std::set<std::string>{"debian-12", "debian-13", "ubuntu-22.04", "ubuntu-24.04"}));
  EXPECT_EQ(floor.distributions("rpm"), (std::set<std::string>{"rhel-9", "amazon-2023"}));
  for (const char* library : {"libc.so.6", "libstdc++.so.6", "libgcc_s.so.1"}) {
    EXPECT_TRUE(floor.names_library(library)) << library;
  }
  EXPECT_EQ(floor_contradictions(floor), std::vector<std::string>{});
}

// The check refuses what the packages of the GCC 12 build with a shared liburing needed (their
// objdump -p, Depends and rpm -qpR), and a floor no RPM target meets; it passes what a build
// within the floor needs.
TEST(PackageFloor, CheckRefusesGcc12SymbolsASharedLiburingAndAFloorPastATarget) {
  const Floor floor = parse_floor(read_text(kFloorFile));
  const std::string objdump_p =
      "Dynamic Section:\n"
      "  NEEDED               libacl.so.1\n"
      "  NEEDED               liburing.so.2\n"
      "  NEEDED               libstdc++.so.6\n"
      "  NEEDED               libc.so.6\n"
      "Version References:\n"
      "  required from liburing.so.2:\n"
      "    0x09225f70 0x00 23 LIBURING_2.0\n"
      "  required from libc.so.6:\n"
      "    0x069691b4 0x00 21 GLIBC_2.34\n"
      "  required from libstdc++.so.6:\n"
      "    0x0297f840 0x00 15 GLIBCXX_3.4.30\n"
      "    0x0297f879 0x00 10 GLIBCXX_3.4.29\n"
      "    0x0afd17f3 0x00 05 CXXABI_1.3.13\n";
  const std::string objdump_t =
      "0000000000000000      DF *UND*\t0000000000000000 (GLIBCXX_3.4.30) "
      "std::condition_variable::wait(std::unique_lock<std::mutex>&)\n";
  EXPECT_EQ(binary_past_floor(floor, parse_objdump_p(objdump_p), objdump_t),
            (std::vector<std::string>{
                "needs liburing.so.2, a library the floor does not name",
                "liburing.so.2 LIBURING_2.0: the floor names no LIBURING_ of liburing.so.2",
                "libstdc++.so.6 GLIBCXX_3.4.30: past the floor GLIBCXX_3.4.29; "
                "std::condition_variable::wait(std::unique_lock<std::mutex>&)"}));

  const auto deb = deb_depends_past_floor(floor,
                                          "libacl1 (>= 2.2.23), libc6 (>= 2.34), libgcc-s1 (>= "
                                          "3.0), libstdc++6 (>= 12), liburing2 (>= 2.3)");
  for (const char* d : {"debian-12", "debian-13", "ubuntu-22.04", "ubuntu-24.04"}) {
    EXPECT_NE(std::find(deb.begin(), deb.end(), std::string(d) + " cannot meet liburing2 (>= 2.3)"),
              deb.end())
        << d;
  }
  EXPECT_EQ(deb.size(), 4u) << testing::PrintToString(deb);
  EXPECT_EQ(deb_depends_past_floor(floor, "libc6 (>= 2.36), libstdc++6 (>= 13)"),
            (std::vector<std::string>{"ubuntu-22.04 cannot meet libc6 (>= 2.36)",
                                      "debian-12 cannot meet libstdc++6 (>= 13)",
                                      "ubuntu-22.04 cannot meet libstdc++6 (>= 13)"}));

  EXPECT_EQ(
      rpm_requires_past_floor(floor,
                              "/bin/sh\n"
                              "libc.so.6(GLIBC_2.34)(64bit)\n"
                              "libstdc++.so.6(GLIBCXX_3.4.30)(64bit)\n"
                              "liburing.so.2()(64bit)\n"
                              "liburing.so.2(LIBURING_2.0)(64bit)\n"
                              "rpmlib(PayloadIsZstd) <= 5.4.18-1\n"),
      (std::vector<std::string>{
          "libstdc++.so.6(GLIBCXX_3.4.30)(64bit): libstdc++.so.6 GLIBCXX_3.4.30: past the floor "
          "GLIBCXX_3.4.29",
          "liburing.so.2()(64bit): a library the floor does not name",
          "liburing.so.2(LIBURING_2.0)(64bit): a library the floor does not name",
          "rpmlib(PayloadIsZstd) <= 5.4.18-1: not a library, and not listed as rpm-requires"}));

  Floor raised = floor;
  raised.floors.insert_or_assign({"libstdc++.so.6", "GLIBCXX"}, *parse_node("GLIBCXX_3.4.30"));
  EXPECT_EQ(
      floor_contradictions(raised),
      (std::vector<std::string>{
          "amazon-2023 ships libstdc++.so.6 up to GLIBCXX_3.4.29, below the floor GLIBCXX_3.4.30",
          "rhel-9 ships libstdc++.so.6 up to GLIBCXX_3.4.29, below the floor GLIBCXX_3.4.30"}));

  // Within the floor: nothing to say.
  const std::string within =
      "  NEEDED               libstdc++.so.6\n"
      "  required from libstdc++.so.6:\n"
      "    0x0297f879 0x00 10 GLIBCXX_3.4.29\n";
  EXPECT_EQ(binary_past_floor(floor, parse_objdump_p(within), ""), std::vector<std::string>{});
  EXPECT_EQ(
      deb_depends_past_floor(floor, "libc6 (>= 2.34), libstdc++6 (>= 11) | libstdc++6-compat"),
      std::vector<std::string>{});
  EXPECT_EQ(rpm_requires_past_floor(floor,
                                    "libc.so.6(GLIBC_2.34)(64bit)\nlibc.so.6()(64bit)\ncrontabs\n"),
            std::vector<std::string>{});
}

// The CI check: the binary in the .deb and in the RPM, the .deb's Depends and the RPM's Requires,
// all within packaging/floor.txt; and the dependencies are those dpkg-shlibdeps and rpm's elfdeps
// find in the binary, not written by hand.
TEST(PackageFloor, PackagedBinaryAndDependenciesStayWithinTheFloor) {
  for (const auto& [program, package] :
       std::vector<std::pair<std::string, std::string>>{{"cpack", "cmake"},
                                                        {"rpmbuild", "rpm"},
                                                        {"rpm", "rpm"},
                                                        {"rpm2cpio", "rpm2cpio"},
                                                        {"cpio", "cpio"},
                                                        {"dpkg-deb", "dpkg"},
                                                        {"dpkg-shlibdeps", "dpkg-dev"},
                                                        {"objdump", "binutils"}}) {
    ASSERT_FALSE(test::find_program(program).empty())
        << program << " not found: install Debian's package " << package;
  }
  ASSERT_TRUE(exists("/usr/lib/rpm/elfdeps"))
      << "rpm's dependency generator not found: install Debian's package rpm";
  const Floor floor = parse_floor(read_text(kFloorFile));
  ASSERT_EQ(floor.errors, std::vector<std::string>{});

  test::ScratchDir scratch;
  std::map<std::string, std::string> packages;
  ASSERT_TRUE(build_packages(scratch / "pkg", {"DEB", "RPM"}, packages));
  const std::string rpm = packages[".rpm"], deb = packages[".deb"];

  // The binary each package holds.
  std::filesystem::create_directories(scratch / "deb/debian");
  test::write_file(scratch / "deb/debian/control", {});  // dpkg-shlibdeps wants one
  const std::string deb_binary = scratch / "deb/hsperfguard";
  const std::string rpm_binary = scratch / "hsperfguard.rpm-binary";
  ASSERT_EQ(shell("dpkg-deb --fsys-tarfile '" + deb + "' | tar -xOf - ./usr/bin/hsperfguard > '" +
                  deb_binary + "'")
                .exit_code,
            0);
  ASSERT_EQ(shell("rpm2cpio '" + rpm + "' | cpio -i --quiet --to-stdout ./usr/bin/hsperfguard > '" +
                  rpm_binary + "'")
                .exit_code,
            0);
  for (const auto& binary : {deb_binary, rpm_binary}) {
    ::chmod(binary.c_str(), 0755);  // elfdeps reads only executables
    const auto p = test::run({"objdump", "-p", binary});
    const auto t = test::run({"objdump", "-T", "-C", binary});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    const BinaryNeeds needs = parse_objdump_p(p.out);
    EXPECT_FALSE(needs.libraries.empty()) << p.out;
    EXPECT_FALSE(needs.versions.empty()) << p.out;
    EXPECT_EQ(binary_past_floor(floor, needs, t.out), std::vector<std::string>{}) << binary;
  }

  // The .deb's Depends: within what every Debian-format target ships, and dpkg-shlibdeps's.
  const auto depends = test::run({"dpkg-deb", "--field", deb, "Depends"});
  ASSERT_EQ(depends.exit_code, 0) << depends.err;
  std::printf("Depends: %s", depends.out.c_str());
  EXPECT_EQ(deb_depends_past_floor(floor, depends.out), std::vector<std::string>{});
  const auto shlibdeps =
      shell("cd '" + scratch / "deb" + "' && dpkg-shlibdeps -O -e hsperfguard 2>/dev/null");
  ASSERT_EQ(shlibdeps.exit_code, 0) << shlibdeps.err;
  EXPECT_EQ("shlibs:Depends=" + depends.out, shlibdeps.out);

  // The RPM's Requires: within the floor, and the libraries exactly those rpm's elfdeps finds.
  const auto requires_ = test::run({"rpm", "-qpR", rpm});
  ASSERT_EQ(requires_.exit_code, 0) << requires_.err;
  EXPECT_EQ(rpm_requires_past_floor(floor, requires_.out), std::vector<std::string>{});
  const auto elfdeps = shell("/usr/lib/rpm/elfdeps --requires '" + rpm_binary + "'");
  ASSERT_EQ(elfdeps.exit_code, 0) << elfdeps.err;
  EXPECT_EQ(requirement_lines(requires_.out, true), requirement_lines(elfdeps.out, true));
  EXPECT_FALSE(requirement_lines(requires_.out, true).empty()) << requires_.out;
}

// ---- the man page ------------------------------------------------------------------------------

// An upgrade from a version whose reap lock held its pid alone: this version refuses such a
// lock file (not marked as ours), so the timer's reaps would exit 3 until the next boot. The
// Debian postinst and the RPM %post remove it, and nothing else: a lock with the marker, an
// old one a running reap holds, and a link in its place stay.
TEST(PackageScripts, UpgradeRemovesAnOldPidOnlyReapLockAndNothingElse) {
  if (!test::is_root() || !test::have_program("unshare") || !test::have_program("flock")) {
    GTEST_SKIP() << "needs root, unshare, flock";
  }
  for (const auto& [scriptlet, args] : {std::pair{"packaging/debian/postinst", "configure 0.9.0"},
                                        std::pair{"packaging/rpm/post", "2"}}) {
    // The scriptlet goes in through a quoted here-document: the checkout may lie under /tmp,
    // which the private mounts cover.
    std::ifstream in(test::source_path(scriptlet));
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << scriptlet;
    const auto r = test::run_in_private_mounts("cat > /run/scriptlet <<'SCRIPTLET'\n" + text.str() + "SCRIPTLET\n" + R"SH(
mkdir /tmp/stub && printf '#!/bin/sh\nexit 0\n' > /tmp/stub/systemd-tmpfiles && cp /tmp/stub/systemd-tmpfiles /tmp/stub/systemctl && chmod 755 /tmp/stub/*
run() { PATH=/tmp/stub:$PATH sh /run/scriptlet )SH" + args + R"SH( >/dev/null 2>&1; }
L=/run/hsperfguard/reap.lock
mkdir -p /run/hsperfguard
printf '4242\n' > $L && run; echo old=$([ -e $L ] && echo kept || echo removed)
printf '4242\nhsperfguard reap lock\n' > $L && run; echo marked=$([ -e $L ] && echo kept || echo removed)
printf '4242\n' > $L
/usr/bin/python3 -c 'import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(60)' $L /run/holding >/dev/null 2>&1 & HOLDER=$!
i=0; while [ $i -lt 600 ] && [ ! -e /run/holding ]; do sleep 0.1; i=$((i+1)); done
run; echo held=$([ -e $L ] && echo kept || echo removed); kill $HOLDER; wait $HOLDER 2>/dev/null
rm -f $L; printf '42\n' > /tmp/state && ln -s /tmp/state $L && run
echo link=$([ -L $L ] && echo kept || echo removed) target=$(cat /tmp/state)
)SH");
    EXPECT_NE(r.out.find("old=removed"), std::string::npos) << scriptlet << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("marked=kept"), std::string::npos) << scriptlet << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("held=kept"), std::string::npos) << scriptlet << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("link=kept target=42"), std::string::npos) << scriptlet << ": " << r.out << r.err;
  }
}

// The text of a maintainer script of packaging/, for a here-document.
std::string scriptlet_text(const std::string& scriptlet) {
  std::ifstream in(test::source_path(scriptlet));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Removing the package with its timers enabled left them "not-found failed" with their links
// in timers.target.wants/ (the .deb had no prerm). The Debian prerm and the RPM %preun now stop
// and disable the four units and forget a failed one, with a running systemd; without one (a
// chroot) they disable them all the same; an upgrade leaves them as they are. systemctl is a
// stub that records its arguments; /run/systemd/system is made in a private /run. A real
// systemd removing them: tests/field/systemd_field.sh.
TEST(PackageScripts, RemovalStopsAndDisablesTheUnitsAnUpgradeLeavesThem) {
  if (!test::is_root() || !test::have_program("unshare")) GTEST_SKIP() << "needs root, unshare";
  const std::string units =
      "hsperfguard-reap.timer hsperfguard-audit.timer hsperfguard-reap.service hsperfguard-audit.service";
  struct Case {
    const char* scriptlet;
    const char* remove;
    const char* upgrade;
  };
  for (const Case& c : {Case{"packaging/debian/prerm", "remove", "upgrade 0.2.0"},
                        Case{"packaging/rpm/preun", "0", "1"}}) {
    const std::string text = scriptlet_text(c.scriptlet);
    ASSERT_FALSE(text.empty()) << c.scriptlet;
    const auto r = test::run_in_private_mounts("cat > /run/scriptlet <<'SCRIPTLET'\n" + text + "SCRIPTLET\n" + R"SH(
mkdir /tmp/stub && printf '#!/bin/sh\necho "$*" >> /tmp/systemctl.log\n' > /tmp/stub/systemctl && chmod 755 /tmp/stub/systemctl
run() { rm -f /tmp/systemctl.log; PATH=/tmp/stub:$PATH sh /run/scriptlet "$@"; echo "rc=$?"; cat /tmp/systemctl.log 2>/dev/null; echo; }
mkdir -p /run/systemd/system
echo "== running"; run )SH" + c.remove + R"SH(
echo "== upgrade"; run )SH" + c.upgrade + R"SH(
rmdir /run/systemd/system
echo "== offline"; run )SH" + c.remove + R"SH(
)SH");
    ASSERT_EQ(r.exit_code, 0) << c.scriptlet << ": " << r.out << r.err;
    EXPECT_EQ(r.out, "== running\nrc=0\n--no-reload disable --now " + units + "\nreset-failed " + units +
                         "\n\n== upgrade\nrc=0\n\n== offline\nrc=0\n--no-reload disable " + units + "\n\n")
        << c.scriptlet << "\n"
        << r.err;
  }
}

// Without systemd-tmpfiles (a chroot, a cron-only host) the Debian postinst and the RPM %post
// made none of the tool's directories; they make them now, with the tmpfiles.d snippet's modes
// (the units' StateDirectoryMode= and LogsDirectoryMode=). /var/lib and /var/log are private
// tmpfs; PATH holds what the scripts call and no systemd-tmpfiles.
TEST(PackageScripts, WithoutSystemdTmpfilesTheDirectoriesAreMadeWithTheUnitsModes) {
  if (!test::is_root() || !test::have_program("unshare")) GTEST_SKIP() << "needs root, unshare";
  for (const auto& [scriptlet, args] : {std::pair{"packaging/debian/postinst", "configure"},
                                        std::pair{"packaging/rpm/post", "1"}}) {
    const std::string text = scriptlet_text(scriptlet);
    ASSERT_FALSE(text.empty()) << scriptlet;
    const auto r = test::run_in_private_mounts("cat > /run/scriptlet <<'SCRIPTLET'\n" + text + "SCRIPTLET\n" + R"SH(
mount -t tmpfs tmpfs /var/lib && mount -t tmpfs tmpfs /var/log || exit 99
mkdir /tmp/bin && for p in sh install rm wc grep flock; do ln -s "$(command -v $p)" /tmp/bin/$p; done
PATH=/tmp/bin sh /run/scriptlet )SH" + args + R"SH(; echo "rc=$?"
stat -c '%n %a %U' /run/hsperfguard /var/lib/hsperfguard /var/log/hsperfguard
)SH");
    EXPECT_EQ(r.out,
              "rc=0\n/run/hsperfguard 755 root\n/var/lib/hsperfguard 750 root\n/var/log/hsperfguard 750 root\n")
        << scriptlet << "\n"
        << r.err;
  }
}

// ---- the reap service's capabilities ------------------------------------------------------------

// `sleep 600` as nobody: a live process of another user, started after any region's VM began.
class NobodySleeper : public reaptest::ChildProcess {
 public:
  bool start() {
    const std::string sleep = test::find_program("sleep");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNogroup) != 0 || ::setuid(kNobody) != 0) ::_exit(126);
      const char* argv[] = {sleep.c_str(), "600", nullptr};
      ::execv(sleep.c_str(), const_cast<char* const*>(argv));
      ::_exit(127);
    }
    if (pid_ < 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      struct stat st {};
      const std::string exe = "/proc/" + std::to_string(pid_);
      char target[256] = {};
      const ssize_t n = ::readlink((exe + "/exe").c_str(), target, sizeof target - 1);
      if (::stat(exe.c_str(), &st) == 0 && st.st_uid == kNobody && n > 0 &&
          std::string(target, static_cast<std::size_t>(n)).find("sleep") != std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

// The reap service keeps only the capabilities in its CapabilityBoundingSet. Run with exactly
// those (setpriv: bounding set, no inheritable or ambient capabilities, no_new_privs, as the
// unit does), `reap` removes another user's stale file in a private (0700) namespace and a
// file of that user's whose pid a live process of that user reuses. Without any one of them
// but CAP_SYS_PTRACE (the containers' capability, tested with a real container in
// units_capabilities_posix_test.cpp), something it must remove stays: each is needed.
TEST(ReapService, CapabilityBoundingSetIsEnoughAndEachCapabilityIsNeeded) {
  if (!test::is_root()) GTEST_SKIP() << "the bounding set only matters to root";
  ASSERT_FALSE(test::find_program("setpriv").empty()) << "setpriv not found: install Debian's package util-linux";
  const auto caps = test::unit_capabilities(kSource + "/packaging/systemd/hsperfguard-reap.service");
  ASSERT_EQ(caps, (std::vector<std::string>{"setuid", "setgid", "dac_read_search", "kill", "sys_ptrace"}));

  const auto reap_with = [&](const std::string& set, std::string* report) {
    ReapTree tree;
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0700);
    const std::string stale = tree.stale_file(ns);
    NobodySleeper sleeper;
    EXPECT_TRUE(sleeper.start());
    const std::string reused = tree.region_file(ns, std::to_string(sleeper.pid()));
    const auto run = test::run({"setpriv", "--bounding-set=" + set, "--inh-caps=-all", "--ambient-caps=-all",
                                "--no-new-privs", "--", test::tool_path(), "reap", "--tmpdir", tree.tmp,
                                "--no-lock", "--min-age", "0", "--format", "json"});
    *report = run.out + run.err;
    return std::pair<bool, bool>{!exists(stale), !exists(reused)};
  };
  std::string report;
  const auto all = reap_with(test::bounding_set(caps), &report);
  EXPECT_TRUE(all.first) << "stale file kept with the unit's capabilities\n" << report;
  EXPECT_TRUE(all.second) << "pid-reused file kept with the unit's capabilities\n" << report;
  for (const auto& cap : caps) {
    // CAP_SYS_PTRACE is what looks into containers; this reap has --tmpdir and no container.
    // UnitCapabilities.ReapIsNotSilentlyBlindToContainersUnderTheUnitsBoundingSet shows it is needed.
    if (cap == "sys_ptrace") continue;
    const auto less = reap_with(test::bounding_set(caps, cap), &report);
    EXPECT_FALSE(less.first && less.second) << "without CAP_" << cap << " everything was still removed: "
                                            << "it is not needed\n" << report;
  }
}

// ---- Windows Task Scheduler ---------------------------------------------------------------------

TEST(WindowsTask, DefinitionRunsReapAsSystemDailyWithATimeLimit) {
  const std::string xml = kSource + "/packaging/windows/hsperfguard-reap.xml";
  // Parsed by a real XML parser (well-formed, in the Task Scheduler namespace).
  const auto parsed = test::run(
      {"python3", "-c",
       "import sys, xml.etree.ElementTree as E\n"
       "ns = {'t': 'http://schemas.microsoft.com/windows/2004/02/mit/task'}\n"
       "r = E.parse(sys.argv[1]).getroot()\n"
       "for p in ['t:Principals/t:Principal/t:UserId', 't:Principals/t:Principal/t:RunLevel',\n"
       "          't:Triggers/t:CalendarTrigger/t:ScheduleByDay/t:DaysInterval',\n"
       "          't:Settings/t:ExecutionTimeLimit', 't:Settings/t:MultipleInstancesPolicy',\n"
       "          't:Actions/t:Exec/t:Command', 't:Actions/t:Exec/t:Arguments']:\n"
       "    print(r.find(p, ns).text)\n",
       xml});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  const auto fields = lines_of(parsed.out);
  ASSERT_EQ(fields.size(), 7u) << parsed.out;
  EXPECT_EQ(fields[0], "S-1-5-18");  // LocalSystem
  EXPECT_EQ(fields[1], "HighestAvailable");
  EXPECT_EQ(fields[2], "1");  // daily
  EXPECT_TRUE(std::regex_match(fields[3], std::regex("PT[0-9]+[HM]"))) << fields[3];
  EXPECT_EQ(fields[4], "IgnoreNew");
  EXPECT_TRUE(fields[5].ends_with("hsperfguard.exe\"")) << fields[5];
  ASSERT_TRUE(fields[6].starts_with("reap ")) << fields[6];
  // The arguments are the reap command line this build accepts (paths moved to a scratch dir).
  ReapTree tree;
  std::vector<std::string> args;
  std::istringstream words(fields[6]);
  for (std::string w; words >> w;) {
    if (w.starts_with("C:\\")) w = tree.scratch / w.substr(w.rfind('\\') + 1);
    args.push_back(w);
  }
  args.insert(args.end(), {"--tmpdir", tree.tmp, "--dry-run"});
  const auto run = test::run_tool(args);
  EXPECT_EQ(run.exit_code, 0) << fields[6] << "\n" << run.err;
}

}  // namespace
}  // namespace hsperfguard
