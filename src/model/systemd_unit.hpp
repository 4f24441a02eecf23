// The systemd service a process runs in, from the names systemd gives it: its cgroup path
// ("/system.slice/tomcat.service") and, under PrivateTmp=, the directory systemd makes for the
// service's /tmp ("/tmp/systemd-private-<boot id>-tomcat.service-<random>/tmp"). Parsers of
// hostile text (a cgroup or a directory name can be made by anyone who can make one): they
// never read past their input, and the name they return is raw bytes, to be quoted as a shell
// word wherever it is printed in a command.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hsperfguard {

// The prefix of the directories systemd makes for PrivateTmp= in the host's /tmp.
inline constexpr std::string_view kSystemdPrivatePrefix = "systemd-private-";

// The innermost "*.service" component of a cgroup path: "/system.slice/tomcat.service" ->
// "tomcat.service", "/user.slice/user-1000.slice/user@1000.service/app.slice/a.service" ->
// "a.service". nullopt when no component is a service (a scope, a pod's cgroup, "/").
std::optional<std::string> systemd_service_of_cgroup(std::string_view cgroup);

// The unit of a PrivateTmp= directory name: "systemd-private-<32 hex>-<unit>-<suffix>" ->
// "<unit>". nullopt when the name is not of that form.
std::optional<std::string> systemd_unit_of_private_dir(std::string_view name);

}  // namespace hsperfguard
