// Hostfiles: parse_hostfile_text (comments, slots=, blank lines, errors by
// file:line, max_slots refused) and read_hostfile (regular files up to
// 1 MiB, an error naming the file otherwise).
#include <orca/host_list.h>

#include "lib/expect_text.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace orca::launch {
namespace {

using Hosts = std::vector<HostSlots>;
using test::Contains;
using test::FailedWith;
using test::Succeeded;
using test::TempDir;

HostSlots given(std::string name, unsigned slots) { return HostSlots{std::move(name), slots, true}; }
HostSlots defaulted(std::string name) { return HostSlots{std::move(name), 1, false}; }

Hosts parse(std::string_view text) {
  auto r = parse_hostfile_text(text, "/etc/hosts.orca");
  EXPECT_TRUE(Succeeded(r)) << text;
  return r.ok() ? r.value() : Hosts{};
}

// ---------------------------------------------------------------- text

TEST(HostfileText, OneHostPerLine) {
  EXPECT_EQ(parse("a\nb\n"), (Hosts{defaulted("a"), defaulted("b")}));
  EXPECT_EQ(parse("a\nb"), (Hosts{defaulted("a"), defaulted("b")}));  // no final newline
  EXPECT_EQ(parse("a\r\nb\r\n"), (Hosts{defaulted("a"), defaulted("b")}));
}

TEST(HostfileText, CommentsAndBlankLines) {
  EXPECT_EQ(parse("# the cluster\n\n   \n\tnode1   # the first\n#node2\nnode3#x\n"),
            (Hosts{defaulted("node1"), defaulted("node3")}));
}

TEST(HostfileText, Slots) {
  EXPECT_EQ(parse("a slots=4\nb\tslots = 2 \nc slots= 3\n"), (Hosts{given("a", 4), given("b", 2), given("c", 3)}));
}

TEST(HostfileText, HostlistsWithSlots) {
  EXPECT_EQ(parse("node[1-3] slots=8\nlogin,gpu[01-02]\n"),
            (Hosts{given("node1", 8), given("node2", 8), given("node3", 8), defaulted("login"),
                   defaulted("gpu01"), defaulted("gpu02")}));
}

TEST(HostfileText, DuplicatesMergedWithSlotsAdded) {
  EXPECT_EQ(parse("a slots=2\nb\na slots=3\na\n"), (Hosts{given("a", 6), defaulted("b")}));
}

TEST(HostfileText, AUserBeforeTheHostStaysWithItForTheAgent) {
  EXPECT_EQ(parse("carol@n[1-2] slots=2\ndave@gpu1:4\n"),
            (Hosts{given("carol@n1", 2), given("carol@n2", 2), given("dave@gpu1", 4)}));
}

TEST(HostfileText, HydrasHostColonSlotsAndIPv6Addresses) {
  EXPECT_EQ(parse("node1:2\nnode[2-3]:4 # two more\n[fe80::1]:3\n::1 slots=2\n"),
            (Hosts{given("node1", 2), given("node2", 4), given("node3", 4), given("fe80::1", 3), given("::1", 2)}));
}

struct BadLine {
  const char* text;
  size_t line;
  const char* topic;
  const char* why;
};

class MalformedHostfile : public ::testing::TestWithParam<BadLine> {};

TEST_P(MalformedHostfile, NamesFileAndLine) {
  const BadLine& bad = GetParam();
  auto r = parse_hostfile_text(bad.text, "/x");
  ASSERT_TRUE(FailedWith(r, "launch", bad.topic)) << bad.text;
  const Message& m = r.error();
  if (m.topic() == "hostlist-syntax" || m.topic() == "hostlist-too-large") {
    EXPECT_EQ(m.arg("source"), "hostfile /x:" + std::to_string(bad.line));
  } else {
    EXPECT_EQ(m.arg("file"), "/x");
    EXPECT_EQ(m.arg("line"), std::to_string(bad.line));
  }
  EXPECT_TRUE(Contains(m.arg("why"), bad.why)) << m.summary();
}

INSTANTIATE_TEST_SUITE_P(
    Lines, MalformedHostfile,
    ::testing::Values(BadLine{"ok\n# c\n\nnode[1-3 slots=2\n", 4, "hostlist-syntax", "never closed"},
                      BadLine{"a\nnode[3-1]\n", 2, "hostlist-syntax", "reversed"},
                      BadLine{"a\nb c\n", 2, "hostfile-syntax", "one host per line"},
                      BadLine{"a slots\n", 1, "hostfile-syntax", "needs a value"},
                      BadLine{"a slots 4\n", 1, "hostfile-syntax", "needs a value"},
                      BadLine{"a slots=\n", 1, "hostfile-syntax", "has no value"},
                      BadLine{"a slots=0\n", 1, "hostfile-syntax", "from 1 to"},
                      BadLine{"a slots=four\n", 1, "hostfile-syntax", "from 1 to"},
                      BadLine{"a slots=2 slots=3\n", 1, "hostfile-syntax", "twice"},
                      BadLine{"a:2 slots=3\n", 1, "hostfile-syntax", "as host:N and as slots=N"},
                      BadLine{"a\nb:0\n", 2, "hostfile-syntax", "\"b:0\" has invalid slots"},
                      BadLine{"a\n[fe80::1\n", 2, "hostlist-syntax", "never closed"},
                      BadLine{"h:1:2\n", 1, "hostlist-syntax", "brackets"},
                      BadLine{"a cpus=2\n", 1, "hostfile-syntax", "unknown"},
                      BadLine{"a =2\n", 1, "hostfile-syntax", "not a setting"},
                      BadLine{"slots=2\n", 1, "hostfile-syntax", "put the host first"},
                      BadLine{"x\ny\n@z\n", 3, "hostlist-syntax", "no user name"},
                      BadLine{"x\n-o@z\n", 2, "hostlist-syntax", "no user name"},
                      BadLine{"n[1-600000]\nm[1-600000]\n", 2, "hostlist-too-large", ""}));

TEST(HostfileText, SlotsOverTheLimitWhenAddedUp) {
  auto r = parse_hostfile_text("a slots=1048576\na\n", "/x");
  ASSERT_TRUE(FailedWith(r, "launch", "host-bad-slots"));
  EXPECT_EQ(r.error().arg("source"), "hostfile /x");
  EXPECT_EQ(r.error().arg("host"), "a");
  EXPECT_TRUE(Contains(r.error().arg("why"), "more than once"));
}

TEST(HostfileText, MaxSlotsCapsAHostAndAddsUpOverRepeats) {
  auto r = parse_hostfile_text("a slots=2 max_slots=4\nb max-slots = 3\nc:2\nd slots=1 max_slots=1\nd max_slots=2\n"
                               "c max_slots=5\n", "/x");
  ASSERT_TRUE(Succeeded(r));
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ(r.value()[0], (HostSlots{"a", 2, true, 4}));
  EXPECT_EQ(r.value()[1], (HostSlots{"b", 1, false, 3})) << "without slots= a host has 1";
  EXPECT_EQ(r.value()[2], (HostSlots{"c", 3, true, 0})) << "a line without a cap leaves the host uncapped";
  EXPECT_EQ(r.value()[3], (HostSlots{"d", 2, true, 3}));
}

TEST(HostfileText, MaxSlotsBelowSlotsOrMalformedIsAnError) {
  const std::pair<const char*, const char*> bad[] = {
      {"a slots=4 max_slots=2\n", "is below the host's 4 slots"},
      {"a:4 max_slots=2\n", "is below the host's 4 slots"},
      {"a max_slots=0\n", "max_slots must be"},
      {"a max_slots=x\n", "max_slots must be"},
      {"a max-slots\n", "needs a value"},
      {"a max_slots=2 max-slots=3\n", "given twice"},
  };
  for (const auto& [text, why] : bad) {
    auto r = parse_hostfile_text(text, "/x");
    ASSERT_TRUE(FailedWith(r, "launch", "hostfile-syntax")) << text;
    EXPECT_EQ(r.error().arg("line"), "1");
    EXPECT_TRUE(Contains(r.error().arg("why"), why)) << r.error().summary();
  }
}

TEST(HostfileText, NoHostIsAnError) {
  for (const char* text : {"", "\n\n", "# only a comment\n   # another\n"}) {
    auto r = parse_hostfile_text(text, "/x");
    ASSERT_TRUE(FailedWith(r, "launch", "hostfile-empty")) << text;
    EXPECT_EQ(r.error().arg("file"), "/x");
  }
}

TEST(HostfileText, LongLinesAreShortenedInMessages) {
  auto r = parse_hostfile_text("a " + std::string(5000, 'k') + "=1\n", "/x");
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-syntax"));
  EXPECT_LT(r.error().arg("text").size(), 70u);
  EXPECT_LT(r.error().arg("why").size(), 200u);
}

// ---------------------------------------------------------------- files

TEST(ReadHostfile, ReadsARegularFile) {
  TempDir dir;
  const std::string path = dir.write("hosts", "# two nodes\nnode[1-2] slots=4\n");
  auto r = read_hostfile(path);
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), (Hosts{given("node1", 4), given("node2", 4)}));
}

TEST(ReadHostfile, SyntaxErrorNamesThePathAndLine) {
  TempDir dir;
  const std::string path = dir.write("hosts", "node1\nnode2 slots=x\n");
  auto r = read_hostfile(path);
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-syntax"));
  EXPECT_EQ(r.error().arg("file"), path);
  EXPECT_EQ(r.error().arg("line"), "2");
}

TEST(ReadHostfile, MissingFile) {
  TempDir dir;
  const std::string path = (dir.path() / "nope").string();
  auto r = read_hostfile(path);
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-unreadable"));
  EXPECT_EQ(r.error().arg("file"), path);
  EXPECT_TRUE(Contains(r.error().arg("why"), "No such file"));
  EXPECT_TRUE(FailedWith(read_hostfile(""), "launch", "hostfile-unreadable"));
}

TEST(ReadHostfile, ADirectoryIsRefused) {
  TempDir dir;
  auto r = read_hostfile(dir.path().string());
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-unreadable"));
  EXPECT_EQ(r.error().arg("file"), dir.path().string());
  EXPECT_TRUE(Contains(r.error().arg("why"), "a directory"));
}

TEST(ReadHostfile, AFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::string path = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto r = read_hostfile(path);
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-unreadable"));
  EXPECT_TRUE(Contains(r.error().arg("why"), "FIFO"));
}

TEST(ReadHostfile, AFileOverOneMiBIsRefused) {
  TempDir dir;
  std::string text;
  while (text.size() < (std::size_t{2} << 20)) text += "node1 slots=1   # padding padding padding\n";
  const std::string path = dir.write("big", text);
  auto r = read_hostfile(path);
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-unreadable"));
  EXPECT_EQ(r.error().arg("file"), path);
  EXPECT_TRUE(Contains(r.error().arg("why"), "1 MiB"));
}

TEST(ReadHostfile, AFileOfExactlyOneMiBIsRead) {
  TempDir dir;
  std::string text = "node1\n";
  text += std::string(kMaxHostfileSize - text.size() - 1, '#') + "\n";
  ASSERT_EQ(text.size(), kMaxHostfileSize);
  auto r = read_hostfile(dir.write("edge", text));
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value(), Hosts{defaulted("node1")});
}

TEST(ReadHostfile, AnUnreadableFileNamesTheReason) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempDir dir;
  const std::string path = dir.write("secret", "node1\n");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto r = read_hostfile(path);
  ASSERT_TRUE(FailedWith(r, "launch", "hostfile-unreadable"));
  EXPECT_TRUE(Contains(r.error().arg("why"), "Permission denied"));
}

}  // namespace
}  // namespace orca::launch
