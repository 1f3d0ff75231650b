// Settings a launcher forwards to its daemons: the winners per name, and a
// text form that round-trips any value.
#include <orca/mca_var.h>

#include "mca/var/mca_forward.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <random>

namespace orca::mca {
namespace {

using test::FailedWith;
using test::Succeeded;

Source from(SourceKind kind, std::string file = "", int line = 0, int order = 0) {
  Source s;
  s.kind = kind;
  s.file = std::move(file);
  s.line = line;
  s.order = order;
  return s;
}

void expect_same(const std::vector<Setting>& a, const std::vector<Setting>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << i;
    EXPECT_EQ(a[i].text, b[i].text) << i;
    EXPECT_EQ(a[i].source.kind, b[i].source.kind) << i;
    EXPECT_EQ(a[i].source.file, b[i].source.file) << i;
    EXPECT_EQ(a[i].source.line, b[i].source.line) << i;
    EXPECT_EQ(a[i].source.order, b[i].source.order) << i;
  }
}

TEST(ForwardedSettings, AwkwardValuesRoundTrip) {
  const std::vector<Setting> in = {
      {"oob_tcp_if_include", "eth0, eth1", from(SourceKind::CommandLine)},
      {"plm_rsh_agent", "ssh -o \"ProxyCommand=nc %h %p\" -x", from(SourceKind::Environment)},
      {"x_y_z", "line one\nline two\r\n\ttabbed", from(SourceKind::ParamFile, "/etc/orca mca.conf", 7, 1)},
      {"empty_value", "", from(SourceKind::TuneFile, "job.conf", 2)},
      {"percent", "%%41 100% %", from(SourceKind::OverrideFile, "/etc/o.conf", 1)},
      {"utf8", "caf\xc3\xa9 \x01\x7f", from(SourceKind::Environment)},
  };
  const std::string text = encode_settings(in);
  auto out = decode_settings(text);
  ASSERT_TRUE(Succeeded(out));
  expect_same(in, out.value());
  // One line per setting: nothing inside a field breaks a line.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(in.size() + 1));
}

TEST(ForwardedSettings, RandomValuesRoundTrip) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Setting> in;
    for (int i = 0; i < 5; ++i) {
      std::string v(rng() % 40, '\0');
      for (auto& c : v) c = static_cast<char>(rng() % 256);
      in.push_back({"v" + std::to_string(i), v, from(SourceKind::CommandLine, v, static_cast<int>(rng() % 100))});
    }
    auto out = decode_settings(encode_settings(in));
    ASSERT_TRUE(Succeeded(out)) << "round " << round;
    expect_same(in, out.value());
  }
}

TEST(ForwardedSettings, MalformedTextIsAnErrorNamingTheLine) {
  const char* bad[] = {
      "",                                                         // no header
      "orca-settings 2\n",                                        // another version
      "orca-settings 1\na command-line 0 0 % x",                  // no final newline
      "orca-settings 1\na command-line 0 0 %\n",                  // 5 fields
      "orca-settings 1\na command-line 0 0 % x y\n",              // 7 fields
      "orca-settings 1\na telepathy 0 0 % x\n",                   // unknown kind
      "orca-settings 1\na command-line zero 0 % x\n",             // bad number
      "orca-settings 1\na command-line 0 0 % %4\n",               // short escape
      "orca-settings 1\na command-line 0 0 % %GG\n",              // bad escape
      "orca-settings 1\n% command-line 0 0 % x\n",                // empty name
      "orca-settings 1\na command-line 0 0 % x\tb\n",             // raw control byte
  };
  for (const char* text : bad) {
    auto r = decode_settings(text);
    EXPECT_TRUE(FailedWith(r, "mca-var", "bad-forwarded-settings")) << "accepted: " << text;
  }
  auto r = decode_settings("orca-settings 1\na command-line 0 0 % x\nb env 0 0 % y\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().arg("line"), "3");
}

TEST(ForwardedSettings, TheWinnersResolveAlikeInAnotherRegistry) {
  // The launcher's registry: a file, the environment and the command line
  // all set one variable; a deprecated synonym sets another; a setting for
  // a component the launcher never loads is forwarded too.
  auto declare = [](Registry& r) {
    VarSpec a;
    a.framework = "oob";
    a.component = "tcp";
    a.name = "retries";
    a.type = VarType::Int;
    a.default_text = "3";
    ASSERT_TRUE(r.declare(a).ok());
    VarSpec b;
    b.framework = "plm";
    b.component = "rsh";
    b.name = "agent";
    b.type = VarType::String;
    b.default_text = "ssh";
    b.synonyms = {"plm_rsh_old_agent"};
    ASSERT_TRUE(r.declare(b).ok());
  };
  Registry launcher;
  declare(launcher);
  ASSERT_TRUE(launcher.add_setting({"oob_tcp_retries", "5", from(SourceKind::ParamFile, "/etc/a.conf", 3, 0)}).ok());
  ASSERT_TRUE(launcher.add_setting({"oob_tcp_retries", "9", from(SourceKind::CommandLine)}).ok());
  ASSERT_TRUE(launcher.add_setting({"oob_tcp_retries", "7", from(SourceKind::Environment)}).ok());
  ASSERT_TRUE(launcher.add_setting({"plm_rsh_old_agent", "rsh -x", from(SourceKind::Environment)}).ok());
  ASSERT_TRUE(launcher.add_setting({"pmi_simple_verbose", "1", from(SourceKind::CommandLine)}).ok());

  const auto forwarded = forwardable_settings(launcher);
  ASSERT_EQ(forwarded.size(), 3u);  // one per name
  EXPECT_EQ(forwarded[0].text, "9");
  EXPECT_EQ(forwarded[0].source.kind, SourceKind::CommandLine);

  auto decoded = decode_settings(encode_settings(forwarded));
  ASSERT_TRUE(Succeeded(decoded));
  Registry daemon;
  for (const auto& s : decoded.value()) ASSERT_TRUE(daemon.add_setting(s).ok());
  declare(daemon);
  for (const char* name : {"oob_tcp_retries", "plm_rsh_agent"}) {
    const Variable* l = launcher.find(name);
    const Variable* d = daemon.find(name);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->text(), l->text()) << name;
    EXPECT_EQ(d->source().describe(), l->source().describe()) << name;
  }
  EXPECT_EQ(daemon.find("oob_tcp_retries")->as_int(), 9);
  EXPECT_EQ(daemon.find("plm_rsh_agent")->as_string(), "rsh -x");
  // Not declared on either side yet, still carried for whoever declares it.
  EXPECT_EQ(daemon.settings().back().name, "pmi_simple_verbose");
}

}  // namespace
}  // namespace orca::mca
