// Servers on loopback for the system tests (POSIX): a free port, one HTTP GET, a server started
// on a free port and stopped by its pid, and Debian's prometheus-node-exporter with only its
// textfile collector (the metrics scrape and the node image tests).
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hsperfguard::test {

// A port nobody listens on now (the kernel's choice for an ephemeral bind).
inline int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = -1;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

// One HTTP/1.0 GET over loopback; the body, or nullopt if nothing answered.
inline std::optional<std::string> http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return std::nullopt;
  }
  std::string response;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) response.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  const auto body = response.find("\r\n\r\n");
  if (!response.starts_with("HTTP/1.") || body == std::string::npos) return std::nullopt;
  if (response.find(" 200 ") > body) return std::nullopt;
  return response.substr(body + 4);
}

// A server on 127.0.0.1 started from `args(port)` on a free port, up when `ready` answers 200;
// stopped (SIGTERM, then waited for) by its pid.
class LoopbackServer {
 public:
  LoopbackServer(const std::function<std::vector<std::string>(int)>& args, const std::string& ready,
                 const std::string& log) {
    for (int attempt = 0; attempt < 3 && port_ < 0; ++attempt) {
      const int port = free_loopback_port();
      const std::vector<std::string> argv_strings = args(port);
      const pid_t parent = ::getpid();
      pid_ = ::fork();
      if (pid_ == 0) {
        // Ended with the test's process even when it is killed, before its destructor runs.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(127);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        ::dup2(out, 1);
        ::dup2(out, 2);
        std::vector<char*> argv;
        for (const auto& a : argv_strings) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
      }
      // Up when `ready` answers; give up if it exited (the port was taken meanwhile).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        if (http_get(port, ready)) {
          port_ = port;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (port_ < 0) stop();
    }
  }
  ~LoopbackServer() { stop(); }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int port_ = -1;
};

// prometheus-node-exporter with only the textfile collector.
class NodeExporter : public LoopbackServer {
 public:
  NodeExporter(const std::string& binary, const std::string& textfile_dir, const std::string& log)
      : LoopbackServer(
            [&](int port) {
              return std::vector<std::string>{
                  binary, "--web.listen-address=127.0.0.1:" + std::to_string(port),
                  "--collector.disable-defaults", "--collector.textfile",
                  "--collector.textfile.directory=" + textfile_dir};
            },
            "/", log) {}
};

}  // namespace hsperfguard::test
