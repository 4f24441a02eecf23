// The reaper in a container's /tmp acts only as the host uids the container's user namespace
// maps. Any user can make a user and mount namespace and bind a directory of this host she
// can reach over its /tmp (a chroot's tmp, a mounted image's, a backup): a root reap found it
// as a container's temp dir and removed the files of root's and daemon's namespaces there,
// acting as 0:0 and 1:1, though no process in that container can be either.
//
// Runs as root in a private mount namespace with its own /tmp, /run and /dev and a pid
// namespace of its own (hostile_support.hpp), so the scan sees only this case's container.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

TEST(ReapContainers, AUsersNamespaceBindingAHostDirectoryOverItsTmpGetsNothingRemoved) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(hostile::in_own_pid_namespace(R"SH(
V=/run/victim
mkdir -m 0755 $V $V/hsperfdata_root $V/hsperfdata_daemon $V/hsperfdata_nobody
chmod 0755 /run
chown daemon:daemon $V/hsperfdata_daemon; chown nobody:nogroup $V/hsperfdata_nobody
sleep 0 & wait $!; P=$!
for d in root daemon nobody; do : > $V/hsperfdata_$d/$P; : > $V/hsperfdata_$d/cfg; done
chown daemon:daemon $V/hsperfdata_daemon/*; chown nobody:nogroup $V/hsperfdata_nobody/*
chmod 0600 $V/hsperfdata_*/*; touch -d '2 hours ago' $V/hsperfdata_*/*
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sh -c \
  'mount --bind /run/victim /tmp || exit 1; exec sleep 300' & C=$!; PIDS="$PIDS $C"
i=0
while [ $i -lt 300 ]; do
  [ -e /proc/$C/root/tmp/hsperfdata_root ] && grep -q 65534 /proc/$C/uid_map 2>/dev/null && break
  sleep 0.1; i=$((i+1))
done
echo uid_map="$(tr -s ' ' < /proc/$C/uid_map | tr '\n' ';')"
$H reap --no-lock --min-age 0 --format json > /tmp/reap.json; echo reap_rc=$?
echo left="$(cd $V && ls hsperfdata_root hsperfdata_daemon hsperfdata_nobody | tr '\n' ' ')"
python3 - $C <<'PY'
import json, sys
r = json.load(open("/tmp/reap.json"))
pid = sys.argv[1]
for ns in r["reap"]["namespaces"]:
    if ns["path"].startswith("/proc/" + pid + "/"):
        print("why_%s=%s" % (ns["path"].rsplit("/", 1)[1], ns["why"]))
PY
)SH"));
  const std::string& out = o.result.out;
  EXPECT_EQ(o.at("reap_rc"), "0") << out << o.result.err;
  // Before: every file of root's and daemon's namespaces gone (acting as 0:0 and 1:1).
  EXPECT_NE(o.at("left").find("hsperfdata_root:"), std::string::npos) << out;
  EXPECT_EQ(o.at("why_hsperfdata_root"), "owner-outside-container") << out;
  EXPECT_EQ(o.at("why_hsperfdata_daemon"), "owner-outside-container") << out;
  // Her own namespace is hers: the reaper acts there as her, as the container's root.
  EXPECT_EQ(o.at("why_hsperfdata_nobody"), "ok") << out;
  const std::string left = o.at("left");
  std::size_t files = 0;
  for (std::size_t at = left.find("cfg"); at != std::string::npos; at = left.find("cfg", at + 1)) ++files;
  EXPECT_EQ(files, 2u) << "root's and daemon's foreign files stay: " << left;
}

}  // namespace
}  // namespace hsperfguard
