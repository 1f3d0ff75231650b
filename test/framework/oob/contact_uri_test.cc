// The oob base's text forms: ContactUri::parse, ProcessName text, and the
// job secret from the environment (ORCA_JOB_SECRET / ORCA_JOB_SECRET_FD).
#include "oob/oob_host.h"
#include <orca/process_name.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace orca::oob {
namespace {

using orca::test::FailedWith;
using orca::test::Succeeded;

// --- ContactUri --------------------------------------------------------------

std::string uri_rejected(const std::string& text) {
  auto r = ContactUri::parse(text);
  EXPECT_TRUE(FailedWith(r, "oob", "bad-uri")) << "'" << text << "'";
  return r.ok() ? std::string() : r.error().arg("why");
}

TEST(ContactUri, HostAndTwoParts) {
  auto r = ContactUri::parse("7.3;host=boot-1234/net:4026531992;tcp=10.0.0.1/24/physical/5000;usock=/tmp/x");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().name, (ProcessName{7, 3}));
  EXPECT_EQ(r.value().host_identity, "boot-1234/net:4026531992");
  ASSERT_EQ(r.value().parts.size(), 2u);
  EXPECT_EQ(r.value().parts.at("tcp"), "10.0.0.1/24/physical/5000");
  EXPECT_EQ(r.value().parts.at("usock"), "/tmp/x");
}

TEST(ContactUri, OnlyTheFirstEqualsSplits) {
  auto r = ContactUri::parse("0.0;host=h=1;x=a=b");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().host_identity, "h=1");
  EXPECT_EQ(r.value().parts.at("x"), "a=b");
}

TEST(ContactUri, HostWithoutParts) {
  auto r = ContactUri::parse("4294967295.4294967295;host=h");
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().name, (ProcessName{4294967295u, 4294967295u}));
  EXPECT_TRUE(r.value().parts.empty());
}

TEST(ContactUri, MissingHost) {
  EXPECT_EQ(uri_rejected("1.2;tcp=10.0.0.1/24/physical/5000"), "there is no host=<identity>");
  EXPECT_EQ(uri_rejected("1.2"), "there is no host=<identity>");
  EXPECT_EQ(uri_rejected("1.2;host="), "there is no host=<identity>");
}

TEST(ContactUri, BadName) {
  const std::string why = "it does not start with a process name <job>.<vpid>";
  EXPECT_EQ(uri_rejected("x.2;host=h"), why);
  EXPECT_EQ(uri_rejected("host=h;1.2"), why);
  EXPECT_EQ(uri_rejected("12;host=h"), why);
  EXPECT_EQ(uri_rejected("1.2.3;host=h"), why);
  EXPECT_EQ(uri_rejected(";host=h"), why);
}

TEST(ContactUri, DuplicateComponent) {
  EXPECT_EQ(uri_rejected("1.2;host=h;tcp=a;usock=b;tcp=c"), "a component appears twice");
}

TEST(ContactUri, ItemWithoutEquals) {
  EXPECT_EQ(uri_rejected("1.2;host=h;tcp"), "\"tcp\" is not <component>=<part>");
  EXPECT_EQ(uri_rejected("1.2;host=h;=x"), "\"=x\" is not <component>=<part>");
  EXPECT_EQ(uri_rejected("1.2;host=h;"), "\"\" is not <component>=<part>");
  EXPECT_EQ(uri_rejected("1.2;;host=h"), "\"\" is not <component>=<part>");
}

TEST(ContactUri, EmptyString) {
  auto r = ContactUri::parse("");
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("why"), "it does not start with a process name <job>.<vpid>");
  EXPECT_EQ(r.error().arg("uri"), "");
}

TEST(ContactUri, TheMessageCarriesTheStartOfTheUri) {
  const std::string long_uri = "1.2;host=h;tcp" + std::string(500, 'z');
  auto r = ContactUri::parse(long_uri);
  ASSERT_TRUE(FailedWith(r, "oob", "bad-uri"));
  EXPECT_EQ(r.error().arg("uri"), long_uri.substr(0, 200));
}

// --- ProcessName -------------------------------------------------------------

TEST(ProcessNameText, RoundTrip) {
  for (const ProcessName n : {ProcessName{0, 0}, ProcessName{1, 2}, ProcessName{4294967295u, 0},
                              ProcessName{0, 4294967295u}, ProcessName{4294967295u, 4294967295u}}) {
    const std::string text = n.to_string();
    auto back = ProcessName::parse(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, n) << text;
  }
  EXPECT_EQ((ProcessName{4294967295u, 4294967295u}).to_string(), "4294967295.4294967295");
  EXPECT_EQ((ProcessName{0, 0}).to_string(), "0.0");
}

TEST(ProcessNameText, Overflow) {
  EXPECT_FALSE(ProcessName::parse("4294967296.0").has_value());
  EXPECT_FALSE(ProcessName::parse("0.4294967296").has_value());
  EXPECT_FALSE(ProcessName::parse("99999999999999999999.1").has_value());
}

TEST(ProcessNameText, Signs) {
  EXPECT_FALSE(ProcessName::parse("-1.0").has_value());
  EXPECT_FALSE(ProcessName::parse("1.-0").has_value());
  EXPECT_FALSE(ProcessName::parse("+1.0").has_value());
  EXPECT_FALSE(ProcessName::parse("1.+2").has_value());
}

TEST(ProcessNameText, Spaces) {
  EXPECT_FALSE(ProcessName::parse(" 1.2").has_value());
  EXPECT_FALSE(ProcessName::parse("1.2 ").has_value());
  EXPECT_FALSE(ProcessName::parse("1 .2").has_value());
  EXPECT_FALSE(ProcessName::parse("1. 2").has_value());
}

TEST(ProcessNameText, MissingPieces) {
  EXPECT_FALSE(ProcessName::parse("").has_value());
  EXPECT_FALSE(ProcessName::parse("12").has_value());
  EXPECT_FALSE(ProcessName::parse(".").has_value());
  EXPECT_FALSE(ProcessName::parse(".2").has_value());
  EXPECT_FALSE(ProcessName::parse("1.").has_value());
  EXPECT_FALSE(ProcessName::parse("1.2.3").has_value());
  EXPECT_FALSE(ProcessName::parse("0x1.2").has_value());
}

TEST(ProcessNameText, LeadingZerosAreDecimal) {
  auto n = ProcessName::parse("010.002");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, (ProcessName{10, 2}));
}

TEST(ProcessNameText, CRoundTrip) {
  const ProcessName n{123, 456};
  const orca_process_name c = n.to_c();
  EXPECT_EQ(c.job, 123u);
  EXPECT_EQ(c.vpid, 456u);
  EXPECT_EQ(ProcessName::from_c(c), n);
}

// --- job secret --------------------------------------------------------------

// Saves and restores both secret variables around each test and starts it
// with neither set.
class JobSecret : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < 2; ++i) {
      if (const char* v = std::getenv(kNames[i])) saved_[i] = std::string(v);
      ::unsetenv(kNames[i]);
    }
  }
  void TearDown() override {
    for (size_t i = 0; i < 2; ++i) {
      if (saved_[i]) {
        ::setenv(kNames[i], saved_[i]->c_str(), 1);
      } else {
        ::unsetenv(kNames[i]);
      }
    }
    for (int fd : fds_) ::close(fd);
  }

  // A pipe holding `text`, write end closed; returns the read end.
  int pipe_with(const std::string& text) {
    int p[2];
    EXPECT_EQ(::pipe(p), 0) << std::strerror(errno);
    EXPECT_EQ(::write(p[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(p[1]);
    fds_.push_back(p[0]);
    return p[0];
  }

  static constexpr const char* kNames[2] = {"ORCA_JOB_SECRET", "ORCA_JOB_SECRET_FD"};
  std::optional<std::string> saved_[2];
  std::vector<int> fds_;
};

// 16 bytes: the shortest secret accepted.
const std::string kHex16 = "00112233445566778899aabbccddeeff";
const std::vector<std::uint8_t> kBytes16 = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                            0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

std::string secret_error(const Result<std::vector<std::uint8_t>>& r, const std::string& where) {
  EXPECT_TRUE(FailedWith(r, "oob", "bad-secret"));
  if (r.ok()) return "";
  EXPECT_EQ(r.error().arg("where"), where);
  return r.error().arg("why");
}

TEST_F(JobSecret, NeitherSet) { EXPECT_TRUE(FailedWith(job_secret_from_environment(), "oob", "no-secret")); }

TEST_F(JobSecret, ValidHex) {
  ::setenv("ORCA_JOB_SECRET", kHex16.c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), kBytes16);
}

TEST_F(JobSecret, UppercaseHex) {
  ::setenv("ORCA_JOB_SECRET", "00112233445566778899AABBCCDDEEFF", 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), kBytes16);
}

TEST_F(JobSecret, TrailingNewlineIsIgnored) {
  ::setenv("ORCA_JOB_SECRET", (kHex16 + "\r\n").c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), kBytes16);
}

TEST_F(JobSecret, OddLength) {
  ::setenv("ORCA_JOB_SECRET", (kHex16 + "a").c_str(), 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "an odd number of hex digits");
}

TEST_F(JobSecret, NotHex) {
  std::string text = kHex16;
  text[7] = 'g';
  ::setenv("ORCA_JOB_SECRET", text.c_str(), 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "not hexadecimal");
  ::setenv("ORCA_JOB_SECRET", ("0x" + kHex16).c_str(), 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "not hexadecimal");
  ::setenv("ORCA_JOB_SECRET", ("  " + kHex16 + " ").c_str(), 1);  // leading spaces are not trimmed
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "not hexadecimal");
}

TEST_F(JobSecret, TooShort) {
  ::setenv("ORCA_JOB_SECRET", kHex16.substr(2).c_str(), 1);  // 15 bytes
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "shorter than 16 bytes");
  ::setenv("ORCA_JOB_SECRET", "", 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET"), "shorter than 16 bytes");
}

TEST_F(JobSecret, TheVariableWinsOverTheFd) {
  const int fd = pipe_with("ff" + kHex16.substr(2));
  ::setenv("ORCA_JOB_SECRET_FD", std::to_string(fd).c_str(), 1);
  ::setenv("ORCA_JOB_SECRET", kHex16.c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), kBytes16);
}

TEST_F(JobSecret, FromAPipe) {
  const std::string hex = new_job_secret_hex();
  const int fd = pipe_with(hex + "\n");
  ::setenv("ORCA_JOB_SECRET_FD", std::to_string(fd).c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(r.value().size(), 32u);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string back;
  for (std::uint8_t b : r.value()) {
    back += kDigits[b >> 4];
    back += kDigits[b & 15];
  }
  EXPECT_EQ(back, hex);
}

TEST_F(JobSecret, BadSecretInThePipeNamesTheFd) {
  const int fd = pipe_with("abc");
  const std::string fd_text = std::to_string(fd);
  ::setenv("ORCA_JOB_SECRET_FD", fd_text.c_str(), 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET_FD=" + fd_text),
            "an odd number of hex digits");
}

TEST_F(JobSecret, EmptyPipe) {
  const int fd = pipe_with("");
  const std::string fd_text = std::to_string(fd);
  ::setenv("ORCA_JOB_SECRET_FD", fd_text.c_str(), 1);
  EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET_FD=" + fd_text),
            "shorter than 16 bytes");
}

TEST_F(JobSecret, InvalidFdText) {
  for (const char* text : {"", "abc", "3x", "-1", "0x3"}) {
    SCOPED_TRACE(std::string("'") + text + "'");
    ::setenv("ORCA_JOB_SECRET_FD", text, 1);
    EXPECT_EQ(secret_error(job_secret_from_environment(), "ORCA_JOB_SECRET_FD"), "not a file descriptor number");
  }
}

// A number beyond the range of int must not be cut down to some other
// descriptor: 2^32 + fd would otherwise read `fd`.
TEST_F(JobSecret, FdNumberBeyondIntIsRejected) {
  const int fd = pipe_with(kHex16);
  const std::string text = std::to_string(4294967296LL + fd);
  ::setenv("ORCA_JOB_SECRET_FD", text.c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_FALSE(r.ok()) << "ORCA_JOB_SECRET_FD=" << text << " read the secret from fd " << fd;
  EXPECT_TRUE(FailedWith(r, "oob", "bad-secret"));
  EXPECT_EQ(r.error().arg("where"), "ORCA_JOB_SECRET_FD");
  EXPECT_EQ(r.error().arg("why"), "not a file descriptor number");
}

TEST_F(JobSecret, ClosedFd) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);
  ::close(p[1]);
  const std::string fd_text = std::to_string(p[0]);
  ::setenv("ORCA_JOB_SECRET_FD", fd_text.c_str(), 1);
  auto r = job_secret_from_environment();
  ASSERT_TRUE(FailedWith(r, "oob", "bad-secret"));
  EXPECT_EQ(r.error().arg("where"), "ORCA_JOB_SECRET_FD");
  EXPECT_EQ(r.error().arg("why"), std::strerror(EBADF));
}

// The fixture itself: it hides the caller's variables and puts them back.
TEST(JobSecretFixture, RestoresTheEnvironment) {
  struct Probe : JobSecret {
    void TestBody() override {}
    void set_up() { SetUp(); }
    void tear_down() { TearDown(); }
  };
  const char* before_secret = std::getenv("ORCA_JOB_SECRET");
  const char* before_fd = std::getenv("ORCA_JOB_SECRET_FD");
  const std::optional<std::string> saved_secret = before_secret ? std::optional<std::string>(before_secret) : std::nullopt;
  const std::optional<std::string> saved_fd = before_fd ? std::optional<std::string>(before_fd) : std::nullopt;

  ::setenv("ORCA_JOB_SECRET", "sentinel", 1);
  ::unsetenv("ORCA_JOB_SECRET_FD");
  {
    Probe p;
    p.set_up();
    EXPECT_EQ(std::getenv("ORCA_JOB_SECRET"), nullptr);
    EXPECT_EQ(std::getenv("ORCA_JOB_SECRET_FD"), nullptr);
    ::setenv("ORCA_JOB_SECRET", "changed", 1);
    ::setenv("ORCA_JOB_SECRET_FD", "9", 1);
    p.tear_down();
  }
  ASSERT_NE(std::getenv("ORCA_JOB_SECRET"), nullptr);
  EXPECT_STREQ(std::getenv("ORCA_JOB_SECRET"), "sentinel");
  EXPECT_EQ(std::getenv("ORCA_JOB_SECRET_FD"), nullptr);

  if (saved_secret) ::setenv("ORCA_JOB_SECRET", saved_secret->c_str(), 1); else ::unsetenv("ORCA_JOB_SECRET");
  if (saved_fd) ::setenv("ORCA_JOB_SECRET_FD", saved_fd->c_str(), 1); else ::unsetenv("ORCA_JOB_SECRET_FD");
}

TEST(NewJobSecret, SixtyFourLowercaseHexDigits) {
  const std::string a = new_job_secret_hex();
  ASSERT_EQ(a.size(), 64u);
  for (char c : a) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << a;
}

TEST(NewJobSecret, HexOfASecretParsesBackToIt) {
  const std::vector<std::uint8_t> secret = {0x00, 0x0f, 0xa5, 0xff, 0x10, 0x01, 0x7e, 0x80,
                                            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
  const std::string hex = job_secret_hex(secret);
  EXPECT_EQ(hex, "000fa5ff10017e80123456789abcdef0");
  auto back = parse_job_secret(hex, "test");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), secret);
}

TEST(NewJobSecret, DiffersBetweenCalls) {
  const std::string a = new_job_secret_hex(), b = new_job_secret_hex(), c = new_job_secret_hex();
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
}

}  // namespace
}  // namespace orca::oob
