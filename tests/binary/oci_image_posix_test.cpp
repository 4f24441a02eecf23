// The node image (scripts/image.sh) run as the DaemonSet (packaging/kubernetes/daemonset.yaml)
// runs it, with rootful podman on this machine: the image is built from this build, loaded into
// a podman storage of the test's own (nothing is pulled, nothing is left), and run with the
// security settings, mounts, resources and arguments parsed from the manifest, so that they
// cannot drift from what is tested. A JVM of nobody in a container of its own (mount and pid
// namespaces, its own tmpfs /tmp) must be found by the audit in the image, and Debian's
// node_exporter must export the metrics it writes into the only writable mount. Each
// capability the manifest adds is needed for one assertion: SYS_PTRACE to find the container's
// temp dir at all, DAC_READ_SEARCH to read nobody's 0600 file, KILL to tell a reused pid of
// nobody's (pid-reused, not unknown). The manifest's Localhost seccomp profile is
// packaging/kubernetes/hsperfguard-seccomp.json (what the nodes install as
// profiles/hsperfguard.json): with it, a probe built here (tests/support/seccomp_probe.cpp) run in the
// image with the same settings gets EPERM from ptrace(2), process_vm_readv, process_vm_writev,
// kcmp and unshare against that JVM, where podman's default profile lets ptrace,
// process_vm_readv, process_vm_writev and kcmp through.
//
// Nothing is left behind: podman's storage is the test's, and what the tools make outside it
// whatever their options (RuntimeLeftovers) is removed when the test made it.
//
// podman here needs `--runtime runc` (the machine's runtime) and explicit
// `--ulimit nofile=1024:1024 --ulimit nproc=1024:1024`: podman asks for the runtime's default
// limits (nofile 1048576), above this machine's hard limits, and raising a hard limit takes
// CAP_SYS_RESOURCE, which root lacks in this VM (runc: "error setting rlimits ... operation not
// permitted"). Neither is a setting of the manifest.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <iterator>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jvm_support.hpp"
#include "loopback_posix.hpp"
#include "sandbox_posix.hpp"
#include "test_support.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kSource = HSPERFGUARD_SOURCE_DIR;
const std::string kBuildDir = std::filesystem::path(HSPERFGUARD_BINARY).parent_path().string();
const std::string kManifest = kSource + "/packaging/kubernetes/daemonset.yaml";
// The Localhost profile the manifest names, as the nodes install it (docs/operations.md).
const std::string kSeccompProfile = kSource + "/packaging/kubernetes/hsperfguard-seccomp.json";
const std::string kLocalhostProfile = "profiles/hsperfguard.json";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The manifest as JSON (python3-yaml reads it).
json parse_manifest() {
  const auto r = test::run({"python3", "-c",
                            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
                            kManifest});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

// "256Mi" -> "256m" (podman's MiB); "500m" CPU -> "0.5".
std::string podman_memory(const std::string& quantity) {
  EXPECT_TRUE(quantity.ends_with("Mi")) << "memory quantities in Mi: " << quantity;
  return quantity.substr(0, quantity.size() - 2) + "m";
}
std::string podman_cpus(const std::string& quantity) {
  EXPECT_TRUE(quantity.ends_with("m")) << "CPU quantities in millicores: " << quantity;
  const int milli = std::stoi(quantity.substr(0, quantity.size() - 1));
  char text[32];
  std::snprintf(text, sizeof text, "%d.%03d", milli / 1000, milli % 1000);
  return text;
}

// The container's bit of CAP_* (linux/capability.h) for the names the manifest may use.
std::optional<int> capability_bit(const std::string& name) {
  static const std::vector<std::pair<std::string, int>> kBits = {
      {"CHOWN", 0}, {"DAC_OVERRIDE", 1}, {"DAC_READ_SEARCH", 2}, {"FOWNER", 3}, {"FSETID", 4},
      {"KILL", 5}, {"SETGID", 6}, {"SETUID", 7}, {"SYS_PTRACE", 19}, {"SYS_ADMIN", 21}};
  for (const auto& [n, bit] : kBits) {
    if (n == name) return bit;
  }
  return std::nullopt;
}

// What the pod spec asks for, as podman run options; `textfile_dir` stands for the hostPath
// of the writable mount. The capabilities added, the writable mount's path in the container
// and the arguments come back too.
struct PodRun {
  std::vector<std::string> options;
  std::vector<std::string> capabilities;
  std::string writable_mount;
  std::vector<std::string> args;
  std::string seccomp_option;  // "seccomp=FILE" for a Localhost profile, else empty
};

PodRun pod_run(const json& manifest, const std::string& textfile_dir) {
  PodRun run;
  EXPECT_EQ(manifest.value("kind", ""), "DaemonSet");
  const json& pod = manifest.at("spec").at("template").at("spec");
  EXPECT_EQ(pod.value("hostPID", false), true) << "the audit sees the node's processes";
  EXPECT_EQ(pod.value("hostNetwork", true), false);
  EXPECT_EQ(pod.value("automountServiceAccountToken", true), false);
  run.options = {"--pid", "host", "--network", "none"};
  EXPECT_EQ(pod.at("containers").size(), 1u);
  const json& c = pod.at("containers").at(0);
  const json& sc = c.at("securityContext");
  run.options.insert(run.options.end(), {"--user", std::to_string(sc.at("runAsUser").get<int>()) + ":" +
                                                       std::to_string(sc.at("runAsGroup").get<int>())});
  EXPECT_EQ(sc.value("privileged", true), false);
  EXPECT_EQ(sc.value("allowPrivilegeEscalation", true), false);
  if (!sc.value("allowPrivilegeEscalation", true)) {
    run.options.insert(run.options.end(), {"--security-opt", "no-new-privileges"});
  }
  EXPECT_EQ(sc.value("readOnlyRootFilesystem", false), true);
  if (sc.value("readOnlyRootFilesystem", false)) {
    // Kubernetes mounts nothing writable of its own on /tmp, /run, /var/tmp; podman would.
    run.options.insert(run.options.end(), {"--read-only", "--read-only-tmpfs=false"});
  }
  // A Localhost profile is the file the nodes install; RuntimeDefault is podman's default
  // profile, no option (and never "unconfined"). The manifest names the Localhost one.
  const json& seccomp = sc.at("seccompProfile");
  EXPECT_EQ(seccomp.value("type", ""), "Localhost") << "ptrace(2) refused in the pod: " << seccomp.dump();
  if (seccomp.value("type", "") == "Localhost") {
    EXPECT_EQ(seccomp.value("localhostProfile", ""), kLocalhostProfile);
    run.seccomp_option = "seccomp=" + kSeccompProfile;
    run.options.insert(run.options.end(), {"--security-opt", run.seccomp_option});
  } else {
    EXPECT_EQ(seccomp.value("type", ""), "RuntimeDefault");
  }
  EXPECT_EQ(sc.at("capabilities").at("drop"), json::array({"ALL"}));
  run.options.insert(run.options.end(), {"--cap-drop", "ALL"});
  for (const auto& cap : sc.at("capabilities").at("add")) {
    run.capabilities.push_back(cap.get<std::string>());
    run.options.insert(run.options.end(), {"--cap-add", cap.get<std::string>()});
  }
  const json& resources = c.at("resources");
  run.options.insert(run.options.end(),
                     {"--memory", podman_memory(resources.at("limits").at("memory")), "--cpus",
                      podman_cpus(resources.at("limits").at("cpu")), "--memory-reservation",
                      podman_memory(resources.at("requests").at("memory"))});
  // Mounts: every one a hostPath; exactly one writable.
  int writable = 0;
  for (const auto& m : c.at("volumeMounts")) {
    const json* volume = nullptr;
    for (const auto& v : pod.at("volumes")) {
      if (v.at("name") == m.at("name")) volume = &v;
    }
    EXPECT_NE(volume, nullptr) << m.dump();
    if (volume == nullptr) continue;
    EXPECT_TRUE(volume->contains("hostPath")) << volume->dump();
    const bool read_only = m.value("readOnly", false);
    if (!read_only) {
      ++writable;
      run.writable_mount = m.at("mountPath");
      run.options.insert(run.options.end(), {"-v", textfile_dir + ":" + run.writable_mount + ":rw"});
    } else {
      run.options.insert(run.options.end(),
                         {"-v", volume->at("hostPath").at("path").get<std::string>() + ":" +
                                    m.at("mountPath").get<std::string>() + ":ro"});
    }
  }
  EXPECT_EQ(writable, 1) << "the textfile directory is the only writable mount";
  for (const auto& a : c.at("args")) run.args.push_back(a.get<std::string>());
  return run;
}

// podman with a storage of its own under `dir`, nothing of the machine's.
class Podman {
 public:
  explicit Podman(const std::string& dir)
      : global_{"podman",          "--root",          dir + "/storage", "--runroot",     dir + "/run",
                "--tmpdir",        dir + "/libpod",   "--storage-driver", "vfs",         "--cgroup-manager",
                "cgroupfs",        "--events-backend", "none",     "--runtime-flag", "root=" + dir + "/runc"} {}
  test::CommandResult operator()(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = global_;
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run(argv);
  }
  // The command line operator() runs, for the log.
  std::string command_line(const std::vector<std::string>& args) const {
    std::string line;
    for (const auto* part : {&global_, &args}) {
      for (const auto& word : *part) line += (line.empty() ? "" : " ") + word;
    }
    return line;
  }
  // This machine: runc, and limits it can set (see the top of this file).
  static std::vector<std::string> machine_options() {
    return {"--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"};
  }

 private:
  std::vector<std::string> global_;
};

// A container, removed whatever happens (its processes: PodmanProcesses).
struct ContainerGuard {
  const Podman& podman;
  std::string name;
  ~ContainerGuard() { podman({"rm", "--force", "--time", "0", name}); }
};

pid_t inspect_pid(const Podman& podman, const std::string& name, const std::string& field) {
  const auto r = podman({"inspect", "--format", "{{." + field + "}}", name});
  return r.exit_code == 0 ? static_cast<pid_t>(std::atol(r.out.c_str())) : -1;
}

// The value of a status line ("CapEff:", "NoNewPrivs:", "Seccomp:") of a process.
std::string status_field(pid_t pid, const std::string& field) {
  for (const auto& line : lines_of(read_text("/proc/" + std::to_string(pid) + "/status"))) {
    if (line.starts_with(field + ":")) {
      std::string v = line.substr(field.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

// The sum of the samples of `name` whose labels contain `labels` (empty: all).
double sample_sum(const std::string& exposition, const std::string& name, const std::string& labels = "") {
  double sum = 0;
  for (const auto& line : lines_of(exposition)) {
    if (!line.starts_with(name + "{") && !line.starts_with(name + " ")) continue;
    if (!labels.empty() && line.find(labels) == std::string::npos) continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

// What podman, runc and buildah make outside the storage given to them whatever their options,
// removed when the test made it: runc's state directory /run/runc (podman 4.3 runs the
// container's cleanup through conmon without the runtime's --root), and containers/image's
// cache of blob digests for root, /var/lib/containers/cache.
struct RuntimeLeftovers {
  const bool had_runc = exists("/run/runc");
  const bool had_containers = exists("/var/lib/containers");
  static bool exists(const char* path) {
    struct stat st {};
    return ::lstat(path, &st) == 0;
  }
  ~RuntimeLeftovers() {
    if (!had_runc) ::rmdir("/run/runc");  // only if empty: no container of anyone's is in it
    if (!had_containers) {
      ::unlink("/var/lib/containers/cache/blob-info-cache-v1.boltdb");
      ::rmdir("/var/lib/containers/cache");
      ::rmdir("/var/lib/containers");
    }
  }
};

// The processes podman left running with `dir` (its storage) on their command line: conmon and
// the container's cleanup (`podman container cleanup`, which conmon starts when the container
// exits). Waited for, then killed by pid, so that none outlives the test.
struct PodmanProcesses {
  std::string dir;
  static std::vector<pid_t> running(const std::string& dir) {
    std::vector<pid_t> pids;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmdline = read_text(e.path().string() + "/cmdline");
      if (cmdline.find(dir) != std::string::npos) pids.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return pids;
  }
  ~PodmanProcesses() {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (!running(dir).empty() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const pid_t pid : running(dir)) ::kill(pid, SIGKILL);
  }
};

bool mounted_under(const std::string& dir) {
  for (const auto& line : lines_of(read_text("/proc/self/mountinfo"))) {
    if (line.find(" " + dir) != std::string::npos) return true;
  }
  return false;
}

TEST(OciImage, DaemonSetSettingsAuditAContainerJvmIntoNodeExporter) {
  for (const auto& [program, package] : std::vector<std::pair<std::string, std::string>>{
           {"buildah", "buildah"}, {"podman", "podman"}, {"runc", "runc"}, {"strip", "binutils"}, {"prometheus-node-exporter", "prometheus-node-exporter"},
           {"unshare", "util-linux"}, {"setpriv", "util-linux"}, {"python3", "python3-yaml"}, {"g++", "g++"}}) {
    ASSERT_TRUE(test::have_program(program)) << program << " not found: install Debian's package " << package;
  }
  if (!test::is_root() || !test::have_jdk()) GTEST_SKIP() << "rootful podman and a JVM: needs root and a JDK";
  std::string why;
  const std::string& classes = test::test_classes(&why);
  ASSERT_FALSE(classes.empty()) << why;
  const json manifest = parse_manifest();
  ASSERT_FALSE(manifest.is_discarded());

  const RuntimeLeftovers leftovers;
  test::ScratchDir scratch;
  const std::string textfiles = scratch / "textfile";
  ASSERT_EQ(::mkdir(textfiles.c_str(), 0755), 0);
  const PodRun pod = pod_run(manifest, textfiles);
  ASSERT_FALSE(::testing::Test::HasFailure());

  // The image, from this build.
  const std::string archive = scratch / "hsperfguard.tar";
  const auto began = Clock::now();
  // A link planted at the output path is replaced, never written through; credentials in the
  // source URL never reach the public label (both found by an outside review).
  const std::string decoy = scratch / "decoy";
  std::ofstream(decoy) << "decoy";
  ASSERT_EQ(::symlink(decoy.c_str(), archive.c_str()), 0);
  const auto built = test::run({"env", "HSPERFGUARD_IMAGE_SOURCE=https://ci-bot:ghp_FAKETOKEN@github.example/o/hsperfguard.git",
                                "bash", kSource + "/scripts/image.sh", kBuildDir, archive});
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  struct stat archive_stat {};
  ASSERT_EQ(::lstat(archive.c_str(), &archive_stat), 0);
  EXPECT_TRUE(S_ISREG(archive_stat.st_mode)) << "the planted link is replaced by the archive";
  std::ifstream decoy_in(decoy);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(decoy_in), {}), "decoy");
  std::printf("image: %s", built.out.c_str());
  const std::string tag = std::string("hsperfguard:") + kVersion;
  // The archive as OCI lays it out: index, manifest, config, one layer.
  const std::string layout = scratch / "layout";
  ASSERT_EQ(::mkdir(layout.c_str(), 0700), 0);
  const auto untar = test::run({"tar", "-xf", archive, "-C", layout});
  ASSERT_EQ(untar.exit_code, 0) << untar.err;
  const auto blob = [&](const json& descriptor) {
    const std::string digest = descriptor.at("digest");
    EXPECT_TRUE(digest.starts_with("sha256:")) << digest;
    return layout + "/blobs/sha256/" + digest.substr(7);
  };
  const json index = json::parse(read_text(layout + "/index.json"), nullptr, false);
  ASSERT_FALSE(index.is_discarded());
  ASSERT_EQ(index.at("manifests").size(), 1u) << index.dump();
  EXPECT_EQ(index["manifests"][0].at("annotations").at("org.opencontainers.image.ref.name"), tag);
  const json manifest_blob = json::parse(read_text(blob(index["manifests"][0])), nullptr, false);
  ASSERT_FALSE(manifest_blob.is_discarded());
  const json image = json::parse(read_text(blob(manifest_blob.at("config"))), nullptr, false);
  ASSERT_FALSE(image.is_discarded());
  const json& labels = image.at("config").at("Labels");
  EXPECT_EQ(labels.at("org.opencontainers.image.version"), kVersion);
  EXPECT_EQ(labels.at("org.opencontainers.image.licenses"), "Apache-2.0");
  EXPECT_EQ(labels.at("org.opencontainers.image.source"), "https://github.example/o/hsperfguard.git");
  EXPECT_FALSE(labels.at("org.opencontainers.image.description").get<std::string>().empty());
  EXPECT_EQ(image.at("config").at("Entrypoint"), json::array({"/usr/bin/hsperfguard"}));
  EXPECT_EQ(image.at("config").at("User"), "0:0");
  // FROM scratch: the binary, its libraries and loader, the license texts, /tmp; no shell, no
  // passwd, no name service.
  ASSERT_EQ(manifest_blob.at("layers").size(), 1u) << manifest_blob.dump();
  const auto listing = test::run({"tar", "-tzf", blob(manifest_blob["layers"][0])});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  std::set<std::string> files;
  for (const auto& line : lines_of(listing.out)) {
    if (!line.ends_with("/")) files.insert(line.starts_with("./") ? line.substr(2) : line);
  }
  std::set<std::string> want = {"usr/bin/hsperfguard", "lib64/ld-linux-x86-64.so.2",
                                "usr/share/doc/hsperfguard/LICENSE", "usr/share/doc/hsperfguard/copyright"};
  const auto ldd = test::run({"ldd", HSPERFGUARD_BINARY});
  for (const auto& line : lines_of(ldd.out)) {
    const auto arrow = line.find(" => /");
    if (arrow != std::string::npos) want.insert(line.substr(arrow + 5, line.find(' ', arrow + 4) - arrow - 5));
  }
  EXPECT_EQ(files, want) << listing.out;

  const std::string podman_dir = scratch / "podman";
  const Podman podman(podman_dir);
  const PodmanProcesses podman_processes{podman_dir};
  const auto loaded = podman({"load", "--quiet", "--input", archive});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out << loaded.err;
  EXPECT_NE(loaded.out.find(tag), std::string::npos) << loaded.out;

  // A JVM of nobody in a container of its own: its /tmp is a tmpfs the host does not see.
  test::Sandbox box;
  // A process of nobody older than the JVM names a copy of the JVM's file: a stale file whose
  // pid was reused (as after a container restart).
  ASSERT_TRUE(box.start("cd '" + classes + "' && mount -t tmpfs -o mode=1777 tmpfs /tmp && mkdir /tmp/.c && "
                        "cp *.class /tmp/.c/ && { setpriv --reuid=65534 --regid=65534 --clear-groups sleep 100000 & } && "
                        "sleep 0.2 && exec setpriv --reuid=65534 --regid=65534 --clear-groups "
                        "java -Xmx32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 "
                        "-cp /tmp/.c IdleJvm node-image"));
  ASSERT_TRUE(box.wait_for("ready")) << box.log();
  const std::string backing = box.root() + "/tmp/hsperfdata_nobody/1";
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  struct stat st {};
  while (::stat(backing.c_str(), &st) != 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(::stat(backing.c_str(), &st), 0) << backing << "\n" << box.log();
  std::string sleeper;  // the ns pid of nobody's sleep, the JVM's child since its shell's exec
  for (const pid_t child : test::children_of(box.init())) {
    if (!read_text("/proc/" + std::to_string(child) + "/comm").starts_with("sleep")) continue;
    for (const auto& line : lines_of(read_text("/proc/" + std::to_string(child) + "/status"))) {
      if (line.starts_with("NSpid:")) sleeper = line.substr(line.find_last_of(" \t") + 1);
    }
  }
  ASSERT_FALSE(sleeper.empty()) << box.log();
  const std::string reused = box.root() + "/tmp/hsperfdata_nobody/" + sleeper;
  const auto copied = test::run({"cp", "-p", backing, reused});
  ASSERT_EQ(copied.exit_code, 0) << copied.err;

  std::vector<std::string> run_options = {"run"};
  run_options.insert(run_options.end(), pod.options.begin(), pod.options.end());
  const auto machine = Podman::machine_options();
  run_options.insert(run_options.end(), machine.begin(), machine.end());

  // One audit with the DaemonSet's settings: the container's JVM, its file read and live.
  {
    std::vector<std::string> once = run_options;
    // The DaemonSet's choice of temp dirs: every other mount namespace's, not the pod's own.
    EXPECT_NE(std::find(pod.args.begin(), pod.args.end(), "--containers-only"), pod.args.end());
    // Named and removed here (its guard removes it too when an assertion ends the test).
    const std::string once_name = "hsperfguard-once-" + std::to_string(::getpid());
    ContainerGuard once_guard{podman, once_name};
    once.insert(once.end(), {"--name", once_name, tag, "audit", "--containers-only", "--format", "json", "--fail-on", "critical"});
    std::printf("%s\n", podman.command_line(once).c_str());
    const auto r = podman(once);
    const auto once_removed = podman({"rm", once_name});
    EXPECT_EQ(once_removed.exit_code, 0) << once_removed.err;
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err << r.out.substr(0, 2000);
    const json report = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << r.out.substr(0, 2000) << r.err;
    EXPECT_TRUE(test::schema_valid(r.out, "schemas/report.schema.json"));
    std::optional<std::size_t> root_index;
    for (std::size_t i = 0; i < report.at("roots").size(); ++i) {
      const json& root = report["roots"][i];
      if (root.value("kind", "") == "container" && root.contains("container") &&
          root["container"].value("mount_namespace", "") == box.mount_namespace()) {
        root_index = i;
      }
    }
    ASSERT_TRUE(root_index) << "the container's temp dir was not found:\n" << r.out.substr(0, 3000);
    for (const json& root : report.at("roots")) {
      EXPECT_EQ(root.value("kind", ""), "container") << "the pod's own /tmp is not audited: " << root.dump();
    }
    const json* file = nullptr;
    const json* reused_file = nullptr;
    const json* ns_found = nullptr;
    for (const json& ns : report.at("namespaces")) {
      if (ns.at("root") != *root_index || ns.value("name", "") != "hsperfdata_nobody") continue;
      ns_found = &ns;
      for (const json& f : ns.at("files")) {
        if (f.value("name", "") == "1") file = &f;
        if (f.value("name", "") == sleeper) reused_file = &f;
      }
    }
    ASSERT_NE(file, nullptr) << r.out.substr(0, 4000);
    ASSERT_NE(reused_file, nullptr) << r.out.substr(0, 4000);
    // kill(2, 0) on nobody's process (CAP_KILL), then its maps (CAP_SYS_PTRACE): another process.
    EXPECT_EQ(reused_file->at("verdict").at("verdict"), "pid-reused") << reused_file->dump(1);
    EXPECT_EQ(ns_found->value("user", ""), "nobody") << "the container's etc/passwd, read beneath its root";
    EXPECT_EQ(file->at("verdict").at("verdict"), "live") << file->dump(1);
    ASSERT_TRUE(file->at("region").is_object()) << "another user's 0600 file, read: " << file->dump(1);
    EXPECT_TRUE(file->at("region").at("valid").get<bool>()) << file->dump(1);
    for (const json& f : file->value("findings", json::array())) {
      EXPECT_NE(f.value("rule", ""), "file.observation-error") << f.dump();
    }
    std::printf("audit in the image, the container's JVM: root %s (mount namespace %s), %s/%s: verdict %s (%s), "
                "user %s, region valid, %d entries\n",
                report["roots"][*root_index].value("root", "").c_str(), box.mount_namespace().c_str(),
                ns_found->value("path", "").c_str(), file->value("name", "").c_str(),
                file->at("verdict").value("verdict", "").c_str(), file->at("verdict").value("reason", "").c_str(),
                ns_found->value("user", "").c_str(), file->at("region").value("entries", 0));
    std::printf("  %s/%s: verdict %s (%s)\n", ns_found->value("path", "").c_str(), sleeper.c_str(),
                reused_file->at("verdict").value("verdict", "").c_str(),
                reused_file->at("verdict").value("reason", "").c_str());
  }

  // What the pod can do to another container's process: the probe (tests/support/seccomp_probe.cpp),
  // built static, in a container of the image with the DaemonSet's settings and the JVM's host
  // pid; then the same with podman's default profile in place of the Localhost one (what the
  // manifest's RuntimeDefault gave the pod before). The probe's ptrace(PTRACE_SEIZE) neither
  // stops nor changes the JVM and ends with the probe; it reads 8 bytes and writes none.
  {
    const std::string probe = scratch / "seccomp_probe";
    const auto compiled =
        test::run({"g++", "-std=c++20", "-O1", "-static", "-o", probe, kSource + "/tests/support/seccomp_probe.cpp"});
    ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
    const pid_t jvm = box.java_pid();
    ASSERT_GT(jvm, 0) << box.log();
    std::printf("the JVM of the other container: host pid %d\n", static_cast<int>(jvm));
    const auto probe_in_pod = [&](bool localhost_profile) {
      std::vector<std::string> argv = {"run"};
      for (std::size_t i = 0; i < pod.options.size(); ++i) {
        if (!localhost_profile && pod.options[i] == "--security-opt" && i + 1 < pod.options.size() &&
            pod.options[i + 1] == pod.seccomp_option) {
          ++i;
          continue;
        }
        argv.push_back(pod.options[i]);
      }
      const std::string name = std::string("hsperfguard-probe-") + (localhost_profile ? "localhost-" : "default-") +
                               std::to_string(::getpid());
      ContainerGuard probe_guard{podman, name};
      argv.insert(argv.end(), machine.begin(), machine.end());
      argv.insert(argv.end(), {"--name", name, "-v", probe + ":/seccomp_probe:ro", "--entrypoint", "/seccomp_probe",
                               tag, std::to_string(jvm)});
      std::printf("%s\n", podman.command_line(argv).c_str());
      const auto r = podman(argv);
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_EQ(podman({"rm", name}).exit_code, 0);
      std::map<std::string, std::string> answers;
      for (const auto& line : lines_of(r.out)) {
        std::printf("  %s\n", line.c_str());
        const auto space = line.find(' ');
        if (space != std::string::npos) answers[line.substr(0, space)] = line.substr(space + 1);
      }
      return answers;
    };
    const auto refused = probe_in_pod(true);
    for (const char* call : {"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "unshare"}) {
      EXPECT_EQ(refused.count(call) ? refused.at(call) : "", "errno=EPERM (1)") << call;
    }
    EXPECT_EQ(refused.count("clone3") ? refused.at("clone3") : "", "errno=ENOSYS (38)");
    // Without the profile the same calls reach the JVM (Yama's ptrace_scope 3 would refuse
    // them to anyone: then there is nothing to compare).
    const auto allowed = probe_in_pod(false);
    if (read_text("/proc/sys/kernel/yama/ptrace_scope").starts_with("3")) {
      std::printf("Yama ptrace_scope 3: nothing to compare\n");
    } else {
      for (const char* call : {"ptrace", "process_vm_readv", "process_vm_writev", "kcmp"}) {
        EXPECT_EQ(allowed.count(call) ? allowed.at(call) : "", "ok") << call << ": the probe proves nothing";
      }
    }
  }

  // The DaemonSet's own arguments, but every 2 s instead of 15 min, into node_exporter's
  // textfile collector.
  std::vector<std::string> args = pod.args;
  bool every = false;
  std::string metrics_path;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--every") {
      args[i + 1] = "2s";
      every = true;
    }
    if (args[i] == "--metrics") metrics_path = args[i + 1];
  }
  ASSERT_TRUE(every) << "the DaemonSet audits on a schedule: --every";
  ASSERT_TRUE(metrics_path.starts_with(pod.writable_mount + "/")) << metrics_path;
  const std::string metrics_file = textfiles + metrics_path.substr(pod.writable_mount.size());
  const std::string exporter = test::find_program("prometheus-node-exporter");
  test::NodeExporter node(exporter, textfiles, scratch / "node-exporter.log");
  ASSERT_GT(node.port(), 0) << read_text(scratch / "node-exporter.log");

  const std::string name = "hsperfguard-test-" + std::to_string(::getpid());
  ContainerGuard guard{podman, name};
  std::vector<std::string> daemon = run_options;
  // The guards' destructors do not run when the test is killed (a timeout, a stopped run of
  // the mutants): conmon then kills the container after 10 minutes, so that no audit every
  // 2 s outlives the test for long (one that did read other tests' files, and so changed
  // their access times and the ages systemd-tmpfiles judges by).
  daemon.insert(daemon.end(), {"--timeout", "600", "--detach", "--name", name, tag});
  daemon.insert(daemon.end(), args.begin(), args.end());
  const auto started = podman(daemon);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const pid_t pid = inspect_pid(podman, name, "State.Pid");
  ASSERT_GT(pid, 0);

  // The settings took: these capabilities only, no new privileges, a seccomp filter, the root
  // file system read-only and one writable mount besides the runtime's own files.
  std::uint64_t want_caps = 0;
  for (const auto& cap : pod.capabilities) {
    const auto bit = capability_bit(cap);
    ASSERT_TRUE(bit) << cap;
    want_caps |= std::uint64_t{1} << *bit;
  }
  EXPECT_EQ(std::stoull(status_field(pid, "CapEff"), nullptr, 16), want_caps);
  EXPECT_EQ(std::stoull(status_field(pid, "CapBnd"), nullptr, 16), want_caps);
  EXPECT_EQ(status_field(pid, "NoNewPrivs"), "1");
  EXPECT_EQ(status_field(pid, "Seccomp"), "2");
  EXPECT_EQ(status_field(pid, "Uid").substr(0, 1), "0");
  std::set<std::string> writable;
  for (const auto& line : lines_of(read_text("/proc/" + std::to_string(pid) + "/mountinfo"))) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point, options;
    fields >> id >> parent >> dev >> root >> point >> options;
    if (point == "/") {
      EXPECT_TRUE(options.starts_with("ro")) << line;
    }
    if (!options.starts_with("rw")) continue;
    if (point.starts_with("/proc") || point.starts_with("/sys") || point.starts_with("/dev")) continue;
    writable.insert(point);
  }
  // podman's /etc/hosts, /etc/hostname, /etc/resolv.conf and /run/.containerenv, as the
  // kubelet's own /etc/hosts and resolv.conf: files of the runtime, not of the image.
  for (const char* runtime : {"/etc/hosts", "/etc/hostname", "/etc/resolv.conf", "/run/.containerenv"}) {
    writable.erase(runtime);
  }
  EXPECT_EQ(writable, std::set<std::string>{pod.writable_mount});

  // Two runs at least: the schedule works in a scratch image.
  std::string written;
  const auto runs_deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < runs_deadline) {
    written = read_text(metrics_file);
    if (sample_sum(written, "hsperfguard_audit_runs_total") >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_GE(sample_sum(written, "hsperfguard_audit_runs_total"), 2) << written << podman({"logs", name}).err;

  const auto scraped = test::http_get(node.port(), "/metrics");
  ASSERT_TRUE(scraped);
  EXPECT_EQ(sample_sum(*scraped, "node_textfile_scrape_error"), 0) << *scraped;
  EXPECT_GE(sample_sum(*scraped, "hsperfguard_audit_runs_total"), 2);
  EXPECT_GE(sample_sum(*scraped, "hsperfguard_audit_files", "verdict=\"live\""), 1) << *scraped;
  EXPECT_GE(sample_sum(*scraped, "hsperfguard_audit_temp_dirs_observed", "kind=\"container\",state=\"complete\""), 1)
      << *scraped;
  EXPECT_EQ(sample_sum(*scraped, "hsperfguard_audit_temp_dirs_observed", "kind=\"host\""), 0) << *scraped;
  EXPECT_NE(scraped->find("hsperfguard_build_info{build="), std::string::npos) << *scraped;
  EXPECT_NE(scraped->find(std::string("version=\"") + kVersion + "\""), std::string::npos);
  std::printf("scraped from node_exporter:\n");
  for (const auto& line : lines_of(*scraped)) {
    if ((line.starts_with("hsperfguard_audit_") && !line.ends_with(" 0")) ||
        line.starts_with("node_textfile_scrape_error")) {
      std::printf("  %s\n", line.c_str());
    }
  }

  // SIGTERM (podman stop, as the kubelet stops a pod) ends the loop between two runs: exit 0.
  const auto stop_began = Clock::now();
  const auto stopped = podman({"stop", "--time", "10", name});
  const auto stop_took = Clock::now() - stop_began;
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_LT(stop_took, std::chrono::seconds(5)) << "SIGTERM, not the kill after 10 s";
  EXPECT_EQ(inspect_pid(podman, name, "State.ExitCode"), 0) << podman({"logs", name}).err;
  std::printf("podman stop: %lld ms; the whole test: %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(stop_took).count()),
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()));
  const auto removed = podman({"rm", name});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  const auto images = podman({"rmi", "--all", "--force"});
  // conmon and the containers' cleanup end on their own once the containers are gone.
  const auto quiet = Clock::now() + std::chrono::seconds(10);
  while (!PodmanProcesses::running(podman_dir).empty() && Clock::now() < quiet) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(PodmanProcesses::running(podman_dir).empty()) << "conmon or a container's cleanup still runs";
  EXPECT_EQ(images.exit_code, 0) << images.err;
  EXPECT_FALSE(mounted_under(podman_dir)) << "podman left a mount in its storage";
}

}  // namespace
}  // namespace hsperfguard
