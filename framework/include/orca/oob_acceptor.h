/*
 * StreamAcceptor: the accept loop every stream component (tcp, usock)
 * shares, on the process's event loop.
 *
 * It accepts until the listener has nothing more (at most a batch per
 * wakeup, so a flood cannot starve the rest of the loop) and hands each
 * socket to the callback. When the process or the system is out of file
 * descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM), the
 * pending connection stays in the kernel's backlog: the level-triggered
 * watch would fire again at once and spin, so accepting pauses for
 * kRetryDelay instead and resumes on a timer. The first pause is logged at
 * level 0 (always shown), later ones at level 10.
 */
#ifndef ORCA_OOB_ACCEPTOR_H
#define ORCA_OOB_ACCEPTOR_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <functional>
#include <string>

namespace orca::oob {

class ORCA_EXPORT StreamAcceptor {
 public:
  using Accepted = std::function<void(UniqueFd socket)>;
  using Log = std::function<void(int level, const std::string& text)>;
  static constexpr std::chrono::milliseconds kRetryDelay{100};
  static constexpr int kBatch = 128;

  /* Starts watching `listener` (a listening, nonblocking socket it now
   * owns); `what` names it in logs ("10.0.0.1:5000"). Accepted sockets
   * are nonblocking and close-on-exec. */
  StreamAcceptor(EventLoop& loop, UniqueFd listener, std::string what, Accepted accepted, Log log);
  StreamAcceptor(const StreamAcceptor&) = delete;
  StreamAcceptor& operator=(const StreamAcceptor&) = delete;

  int fd() const noexcept { return listener_.get(); }
  /* Whether accepting is paused for lack of descriptors or memory. */
  bool paused() const noexcept { return paused_; }

 private:
  void accept_batch();

  UniqueFd listener_;
  std::string what_;
  Accepted accepted_;
  Log log_;
  IoWatch watch_;
  Timer resume_;
  bool paused_ = false;
  bool pause_reported_ = false;
};

/* Raises this process's soft RLIMIT_NOFILE to its hard limit (a daemon
 * with many peers needs descriptors; the soft default of 1024 is an
 * accident of history). Returns the soft limit now in force. */
ORCA_EXPORT unsigned long raise_descriptor_limit() noexcept;

}  // namespace orca::oob

#endif  // ORCA_OOB_ACCEPTOR_H
