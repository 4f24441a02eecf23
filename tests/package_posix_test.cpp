// Operations, end to end on this machine: the Debian package (cpack, lintian, dpkg -i, the
// installed audit, dpkg --purge), the man page, the capabilities the reap service keeps,
// and the Windows Task Scheduler definition.
//
// The package test installs into the real system (CI runs as root on a fresh machine). It
// refuses to run where hsperfguard is already installed or its directories exist, so that
// it never replaces or purges someone's installation, and it purges what it installed even
// when an assertion fails.
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

TEST(DebianPackage, BuildsLintsInstallsAuditsAndPurgesCleanly) {
  for (const auto& [program, package] : std::vector<std::pair<std::string, std::string>>{
           {"cpack", "cmake"}, {"lintian", "lintian"}, {"dpkg-shlibdeps", "dpkg-dev"},
           {"dpkg", "dpkg"}, {"help2man", "help2man"}}) {
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
  const auto cpack = test::run({"cpack", "-G", "DEB", "--config", kBuildDir + "/CPackConfig.cmake", "-B",
                                scratch / "pkg"});
  ASSERT_EQ(cpack.exit_code, 0) << cpack.out << cpack.err;
  std::string deb;
  for (const auto& e : std::filesystem::directory_iterator(scratch / "pkg")) {
    if (e.path().extension() == ".deb") deb = e.path().string();
  }
  ASSERT_FALSE(deb.empty()) << cpack.out;
  std::printf("package: %s\n", std::filesystem::path(deb).filename().c_str());

  // Contents and conffiles.
  const auto contents = test::run({"dpkg-deb", "--contents", deb});
  ASSERT_EQ(contents.exit_code, 0) << contents.err;
  for (const char* path :
       {"./usr/bin/hsperfguard", "./usr/share/man/man1/hsperfguard.1.gz",
        "./usr/share/hsperfguard/rules/file.json",
        "./usr/share/hsperfguard/rules/profiles/hotspot.json",
        "./lib/systemd/system/hsperfguard-reap.service",
        "./lib/systemd/system/hsperfguard-reap.timer",
        "./lib/systemd/system/hsperfguard-audit.service",
        "./lib/systemd/system/hsperfguard-audit.timer", "./etc/cron.d/hsperfguard",
        "./usr/lib/tmpfiles.d/hsperfguard.conf", "./etc/hsperfguard/policy.json",
        "./usr/share/doc/hsperfguard/copyright", "./usr/share/doc/hsperfguard/changelog.gz",
        "./usr/share/bash-completion/completions/hsperfguard",
                           "./usr/share/hsperfguard/prometheus/hsperfguard.rules.yml",
                           "./usr/share/doc/hsperfguard/README.md"}) {
    EXPECT_NE(contents.out.find(std::string(path) + "\n"), std::string::npos) << path << " missing:\n" << contents.out;
  }
  EXPECT_EQ(contents.out.find(" ./usr/local/"), std::string::npos) << contents.out;
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
  // The installed units run the installed binary; the audit reads the site policy.
  EXPECT_NE(read_text("/lib/systemd/system/hsperfguard-reap.service").find("ExecStart=/usr/bin/hsperfguard reap "),
            std::string::npos);
  EXPECT_NE(read_text("/lib/systemd/system/hsperfguard-audit.service")
                .find("ExecStart=/usr/bin/hsperfguard audit --policy /etc/hsperfguard/policy.json "),
            std::string::npos);
  // The cron job is there, disabled.
  const std::string cron = read_text("/etc/cron.d/hsperfguard");
  EXPECT_NE(cron.find("#*/15 * * * * root "), std::string::npos) << cron;
  for (const auto& line : lines_of(cron)) {
    EXPECT_FALSE(!line.starts_with("#") && line.find("hsperfguard reap") != std::string::npos) << line;
  }
  // systemd-tmpfiles --create made the tool's directories.
  EXPECT_TRUE(std::filesystem::is_directory("/var/lib/hsperfguard"));
  if (!test::find_program("systemd-analyze").empty() && exists("/usr/lib/systemd/system/sysinit.target")) {
    const auto verify = shell(
        "systemd-analyze verify --man=no /lib/systemd/system/hsperfguard-reap.service "
        "/lib/systemd/system/hsperfguard-reap.timer /lib/systemd/system/hsperfguard-audit.service "
        "/lib/systemd/system/hsperfguard-audit.timer");
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
  EXPECT_EQ(report.at("schema"), "hsperfguard-report/1");
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

// A root for `rpm --root` in which the package's scriptlets can run: /bin/sh and rm, with the
// libraries they load, copied from this machine.
::testing::AssertionResult make_scriptlet_root(const std::string& root) {
  for (const char* program : {"/bin/sh", "/bin/rm"}) {
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
  std::string rpm, deb;
  for (const char* generator : {"RPM", "DEB"}) {
    const auto cpack = test::run({"cpack", "-G", generator, "--config",
                                  kBuildDir + "/CPackConfig.cmake", "-B", scratch / "pkg"});
    ASSERT_EQ(cpack.exit_code, 0) << cpack.out << cpack.err;
  }
  for (const auto& e : std::filesystem::directory_iterator(scratch / "pkg")) {
    if (e.path().extension() == ".rpm") rpm = e.path().string();
    if (e.path().extension() == ".deb") deb = e.path().string();
  }
  ASSERT_FALSE(rpm.empty());
  ASSERT_FALSE(deb.empty());
  std::printf("package: %s\n", std::filesystem::path(rpm).filename().c_str());

  // rpmlint: no error, and only the warnings packaging/rpm/rpmlint.toml explains.
  const auto lint = test::run({"rpmlint", "-c", kSource + "/packaging/rpm/rpmlint.toml", rpm});
  std::printf("rpmlint:\n%s%s", lint.out.c_str(), lint.err.c_str());
  const std::set<std::string> explained = {"no-manual-page-for-binary",
                                           "dangerous-command-in-%postun"};
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
  for (auto path : package_files(deb_list.out, true)) {
    if (path.starts_with("/lib/systemd/system/")) path = "/usr" + path;
    in_deb.insert(path);
  }
  // The RPM lists its own directories; the .deb's files must all be there, and nothing else but
  // directories of ours.
  for (const auto& path : in_deb)
    EXPECT_TRUE(in_rpm.contains(path)) << path << " is in the .deb, not the RPM";
  // The RPM's license file is its own (the .deb's copyright file points to Debian's copy).
  const std::string license = "/usr/share/licenses/hsperfguard/LICENSE";
  for (const auto& path : in_rpm) {
    const bool ours_dir = path == "/etc/hsperfguard" ||
                          path.starts_with("/usr/share/hsperfguard") ||
                          path == "/usr/share/doc/hsperfguard" || path == "/usr/share/licenses/hsperfguard";
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
  // The license: the tag in SPDX (liburing's too), the project's text marked %license.
  const auto license_tag = test::run({"rpm", "-qp", "--qf", "%{LICENSE}", rpm});
  EXPECT_EQ(license_tag.out, "Apache-2.0 AND MIT");
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
  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const auto audit =
      test::run({root + "/usr/bin/hsperfguard", "audit", "--policy",
                 root + "/etc/hsperfguard/policy.json", "--tmpdir", tree.tmp, "--format", "json"});
  EXPECT_EQ(audit.exit_code, 1) << audit.err;
  EXPECT_NE(audit.out.find("namespace.group-other-writable"), std::string::npos) << audit.out;

  // What the tool wrote there goes with the package (the %postun scriptlet, run in the root).
  ASSERT_TRUE(std::filesystem::create_directories(root + "/var/lib/hsperfguard"));
  test::write_file(root + "/var/lib/hsperfguard/audit.json", test::to_bytes("{}\n"));
  const auto erase = test::run({"rpm", "--root", root, "-e", "hsperfguard"});
  ASSERT_EQ(erase.exit_code, 0) << erase.out << erase.err;
  EXPECT_EQ(erase.err.find("scriptlet failed"), std::string::npos) << erase.err;
  std::size_t files = 0;
  for (const auto& path : in_rpm) {
    ++files;
    EXPECT_FALSE(exists(root + path)) << path << " left behind";
  }
  EXPECT_GE(files, 30u);
  EXPECT_FALSE(exists(root + "/var/lib/hsperfguard")) << "the %postun scriptlet did not run";
}

// ---- the man page ------------------------------------------------------------------------------

TEST(ManPage, CoversEverySubcommandOptionExitCodeAndRendersWithoutWarnings) {
  ASSERT_FALSE(test::find_program("help2man").empty()) << "help2man not found: install Debian's package help2man";
  const std::string page = kBuildDir + "/share/man/man1/hsperfguard.1.gz";
  ASSERT_TRUE(exists(page)) << "the build made no man page";
  if (test::find_program("man").empty()) GTEST_SKIP() << "no man to render it (Debian: man-db)";
  const auto rendered = shell("LC_ALL=C MANWIDTH=200 man --warnings -l '" + page + "' | col -bx");
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_EQ(rendered.err, "") << "groff warnings";
  const std::string& text = rendered.out;
  // Every subcommand and every option --help-all lists (the source) is in the page.
  const auto help = test::run_tool({"--help-all"});
  ASSERT_EQ(help.exit_code, 0);
  static const std::regex option(R"((--[a-z][a-z0-9-]*))");
  std::set<std::string> options;
  for (std::sregex_iterator it(help.out.begin(), help.out.end(), option), end; it != end; ++it) {
    options.insert((*it)[1]);
  }
  EXPECT_GT(options.size(), 20u);
  for (const auto& o : options) EXPECT_NE(text.find(o), std::string::npos) << o << " is not in the man page";
  for (const char* word : {"audit", "reap", "rules", "inspect", "EXIT STATUS", "THREAT MODEL", "EXAMPLES",
                           "FILES", "/etc/hsperfguard/policy.json", "setfsuid"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word;
  }
  for (int code = 0; code <= 5; ++code) {
    EXPECT_TRUE(std::regex_search(text, std::regex("\n +" + std::to_string(code) + " {2,}[a-z]"))) << "exit code " << code;
  }
}

// ---- the reap service's capabilities ------------------------------------------------------------

// The unit's CapabilityBoundingSet, as setpriv's --bounding-set wants it: "-all,+setuid,...".
std::vector<std::string> unit_capabilities(const std::string& unit) {
  std::vector<std::string> caps;
  for (const auto& line : lines_of(read_text(unit))) {
    if (!line.starts_with("CapabilityBoundingSet=")) continue;
    std::istringstream words(line.substr(line.find('=') + 1));
    for (std::string w; words >> w;) {
      std::string name = w.substr(w.starts_with("CAP_") ? 4 : 0);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      caps.push_back(name);
    }
  }
  return caps;
}

std::string bounding_set(const std::vector<std::string>& caps, const std::string& without = "") {
  std::string set = "-all";
  for (const auto& c : caps) {
    if (c != without) set += ",+" + c;
  }
  return set;
}

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
// file of that user's whose pid a live process of that user reuses. Without any one of them,
// something it must remove stays: each capability in the set is needed.
TEST(ReapService, CapabilityBoundingSetIsEnoughAndEachCapabilityIsNeeded) {
  if (!test::is_root()) GTEST_SKIP() << "the bounding set only matters to root";
  ASSERT_FALSE(test::find_program("setpriv").empty()) << "setpriv not found: install Debian's package util-linux";
  const auto caps = unit_capabilities(kSource + "/packaging/systemd/hsperfguard-reap.service");
  ASSERT_EQ(caps, (std::vector<std::string>{"setuid", "setgid", "dac_read_search", "kill"}));

  const auto reap_with = [&](const std::string& set, std::string* report) {
    ReapTree tree;
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0700);
    const std::string stale = tree.stale_file(ns);
    NobodySleeper sleeper;
    EXPECT_TRUE(sleeper.start());
    const std::string reused = tree.region_file(ns, std::to_string(sleeper.pid()));
    const auto run = test::run({"setpriv", "--bounding-set=" + set, "--inh-caps=-all", "--ambient-caps=-all",
                                "--no-new-privs", "--", HSPERFGUARD_BINARY, "reap", "--tmpdir", tree.tmp,
                                "--no-lock", "--min-age", "0", "--format", "json"});
    *report = run.out + run.err;
    return std::pair<bool, bool>{!exists(stale), !exists(reused)};
  };
  std::string report;
  const auto all = reap_with(bounding_set(caps), &report);
  EXPECT_TRUE(all.first) << "stale file kept with the unit's capabilities\n" << report;
  EXPECT_TRUE(all.second) << "pid-reused file kept with the unit's capabilities\n" << report;
  for (const auto& cap : caps) {
    const auto less = reap_with(bounding_set(caps, cap), &report);
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
