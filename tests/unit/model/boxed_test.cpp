#include "model/boxed.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard {
namespace {

TEST(Boxed, EmptyUntilGivenAValueAndEmptyAgainOnNullopt) {
  Boxed<std::string> b;
  EXPECT_FALSE(b);
  EXPECT_FALSE(b.has_value());
  EXPECT_THROW((void)b.value(), std::bad_optional_access);
  b = std::string("region");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "region");
  EXPECT_EQ(b->size(), 6u);
  b = std::nullopt;
  EXPECT_FALSE(b);
  b.emplace(3, 'x');
  EXPECT_EQ(b.value(), "xxx");
  b.reset();
  EXPECT_FALSE(b.has_value());
}

TEST(Boxed, TakesAndGivesBackOptionals) {
  const std::optional<int> none;
  const std::optional<int> seven = 7;
  Boxed<int> b = seven;
  EXPECT_EQ(*b, 7);
  b = none;
  EXPECT_FALSE(b);
  b = seven;
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, *seven);
}

// FileFacts are copied (tests, the whole-root observation): a copy must own its own value.
TEST(Boxed, CopiesAreDeepAndMovesLeaveTheSourceEmpty) {
  FileFacts a;
  InodeFacts inode;
  inode.ino = 42;
  a.opened = inode;
  FileFacts copy = a;
  ASSERT_TRUE(copy.opened);
  EXPECT_NE(&*copy.opened, &*a.opened);
  copy.opened->ino = 43;
  EXPECT_EQ(a.opened->ino, 42u);

  FileFacts assigned;
  assigned = a;
  assigned.opened->ino = 44;
  EXPECT_EQ(a.opened->ino, 42u);

  FileFacts moved = std::move(a);
  EXPECT_EQ(moved.opened->ino, 42u);
  EXPECT_FALSE(a.opened);  // NOLINT(bugprone-use-after-move): the moved-from state is empty

  std::vector<FileFacts> files(3);
  files[1].opened = inode;
  files.reserve(100);  // relocation keeps the value
  EXPECT_EQ(files[1].opened->ino, 42u);
  EXPECT_FALSE(files[0].opened);
}

}  // namespace
}  // namespace hsperfguard
