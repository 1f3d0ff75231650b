// StreamWriter: an inherited descriptor, written without blocking the loop.
#include "stream_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace orca {

namespace {
// A descriptor of our own on the same pipe or terminal, nonblocking.
UniqueFd reopen_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return UniqueFd();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  return UniqueFd(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (flags & O_APPEND)));
}
}  // namespace

StreamWriter::StreamWriter(EventLoop& loop, int fd, Hooks hooks) : fd_(fd), hooks_(std::move(hooks)) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return;  // not open: writes fail and are dropped
  if (S_ISSOCK(st.st_mode)) {
    mode_ = Mode::Socket;
  } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    own_ = reopen_nonblocking(fd);
    if (own_.valid()) mode_ = Mode::Reopened;
  }
  if (mode_ != Mode::Blocking) {
    watch_ = std::make_unique<IoWatch>(loop, out_fd(), IoWatch::kWrite, [this](short) { drain(); });
  }
}

StreamWriter::~StreamWriter() = default;

void StreamWriter::write(std::string_view bytes, std::uint32_t owner, std::uint64_t credit) {
  if (bytes.empty() && credit == 0) return;
  Entry e{.bytes = std::string(bytes), .done = 0, .owner = owner, .credit = credit};
  if (broken_) {
    finished(e);
    return;
  }
  queued_ += e.bytes.size();
  queue_.push_back(std::move(e));
  if (queue_.size() == 1) drain();
}

StreamWriter::Outcome StreamWriter::write_some(Entry& e) {
  while (e.done < e.bytes.size()) {
    const char* p = e.bytes.data() + e.done;
    const std::size_t n = e.bytes.size() - e.done;
    const ssize_t k = mode_ == Mode::Socket ? ::send(fd_, p, n, MSG_DONTWAIT | MSG_NOSIGNAL) : ::write(out_fd(), p, n);
    if (k > 0) {
      e.done += static_cast<std::size_t>(k);
      queued_ -= static_cast<std::size_t>(k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && mode_ != Mode::Blocking) return Outcome::Again;
    if (k < 0 && errno == EPIPE) {
      fail_all(true);
      return Outcome::Failed;
    }
    // Another error (a hung-up terminal, a full disk): this write is lost,
    // the next may fare better.
    queued_ -= n;
    e.done = e.bytes.size();
  }
  return Outcome::Written;
}

void StreamWriter::drain() {
  while (!queue_.empty()) {
    const Outcome o = write_some(queue_.front());
    if (o == Outcome::Failed) return;
    if (o == Outcome::Again) {
      if (watch_ && !watch_->enabled()) watch_->enable();
      return;
    }
    const Entry e = std::move(queue_.front());
    queue_.pop_front();
    finished(e);
  }
  if (watch_ && watch_->enabled()) watch_->disable();
}

void StreamWriter::finished(const Entry& e) {
  if (e.credit != 0 && hooks_.written) hooks_.written(e.owner, e.credit);
}

void StreamWriter::fail_all(bool reader_gone) {
  const bool first = !broken_;
  broken_ = broken_ || reader_gone;
  if (watch_) watch_->disable();
  std::deque<Entry> dropped;
  dropped.swap(queue_);
  queued_ = 0;
  for (const Entry& e : dropped) finished(e);
  if (reader_gone && first && hooks_.broken) hooks_.broken();
}

void StreamWriter::flush_blocking() {
  while (!queue_.empty() && !broken_) {
    pollfd p{.fd = out_fd(), .events = POLLOUT, .revents = 0};
    if (mode_ != Mode::Blocking && ::poll(&p, 1, -1) < 0 && errno != EINTR) {
      fail_all(false);
      return;
    }
    const Outcome o = write_some(queue_.front());
    if (o == Outcome::Failed) return;
    if (o == Outcome::Written) {
      const Entry e = std::move(queue_.front());
      queue_.pop_front();
      finished(e);
    }
  }
}

}  // namespace orca
