// GoogleTest assertions for orca::Result: on failure they print the
// Message summary, so a failing test says what the library reported.
#ifndef ORCA_TEST_LIB_RESULT_ASSERTIONS_H
#define ORCA_TEST_LIB_RESULT_ASSERTIONS_H

#include <orca/message.h>
#include <orca/result.h>

#include <gtest/gtest.h>

#include <string_view>

namespace orca::test {

/* EXPECT_TRUE(Succeeded(r)): r holds a value; otherwise shows the error. */
template <typename R>
::testing::AssertionResult Succeeded(const R& result) {
  if (result.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "failed with " << result.error().summary();
}

/* EXPECT_TRUE(FailedWith(r, "mca-var", "bad-value")): r is an error of that
 * area and topic. */
template <typename R>
::testing::AssertionResult FailedWith(const R& result, std::string_view area, std::string_view topic) {
  if (result.ok()) {
    return ::testing::AssertionFailure() << "succeeded, expected the error " << area << "/" << topic;
  }
  const Message& m = result.error();
  if (m.area() != area || m.topic() != topic) {
    return ::testing::AssertionFailure() << "failed with " << m.summary() << ", expected " << area << "/"
                                         << topic;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace orca::test

#endif
