#include "model/expected_inode.hpp"

namespace hsperfguard {

ExpectedInode expected_from(const InodeFacts& inode) {
  ExpectedInode e;
  e.dev = inode.dev;
  e.ino = inode.ino;
  e.kind = inode.kind;
  e.uid = inode.uid;
  e.gid = inode.gid;
  e.mode = inode.mode;
  e.nlink = inode.nlink;
  return e;
}

}  // namespace hsperfguard
