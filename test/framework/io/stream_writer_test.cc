// StreamWriter over real pipes, sockets and files: a reader that does not
// read never blocks the writer, the inherited descriptor keeps its flags,
// everything arrives in order once the reader reads, credits come as each
// write is whole, and a reader that is gone (EPIPE) is said once.
#include <orca/event_loop.h>
#include <orca/unique_fd.h>

#include "io/stream_writer.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace orca {
namespace {

using namespace std::chrono_literals;

struct Pipe {
  UniqueFd read, write;
  Pipe() {
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    read.reset(fds[0]);
    write.reset(fds[1]);
  }
};

std::string read_available(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string got;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

struct Recorder {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> credits;
  int broken = 0;
  StreamWriter::Hooks hooks() {
    return {.written = [this](std::uint32_t o, std::uint64_t c) { credits.emplace_back(o, c); },
            .broken = [this] { ++broken; }};
  }
};

TEST(StreamWriter, APipeNobodyReadsNeverBlocksAndKeepsItsFlags) {
  EventLoop loop;
  Pipe p;
  const int flags_before = ::fcntl(p.write.get(), F_GETFL);
  Recorder r;
  StreamWriter w(loop, p.write.get(), r.hooks());
  EXPECT_EQ(w.mode(), StreamWriter::Mode::Reopened);
  // Far more than a pipe holds: every call returns at once, the rest queues.
  const std::string line(999, 'x');
  std::string expected;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const std::string text = std::to_string(i) + line + "\n";
    w.write(text, i % 3 + 1, text.size());
    expected += text;
  }
  EXPECT_GT(w.queued(), 0u);
  EXPECT_LT(w.queued(), expected.size());
  EXPECT_EQ(::fcntl(p.write.get(), F_GETFL), flags_before) << "the inherited descriptor's flags changed";
  EXPECT_EQ(flags_before & O_NONBLOCK, 0);
  // Credits so far are exactly the writes that went out whole, in order.
  const size_t whole = r.credits.size();
  EXPECT_LT(whole, 1000u);
  std::string got;
  while (got.size() < expected.size()) {
    got += read_available(p.read.get());
    loop.run_until([&] { return w.queued() == 0; }, 10ms);
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(w.queued(), 0u);
  ASSERT_EQ(r.credits.size(), 1000u);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(r.credits[i].first, i % 3 + 1);
    EXPECT_EQ(r.credits[i].second, std::to_string(i).size() + 1000);
  }
  EXPECT_EQ(r.broken, 0);
}

TEST(StreamWriter, AReaderGoneIsSaidOnceAndDropsWhatWaited) {
  EventLoop loop;
  Pipe p;
  Recorder r;
  StreamWriter w(loop, p.write.get(), r.hooks());
  const std::string big(1 << 20, 'y');
  w.write(big, 7, big.size());
  EXPECT_GT(w.queued(), 0u);
  p.read.reset();
  loop.run_until([&] { return w.broken(); }, 2000ms);
  EXPECT_TRUE(w.broken());
  EXPECT_EQ(r.broken, 1);
  EXPECT_EQ(w.queued(), 0u);
  // Dropped writes still credit their owner: nobody waits on a reader that is gone.
  ASSERT_EQ(r.credits.size(), 1u);
  EXPECT_EQ(r.credits[0], std::make_pair(7u, std::uint64_t{big.size()}));
  w.write("more", 8, 4);
  EXPECT_EQ(r.broken, 1);
  EXPECT_EQ(r.credits.size(), 2u);
}

TEST(StreamWriter, ASocketUsesSendWithoutBlocking) {
  EventLoop loop;
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  UniqueFd a(sv[0]), b(sv[1]);
  const int flags_before = ::fcntl(a.get(), F_GETFL);
  Recorder r;
  StreamWriter w(loop, a.get(), r.hooks());
  EXPECT_EQ(w.mode(), StreamWriter::Mode::Socket);
  const std::string big(4 << 20, 'z');
  w.write(big, 1, big.size());
  EXPECT_GT(w.queued(), 0u);
  EXPECT_EQ(::fcntl(a.get(), F_GETFL), flags_before);
  std::string got;
  while (got.size() < big.size()) {
    got += read_available(b.get());
    loop.run_until([&] { return w.queued() == 0; }, 10ms);
  }
  EXPECT_EQ(got, big);
  EXPECT_EQ(r.credits.size(), 1u);
}

TEST(StreamWriter, AFileIsWrittenInPlaceSharingItsOffset) {
  EventLoop loop;
  char path[] = "/tmp/orca-stream-writer-XXXXXX";
  UniqueFd fd(::mkstemp(path));
  ASSERT_TRUE(fd.valid());
  ::unlink(path);
  ASSERT_EQ(::write(fd.get(), "before ", 7), 7);
  Recorder r;
  {
    StreamWriter w(loop, fd.get(), r.hooks());
    EXPECT_EQ(w.mode(), StreamWriter::Mode::Blocking);
    w.write("middle ", 2, 7);
    EXPECT_EQ(w.queued(), 0u);
  }
  // The shell's offset moved on: what it writes next comes after ours.
  ASSERT_EQ(::write(fd.get(), "after", 5), 5);
  char buf[64] = {};
  ASSERT_EQ(::pread(fd.get(), buf, sizeof buf, 0), 19);
  EXPECT_STREQ(buf, "before middle after");
  ASSERT_EQ(r.credits.size(), 1u);
}

TEST(StreamWriter, FlushBlockingWaitsForTheReader) {
  EventLoop loop;
  Pipe p;
  Recorder r;
  StreamWriter w(loop, p.write.get(), r.hooks());
  const std::string big(1 << 20, 'q');
  w.write(big, 1, big.size());
  ASSERT_GT(w.queued(), 0u);
  const pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    // Reads slowly, then checks what it got.
    p.write.reset();
    ::usleep(200 * 1000);
    std::string got;
    char buf[65536];
    ssize_t n;
    // (It holds a copy of the writer's own descriptor too: no EOF comes,
    // so it reads what it expects.)
    while (got.size() < big.size() && (n = ::read(p.read.get(), buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    ::_exit(got == big ? 0 : 1);
  }
  p.read.reset();
  w.flush_blocking();
  EXPECT_EQ(w.queued(), 0u);
  EXPECT_EQ(r.credits.size(), 1u);
  int status = 0;
  ASSERT_EQ(::waitpid(reader, &status, 0), reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the reader did not get every byte";
}

}  // namespace
}  // namespace orca
