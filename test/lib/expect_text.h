// Text assertions for GoogleTest without gmock:
//   EXPECT_TRUE(Contains(text, "needle"));
// On failure the message shows both the text and what was looked for.
#ifndef ORCA_TEST_LIB_EXPECT_TEXT_H
#define ORCA_TEST_LIB_EXPECT_TEXT_H

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace orca::test {

inline ::testing::AssertionResult Contains(std::string_view text, std::string_view needle) {
  if (text.find(needle) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\"\n  does not contain \"" << needle << "\"";
}

inline ::testing::AssertionResult LacksText(std::string_view text, std::string_view needle) {
  if (text.find(needle) == std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\"\n  contains \"" << needle << "\"";
}

}  // namespace orca::test

#endif
