// The systemd service of a process from its cgroup path and from its PrivateTmp= directory's
// name: the names systemd writes, the ones it does not, and hostile ones (a space, a quote,
// no suffix), which come back as their exact bytes.
#include "model/systemd_unit.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace hsperfguard {
namespace {

TEST(SystemdServiceOfCgroup, TheServiceOfASystemSliceCgroup) {
  EXPECT_EQ(systemd_service_of_cgroup("/system.slice/tomcat.service"), "tomcat.service");
  EXPECT_EQ(systemd_service_of_cgroup("/system.slice/tomcat9.service/"), "tomcat9.service");
}

TEST(SystemdServiceOfCgroup, TheInnermostServiceWins) {
  EXPECT_EQ(systemd_service_of_cgroup(
                "/user.slice/user-1000.slice/user@1000.service/app.slice/jetty.service"),
            "jetty.service");
}

TEST(SystemdServiceOfCgroup, NoServiceNoName) {
  EXPECT_EQ(systemd_service_of_cgroup("/"), std::nullopt);
  EXPECT_EQ(systemd_service_of_cgroup(""), std::nullopt);
  EXPECT_EQ(systemd_service_of_cgroup("/system.slice/.service"), std::nullopt);
  EXPECT_EQ(systemd_service_of_cgroup(
                "/kubepods.slice/kubepods-burstable.slice/cri-containerd-0123.scope"),
            std::nullopt);
  EXPECT_EQ(systemd_service_of_cgroup("/process_api/0797327b47c8319a0a27db3203d35a97"),
            std::nullopt);
}

TEST(SystemdServiceOfCgroup, AHostileNameComesBackAsItsBytes) {
  EXPECT_EQ(systemd_service_of_cgroup("/system.slice/it's a\nunit.service"),
            std::string("it's a\nunit.service"));
}

TEST(SystemdUnitOfPrivateDir, TheUnitSystemdNamedTheDirectoryAfter) {
  EXPECT_EQ(systemd_unit_of_private_dir(
                "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service-AbC123"),
            "tomcat.service");
  EXPECT_EQ(systemd_unit_of_private_dir(
                "systemd-private-0123456789abcdef0123456789abcdef-systemd-logind.service-x1Y2z3"),
            "systemd-logind.service");
}

TEST(SystemdUnitOfPrivateDir, OtherNamesAreNotPrivateDirs) {
  EXPECT_EQ(systemd_unit_of_private_dir("hsperfdata_root"), std::nullopt);
  EXPECT_EQ(systemd_unit_of_private_dir("systemd-private-"), std::nullopt);
  // Not 32 lowercase hex digits, no unit, no suffix.
  EXPECT_EQ(systemd_unit_of_private_dir(
                "systemd-private-0123456789ABCDEF0123456789abcdef-tomcat.service-AbC123"),
            std::nullopt);
  EXPECT_EQ(systemd_unit_of_private_dir("systemd-private-0123456789abcdef0123456789abcdef-"),
            std::nullopt);
  // No random suffix after the unit: not a name systemd makes.
  EXPECT_EQ(systemd_unit_of_private_dir(
                "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service"),
            std::nullopt);
  EXPECT_EQ(systemd_unit_of_private_dir(
                "systemd-private-0123456789abcdef0123456789abcdef-tomcat.service-"),
            std::nullopt);
}

}  // namespace
}  // namespace hsperfguard
