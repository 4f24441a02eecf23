// Which file `inspect PID` reads (decide/inspect_target.hpp): what the process says of itself
// decides, never the newest file of anyone's.
#include <gtest/gtest.h>

#include "decide/inspect_target.hpp"

namespace hsperfguard {
namespace {

constexpr std::uint32_t kBob = 1002, kAlice = 1001;

BackingFileCandidate candidate(const std::string& user, std::uint32_t uid, std::uint64_t ino, std::int64_t mtime) {
  BackingFileCandidate c;
  c.path = "/tmp/hsperfdata_" + user + "/4242";
  c.owner_uid = uid;
  c.dev = 0x801;
  c.ino = ino;
  c.mtime_ns = mtime;
  return c;
}

// Alice's planted file is newer (first, as find_backing_files sorts them) than Bob's own.
const std::vector<BackingFileCandidate> kPlantedFirst = {candidate("alice", kAlice, 7, 200),
                                                         candidate("bob", kBob, 9, 100)};

InspectProcess bob_running(bool maps_read) {
  InspectProcess p;
  p.pid = 4242;
  p.existence = ProcessFacts::Existence::alive;
  p.effective_uid = kBob;
  p.maps_read = maps_read;
  return p;
}

TEST(InspectTarget, TheFileTheProcessMapsWinsWhateverIsNewer) {
  InspectProcess p = bob_running(true);
  p.mapped = InspectProcess::Mapped{0x801, 9};
  const InspectTarget t = choose_backing_file(p, kPlantedFirst);
  ASSERT_TRUE(t.candidate);
  EXPECT_EQ(*t.candidate, 1u);
  EXPECT_TRUE(t.notes.empty());
}

TEST(InspectTarget, AMappedFileThatIsNoneOfTheCandidatesIsRefused) {
  InspectProcess p = bob_running(true);
  p.mapped = InspectProcess::Mapped{0x801, 5};  // a container's file, or replaced since
  const InspectTarget t = choose_backing_file(p, kPlantedFirst);
  EXPECT_FALSE(t.candidate);
  EXPECT_NE(t.refusal.find("none of the files named 4242"), std::string::npos) << t.refusal;
  // Same inode number on another device is another file.
  p.mapped = InspectProcess::Mapped{0x802, 9};
  EXPECT_FALSE(choose_backing_file(p, kPlantedFirst).candidate);
}

TEST(InspectTarget, UnreadableMapsFallBackToTheProcesssUserAndNameWhatWasPassedOver) {
  const InspectTarget t = choose_backing_file(bob_running(false), kPlantedFirst);
  ASSERT_TRUE(t.candidate);
  EXPECT_EQ(*t.candidate, 1u);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("passed over /tmp/hsperfdata_alice/4242: owned by uid 1001"), std::string::npos)
      << t.notes[0];
}

TEST(InspectTarget, OnlyAnotherUsersFileIsRefusedNotShown) {
  const InspectTarget t = choose_backing_file(bob_running(false), {candidate("alice", kAlice, 7, 200)});
  EXPECT_FALSE(t.candidate);
  EXPECT_NE(t.refusal.find("no backing file of pid 4242 (uid 1002)"), std::string::npos) << t.refusal;
}

TEST(InspectTarget, AProcessThatMapsNoneGetsItsUsersFileWithANote) {
  const InspectTarget t = choose_backing_file(bob_running(true), kPlantedFirst);
  ASSERT_TRUE(t.candidate);
  EXPECT_EQ(*t.candidate, 1u);
  EXPECT_NE(t.notes.back().find("maps no backing file"), std::string::npos);
}

TEST(InspectTarget, NoProcessOneFileIsStaleSeveralAreAmbiguous) {
  InspectProcess gone;
  gone.pid = 4242;
  gone.existence = ProcessFacts::Existence::gone;
  const InspectTarget one = choose_backing_file(gone, {candidate("bob", kBob, 9, 100)});
  ASSERT_TRUE(one.candidate);
  EXPECT_NE(one.notes.at(0).find("is a stale file"), std::string::npos);
  const InspectTarget two = choose_backing_file(gone, kPlantedFirst);
  EXPECT_FALSE(two.candidate);
  EXPECT_NE(two.refusal.find("2 files are named 4242"), std::string::npos) << two.refusal;
  EXPECT_NE(two.refusal.find("give the path"), std::string::npos);
  EXPECT_FALSE(choose_backing_file(gone, {}).candidate);
}

TEST(InspectTarget, AnUnknownUserIsNeverGuessedAmongSeveral) {
  InspectProcess unknown;
  unknown.pid = 4242;
  unknown.existence = ProcessFacts::Existence::unknown;
  EXPECT_FALSE(choose_backing_file(unknown, kPlantedFirst).candidate);
  const InspectTarget one = choose_backing_file(unknown, {candidate("alice", kAlice, 7, 200)});
  ASSERT_TRUE(one.candidate);
  EXPECT_NE(one.notes.at(0).find("is not known to be its own"), std::string::npos);
}

}  // namespace
}  // namespace hsperfguard
