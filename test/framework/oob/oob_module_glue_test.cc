// OobModuleGlue::report: how a module's Status crosses the C ABI. The host
// retries only a DECLINED send (back-pressure) and tries the next module
// only for a DECLINED peer, so the kind decides the code, never the topic.
#include <orca/oob_module_glue.h>

#include <gtest/gtest.h>

#include <string>

namespace orca::oob {
namespace {

struct AnyModule {};  // report() uses none of a module's members
using Glue = OobModuleGlue<AnyModule>;

orca_mca_rc report(const Status& st, std::string& text) {
  orca_mca_reason why{};
  const orca_mca_rc rc = Glue::report(st, &why);
  text = why.text;
  return rc;
}

TEST(OobModuleGlue, BackPressureAndANotMinePeerAreDeclined) {
  std::string text;
  EXPECT_EQ(report(Message("oob", "send-queue-full", {{"why", "full"}}, ErrorKind::Busy), text), ORCA_MCA_DECLINED);
  EXPECT_EQ(text, "full");
  EXPECT_EQ(report(Message("oob", "declined", {{"why", "another host"}}, ErrorKind::Declined), text),
            ORCA_MCA_DECLINED);
  EXPECT_EQ(text, "another host");
}

TEST(OobModuleGlue, AnyOtherErrorFailsWhateverItsTopic) {
  std::string text;
  // The topic names of the kinds above, without the kind: plain failures.
  EXPECT_EQ(report(Message("oob", "declined", {{"why", "x"}}), text), ORCA_MCA_FAILED);
  EXPECT_EQ(report(Message("oob", "send-queue-full"), text), ORCA_MCA_FAILED);
  EXPECT_EQ(text, "oob/send-queue-full");  // no "why": the summary stands in
  EXPECT_EQ(report(Message("mca-var", "bad-value", {}, ErrorKind::BadValue), text), ORCA_MCA_FAILED);
}

TEST(OobModuleGlue, SuccessIsOk) {
  std::string text;
  EXPECT_EQ(report(Status(), text), ORCA_MCA_OK);
  EXPECT_EQ(text, "");
}

}  // namespace
}  // namespace orca::oob
