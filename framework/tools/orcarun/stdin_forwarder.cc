// StdinForwarder: fd 0 to the ranks, windowed.
#include "stdin_forwarder.h"

#include "launch/launch_wire.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace orca::orcarun {

StdinForwarder::StdinForwarder(EventLoop& loop, oob::Outbox& outbox, std::vector<ProcessName> targets,
                               std::uint64_t readers, std::uint32_t job, std::uint32_t tag)
    : loop_(loop), outbox_(outbox), targets_(std::move(targets)), readers_(std::max<std::uint64_t>(readers, 1)),
      job_(job), tag_(tag) {
  struct stat st {};
  const bool watchable = ::fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || ::isatty(0));
  if (watchable) {
    watch_ = std::make_unique<IoWatch>(loop_, 0, IoWatch::kRead, [this](short) { read_some(); });
    watch_->enable();
  } else {
    poll_ = std::make_unique<Timer>(loop_, [this] { read_some(); });
    poll_->start(std::chrono::milliseconds(0));
  }
}

void StdinForwarder::read_some() {
  if (eof_) return;
  if (in_flight_ >= kWindow * readers_) {
    if (watch_) watch_->disable();
    return;  // credit() resumes
  }
  std::vector<std::uint8_t> buf(64 * 1024);
  const ssize_t n = ::read(0, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
    if (poll_) poll_->start(std::chrono::milliseconds(1));
    return;
  }
  launch::StdinData data{.job = job_};
  if (n <= 0) {
    data.eof = true;
    eof_ = true;
    if (watch_) watch_->disable();
  } else {
    buf.resize(static_cast<size_t>(n));
    data.bytes = std::move(buf);
  }
  auto bytes = launch::encode(data);
  if (!bytes) return;
  for (const ProcessName& t : targets_) outbox_.post(t, tag_, bytes.value());
  in_flight_ += data.bytes.size() * readers_;
  if (!eof_ && poll_) poll_->start(std::chrono::milliseconds(0));
}

void StdinForwarder::credit(std::uint32_t bytes) {
  in_flight_ = bytes > in_flight_ ? 0 : in_flight_ - bytes;
  resume();
}

void StdinForwarder::resume() {
  if (eof_ || in_flight_ >= kWindow * readers_) return;
  if (watch_ && !watch_->enabled()) watch_->enable();
  if (poll_ && !poll_->pending()) poll_->start(std::chrono::milliseconds(0));
}

}  // namespace orca::orcarun
