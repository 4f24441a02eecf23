// The Win32 helpers: lossless name conversion, paths, times, attributes.
#include "platform/windows/win_util.hpp"

#include <gtest/gtest.h>

#include <string>

#include "platform/windows/volume_windows.hpp"

namespace hsperfguard::platform::win {
namespace {

TEST(WideNames, AsciiAndUnicodeRoundTrip) {
  EXPECT_EQ(narrow(L"hsperfdata_alice"), "hsperfdata_alice");
  EXPECT_EQ(widen("hsperfdata_alice"), L"hsperfdata_alice");
  const std::wstring names[] = {L"", L"J\u00fcrgen", L"\u7528\u6237", L"emoji \U0001F600", L"C:\\Temp\\x"};
  for (const auto& name : names) EXPECT_EQ(widen(narrow(name)), name);
  EXPECT_EQ(narrow(L"J\u00fcrgen"), "J\xc3\xbcrgen");
  EXPECT_EQ(narrow(L"\U0001F600"), "\xf0\x9f\x98\x80");
}

TEST(WideNames, UnpairedSurrogatesSurviveTheRoundTrip) {
  // NTFS accepts any 16-bit units in a name; two such names must not collapse into one.
  const std::wstring high = std::wstring(L"a") + wchar_t(0xD800) + L"b";
  const std::wstring low = std::wstring(L"a") + wchar_t(0xDC00) + L"b";
  const std::wstring reversed = std::wstring(1, wchar_t(0xDC00)) + wchar_t(0xD800);
  EXPECT_EQ(widen(narrow(high)), high);
  EXPECT_EQ(widen(narrow(low)), low);
  EXPECT_EQ(widen(narrow(reversed)), reversed);
  EXPECT_NE(narrow(high), narrow(low));
  EXPECT_EQ(narrow(high), "a\xed\xa0\x80" "b");
}

TEST(WideNames, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(widen("a\xff" "b"), L"a\uFFFDb");
  EXPECT_EQ(widen("\xc0\xaf"), L"\uFFFD\uFFFD");      // overlong '/'
  EXPECT_EQ(widen("\xe2\x82"), L"\uFFFD\uFFFD");      // truncated
  EXPECT_EQ(widen("\xf4\x90\x80\x80"), L"\uFFFD\uFFFD\uFFFD\uFFFD");  // beyond U+10FFFF
}

TEST(Paths, JoinAddsOneSeparator) {
  EXPECT_EQ(join(L"C:\\Temp", L"x"), L"C:\\Temp\\x");
  EXPECT_EQ(join(L"C:\\", L"x"), L"C:\\x");
  EXPECT_EQ(join(L"", L"x"), L"x");
}

TEST(Paths, DriveLetters) {
  EXPECT_TRUE(has_drive_letter(L"C:\\Users\\x\\AppData\\Local\\Temp"));
  EXPECT_TRUE(has_drive_letter(L"z:/tmp"));
  EXPECT_TRUE(has_drive_letter(L"\\\\?\\C:\\Temp"));
  EXPECT_FALSE(has_drive_letter(L"\\\\server\\share\\Temp"));
  EXPECT_FALSE(has_drive_letter(L"//server/share/Temp"));
  EXPECT_FALSE(has_drive_letter(L"\\\\?\\UNC\\server\\share"));
  EXPECT_FALSE(has_drive_letter(L"\\\\.\\PhysicalDrive0"));
  EXPECT_FALSE(has_drive_letter(L"relative\\path"));
  EXPECT_FALSE(has_drive_letter(L"1:\\x"));
}

TEST(Times, FileTimeToUnixEpoch) {
  FILETIME epoch{};
  const std::uint64_t ticks = 116444736000000000ull + 15;  // 1.5 microseconds after 1970
  epoch.dwLowDateTime = static_cast<DWORD>(ticks & 0xFFFFFFFF);
  epoch.dwHighDateTime = static_cast<DWORD>(ticks >> 32);
  const Timestamp t = to_timestamp(epoch);
  EXPECT_EQ(t.sec, 0);
  EXPECT_EQ(t.nsec, 1500);
  FILETIME before{};  // 1601: negative seconds, nanoseconds still in [0, 1e9)
  const Timestamp b = to_timestamp(before);
  EXPECT_LT(b.sec, 0);
  EXPECT_GE(b.nsec, 0);
}

TEST(Attributes, ReparsePointsAreLinksWhateverElseTheyAre) {
  EXPECT_EQ(kind_from_attributes(FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT), FileKind::symlink);
  EXPECT_EQ(kind_from_attributes(FILE_ATTRIBUTE_DIRECTORY), FileKind::directory);
  EXPECT_EQ(kind_from_attributes(FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_COMPRESSED), FileKind::regular);
  EXPECT_EQ(kind_from_attributes(FILE_ATTRIBUTE_NORMAL), FileKind::regular);
}

TEST(Errors, MessagesComeFromTheSystem) {
  const auto error = make_error("C:\\x", "CreateFileW", ERROR_ACCESS_DENIED);
  EXPECT_EQ(error.code, 5);
  EXPECT_EQ(error.op, "CreateFileW");
  EXPECT_FALSE(error.message.empty());
  EXPECT_NE(error.message.back(), '\n');
}

TEST(Handles, CloseExactlyOnce) {
  HANDLE event = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
  ASSERT_NE(event, nullptr);
  {
    UniqueHandle owner(event);
    UniqueHandle moved(std::move(owner));
    EXPECT_FALSE(owner.valid());
    EXPECT_TRUE(moved.valid());
  }
  DWORD flags = 0;
  EXPECT_FALSE(::GetHandleInformation(event, &flags));  // closed by `moved`
}

}  // namespace
}  // namespace hsperfguard::platform::win
