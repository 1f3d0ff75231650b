// LoopHandoff: work another thread hands to the event loop's thread.
// libpmix calls its host from a progress thread of its own; everything
// Orca does happens on the loop's thread, so those calls only post a
// closure here, and the loop runs it (woken through an eventfd).
// post() may be called from any thread; the closures run in order, on
// the loop, never inside post(). Closures not run when the handoff is
// destroyed are dropped: stop the other thread first.
#ifndef ORCA_COMPONENTS_PMI_PMIX_LOOP_HANDOFF_H
#define ORCA_COMPONENTS_PMI_PMIX_LOOP_HANDOFF_H

#include <orca/event_loop.h>
#include <orca/unique_fd.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace orca::pmi {

class LoopHandoff {
 public:
  /* Throws std::system_error when no eventfd can be made. */
  explicit LoopHandoff(EventLoop& loop);
  ~LoopHandoff();
  LoopHandoff(const LoopHandoff&) = delete;
  LoopHandoff& operator=(const LoopHandoff&) = delete;

  void post(std::function<void()> work);
  /* Runs what was posted so far, now (on the loop's thread): what a rank
   * told libpmix before it exited is handled before its exit is. */
  void drain();

 private:
  UniqueFd fd_;
  std::unique_ptr<IoWatch> watch_;
  std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace orca::pmi

#endif
