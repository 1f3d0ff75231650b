// A DVM's contact file (framework/launch/dvm_contact.cc): where it lives,
// its text read strictly, the file its user's alone (a copy others may
// read, a link or another user's is refused), and finding the one DVM of
// the user that runs, against real files in a temporary directory.
#include "launch/dvm_contact.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace orca::launch {
namespace {

using test::Contains;
using test::FailedWith;
using test::Succeeded;

const std::string kSecret(64, 'a');

DvmContact contact(pid_t pid = 4242) {
  return {.pid = pid, .uri = "tcp://10.0.0.1:5000;usock://@orca/1.0", .secret_hex = kSecret, .hosts = 8};
}

TEST(DvmContactDirectory, RuntimeDirectoryThenHome) {
  std::map<std::string, const char*> env{{"XDG_RUNTIME_DIR", "/run/user/1000"}, {"HOME", "/home/a"}};
  auto lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second;
  };
  EXPECT_EQ(dvm_contact_directory(lookup), "/run/user/1000/orca");
  env["XDG_RUNTIME_DIR"] = "relative";
  EXPECT_EQ(dvm_contact_directory(lookup), "/home/a/.orca") << "a relative runtime directory is no place for a secret";
  env.erase("XDG_RUNTIME_DIR");
  EXPECT_EQ(dvm_contact_directory(lookup), "/home/a/.orca");
  env.clear();
  EXPECT_EQ(dvm_contact_directory(lookup), "");
}

TEST(DvmContactText, RoundTripsInAnyLineOrder) {
  auto back = parse_dvm_contact(encode_dvm_contact(contact()), "f");
  ASSERT_TRUE(Succeeded(back));
  EXPECT_EQ(back.value(), contact());
  auto shuffled = parse_dvm_contact("hosts 2\nsecret " + kSecret + "\nuri u\npid 7\norca-dvm 1", "f");
  ASSERT_TRUE(Succeeded(shuffled));
  EXPECT_EQ(shuffled->pid, 7);
  EXPECT_EQ(shuffled->hosts, 2u);
}

TEST(DvmContactText, EveryMalformedFileSaysWhy) {
  const std::string good = encode_dvm_contact(contact());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::pair<std::string, std::string> bad[] = {
      {replaced("orca-dvm 1", "orca-dvm 2"), "is not 1"},
      {replaced("pid 4242", "pid 0"), "is not a process id"},
      {replaced("pid 4242", "pid 99999999999"), "is not a process id"},
      {replaced("hosts 8", "hosts -1"), "is not a count above 0"},
      {replaced("uri tcp", "uri a b tcp"), "holds blanks or control bytes"},
      {replaced("uri tcp", "uri \x1b[31mtcp"), "holds blanks or control bytes"},
      {replaced(kSecret, "xyz"), "its secret is unusable: not hexadecimal"},
      {replaced(kSecret, "abcd"), "its secret is unusable: shorter than 16 bytes"},
      {good + "pid 5\n", "\"pid\" is given twice"},
      {good + "user root\n", "the key \"user\" is unknown"},
      {good + "nospace\n", "is not \"key value\""},
      {replaced("hosts 8\n", ""), "\"hosts\" is missing"},
  };
  for (const auto& [text, why] : bad) {
    auto r = parse_dvm_contact(text, "/x/dvm.1");
    ASSERT_TRUE(FailedWith(r, "launch", "dvm-contact-malformed")) << text;
    EXPECT_EQ(r.error().arg("file"), "/x/dvm.1");
    EXPECT_TRUE(Contains(r.error().arg("why"), why)) << r.error().arg("why");
  }
}

TEST(DvmContactFile, WrittenForItsUserAloneAndReadBack) {
  test::TempDir dir;
  const std::string where = (dir.path() / "run" / "orca").string();
  auto path = write_dvm_contact(where, contact());
  ASSERT_TRUE(Succeeded(path));
  EXPECT_EQ(path.value(), where + "/dvm.4242");
  struct stat st {};
  ASSERT_EQ(::stat(path->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  auto back = read_dvm_contact(path.value());
  ASSERT_TRUE(Succeeded(back));
  EXPECT_EQ(back.value(), contact());
}

TEST(DvmContactFile, ACopyOthersMayReadALinkOrAnotherUsersIsRefused) {
  test::TempDir dir;
  auto path = write_dvm_contact(dir.path().string(), contact());
  ASSERT_TRUE(Succeeded(path));
  ::chmod(path->c_str(), 0644);
  auto readable = read_dvm_contact(path.value());
  ASSERT_TRUE(FailedWith(readable, "launch", "dvm-contact-unreadable"));
  EXPECT_TRUE(Contains(readable.error().arg("why"), "others may read it (mode 0644"));
  ::chmod(path->c_str(), 0600);
  const std::string link = (dir.path() / "dvm.1").string();
  std::filesystem::create_symlink(path.value(), link);
  auto linked = read_dvm_contact(link);
  ASSERT_TRUE(FailedWith(linked, "launch", "dvm-contact-unreadable"));
  EXPECT_TRUE(Contains(linked.error().arg("why"), "symbolic link"));
  EXPECT_TRUE(FailedWith(read_dvm_contact((dir.path() / "dvm.2").string()), "launch", "dvm-contact-unreadable"));
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(path->c_str(), 65534, 65534), 0);
    auto foreign = read_dvm_contact(path.value());
    ASSERT_TRUE(FailedWith(foreign, "launch", "dvm-contact-unreadable"));
    EXPECT_TRUE(Contains(foreign.error().arg("why"), "another user"));
  }
}

// A detached DVM's log is its contact file's name with ".log": never
// taken for a contact file of its own.
TEST(DvmLogPath, TheContactFilesNameWithLog) { EXPECT_EQ(dvm_log_path("/run/user/1/orca/dvm.42"), "/run/user/1/orca/dvm.42.log"); }

TEST(FindRunningDvm, TheOneWhoseProcessRunsOthersAndStaleFilesPassedOver) {
  test::TempDir dir;
  const std::string d = dir.path().string();
  for (pid_t pid : {100, 200}) ASSERT_TRUE(Succeeded(write_dvm_contact(d, contact(pid))));
  dir.write("dvm.x", "");
  dir.write("dvm.300.77.tmp", "");
  dir.write(std::filesystem::path(dvm_log_path(d + "/dvm.200")).filename().string(), "");  // a detached DVM's log
  dir.write(std::filesystem::path(dvm_log_path(d + "/dvm.400")).filename().string(), "");  // one left by a DVM that ended
  dir.write("notes", "");
  std::set<pid_t> alive{100, 400};  // 400: a log's pid, no contact file
  auto is_alive = [&](pid_t p) { return alive.count(p) != 0; };
  auto one = find_running_dvm(d, is_alive);
  ASSERT_TRUE(Succeeded(one));
  EXPECT_EQ(one.value(), d + "/dvm.100");

  alive = {100, 200, 400};
  auto several = find_running_dvm(d, is_alive);
  ASSERT_TRUE(FailedWith(several, "launch", "dvm-several-running"));
  EXPECT_EQ(several.error().arg("files"), "\n  " + d + "/dvm.100\n  " + d + "/dvm.200");

  alive.clear();
  auto none = find_running_dvm(d, is_alive);
  ASSERT_TRUE(FailedWith(none, "launch", "dvm-none-running"));
  EXPECT_EQ(none.error().arg("directory"), d);
  EXPECT_TRUE(FailedWith(find_running_dvm(d + "/missing", is_alive), "launch", "dvm-none-running"));
}

// --dvm-uri FILE|URI: a file is itself ("file:PATH" too); a contact URI
// is the running DVM's of the directory that has it (its file gives the
// secret), never a stale one's; an unknown URI says where it looked.
TEST(ResolveDvmName, AFileIsItselfAUriIsFoundAmongTheRunningDvms) {
  test::TempDir dir;
  const std::string d = dir.path().string();
  auto with_uri = [](pid_t pid) {
    DvmContact c = contact(pid);
    c.uri = std::to_string(pid) + ".0;host=boot:ns;usock=@orca/" + std::to_string(pid) + ".0/" + std::to_string(pid) + "/ab";
    return c;
  };
  for (pid_t pid : {100, 200, 300}) ASSERT_TRUE(Succeeded(write_dvm_contact(d, with_uri(pid))));
  std::set<pid_t> alive{100, 200};
  auto is_alive = [&](pid_t p) { return alive.count(p) != 0; };

  auto by_uri = resolve_dvm_name(with_uri(200).uri, d, is_alive);
  ASSERT_TRUE(Succeeded(by_uri));
  EXPECT_EQ(by_uri.value(), d + "/dvm.200");
  auto stale = resolve_dvm_name(with_uri(300).uri, d, is_alive);
  ASSERT_TRUE(FailedWith(stale, "launch", "dvm-uri-unknown"));
  EXPECT_EQ(stale.error().arg("uri"), with_uri(300).uri);
  EXPECT_EQ(stale.error().arg("directory"), d);

  EXPECT_EQ(resolve_dvm_name(d + "/dvm.300", d, is_alive).value(), d + "/dvm.300");
  EXPECT_EQ(resolve_dvm_name("file:" + d + "/dvm.100", d, is_alive).value(), d + "/dvm.100");
  // Neither a file nor a contact URI: read as a file, whose error says so.
  EXPECT_EQ(resolve_dvm_name(d + "/missing", d, is_alive).value(), d + "/missing");
}

}  // namespace
}  // namespace orca::launch
