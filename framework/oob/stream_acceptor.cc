// StreamAcceptor: accept with back-off when descriptors run out.
#include <orca/oob_acceptor.h>

#include <sys/resource.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace orca::oob {

StreamAcceptor::StreamAcceptor(EventLoop& loop, UniqueFd listener, std::string what, Accepted accepted, Log log)
    : listener_(std::move(listener)),
      what_(std::move(what)),
      accepted_(std::move(accepted)),
      log_(std::move(log)),
      watch_(loop, listener_.get(), IoWatch::kRead, [this](short) { accept_batch(); }),
      resume_(loop, [this] {
        paused_ = false;
        watch_.enable();
        accept_batch();
      }) {
  watch_.enable();
}

void StreamAcceptor::accept_batch() {
  for (int i = 0; i < kBatch && !paused_; ++i) {
    UniqueFd c(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (c.valid()) {
      accepted_(std::move(c));
      continue;
    }
    const int err = errno;
    if (err == EINTR || err == ECONNABORTED || err == EPROTO) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) return;
    // Out of descriptors or memory (or anything else the kernel keeps
    // saying): the connection waits in the backlog; so do we.
    paused_ = true;
    watch_.disable();
    resume_.start(kRetryDelay);
    if (log_) {
      log_(pause_reported_ ? 10 : 0,
           "cannot accept on " + what_ + ": " + std::strerror(err) + "; pausing accepts for " +
               std::to_string(kRetryDelay.count()) + " ms" +
               (err == EMFILE || err == ENFILE ? " (raise the open-files limit, ulimit -n)" : "") +
               (pause_reported_ ? "" : "; further pauses are logged at verbose level 10"));
    }
    pause_reported_ = true;
  }
}

unsigned long raise_descriptor_limit() noexcept {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return raised.rlim_cur;
  }
  return lim.rlim_cur;
}

}  // namespace orca::oob
