// The bootstrap on orcad's standard input (read_bootstrap,
// framework/launch/launch_wire.h): a 4-byte length and a message, read
// from a file descriptor. The input goes into a pipe whose write end is
// then closed, as when the agent that started orcad dies mid-write.
//
// After the bootstrap, the frames that follow it (the parents' contacts
// orcarun relays to daemons started all at once) are read with
// read_stdin_message until one fails, as orcad does.
//
// Checks: a bootstrap, and every frame after it, that is read, framed
// again by bootstrap_frame() or stdin_frame(), gives exactly the bytes it
// was read from; nothing blocks (the limit is never reached: the pipe is
// closed).
#include <orca/unique_fd.h>

#include "launch/launch_wire.h"

#include "fuzz_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::launch;
  using orca::fuzz::fuzz_require;
  int fds[2];
  fuzz_require(::pipe2(fds, O_CLOEXEC) == 0, "no pipe");
  orca::UniqueFd read_end(fds[0]);
  orca::UniqueFd write_end(fds[1]);
  // Everything must fit in the pipe: nobody else drains it.
  const int capacity = ::fcntl(write_end.get(), F_GETPIPE_SZ);
  const size_t n = std::min(size, static_cast<size_t>(capacity > 0 ? capacity : 4096));
  size_t written = 0;
  while (written < n) {
    const ssize_t k = ::write(write_end.get(), data + written, n - written);
    fuzz_require(k > 0, "a write to the pipe failed");
    written += static_cast<size_t>(k);
  }
  write_end.reset();
  auto bootstrap = read_bootstrap(read_end.get(), 1000);
  if (!bootstrap) return 0;
  auto frame = bootstrap_frame(bootstrap.value());
  fuzz_require(frame.ok(), "a bootstrap that was read cannot be framed");
  fuzz_require(frame->size() <= n && std::equal(frame->begin(), frame->end(), data),
               "a bootstrap framed again gives other bytes");
  size_t at = frame->size();
  for (;;) {
    auto next = read_stdin_message(read_end.get(), 1000);
    if (!next) return 0;
    auto again = stdin_frame(next.value());
    fuzz_require(again.ok(), "a frame that was read cannot be framed");
    fuzz_require(again->size() <= n - at && std::equal(again->begin(), again->end(), data + at),
                 "a frame after the bootstrap, framed again, gives other bytes");
    at += again->size();
  }
}
