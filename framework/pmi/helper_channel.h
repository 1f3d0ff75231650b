// HelperChannel: one end of the socketpair between a DVM daemon and its
// PMI helper process (helper_process.h), carrying HelperMessages
// (helper_wire.h) as frames. Writes never block: what the socket does not
// take now is queued and written when it can be. Each side runs it on its
// own event loop; the daemon's side may also wait, blocking, for one
// answer (await): messages that come meanwhile are held and handed on
// from the loop afterwards, never from inside the wait.
#ifndef ORCA_PMI_HELPER_CHANNEL_H
#define ORCA_PMI_HELPER_CHANNEL_H

#include "helper_wire.h"

#include <orca/event_loop.h>
#include <orca/unique_fd.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orca::pmi {

class ORCA_EXPORT HelperChannel {
 public:
  struct Hooks {
    std::function<void(HelperMessage message)> message;
    /* The other end closed, or sent what is no frame (why); called once,
     * from the loop, and nothing comes after it. */
    std::function<void(const std::string& why)> closed;
  };
  /* `fd`: a connected stream socket, made nonblocking here. */
  HelperChannel(EventLoop& loop, UniqueFd fd, Hooks hooks);
  ~HelperChannel();
  HelperChannel(const HelperChannel&) = delete;
  HelperChannel& operator=(const HelperChannel&) = delete;

  /* Queues `message` (in order) and writes what the socket takes. False
   * once the channel is closed. */
  bool send(const HelperMessage& message);
  /* Blocks (the loop does not run) until a message `wanted` accepts came
   * (it is returned, not handed to the hook), the channel closed or
   * `limit` passed (nothing). Queued output is written meanwhile. What
   * comes first is held and handed on from the loop afterwards (kHold),
   * or handed on now, in order, before this returns (kHandOn: the caller
   * must see it first, and survive what the hook does). */
  enum class Meanwhile { kHold, kHandOn };
  std::optional<HelperMessage> await(const std::function<bool(const HelperMessage&)>& wanted,
                                     std::chrono::milliseconds limit, Meanwhile meanwhile = Meanwhile::kHold);
  bool open() const noexcept { return !closed_; }
  /* Closes the channel now, as asked: the other end sees its end at once;
   * nothing more is sent or handed on, and no closed hook comes. */
  void shut();

 private:
  void on_readable();
  /* Reads what is there; false at the end or an error (why set). */
  bool read_some(std::string& why);
  /* Takes whole frames out of in_; false on a bad frame (why set). */
  bool take_frames(std::string& why, const std::function<bool(const HelperMessage&)>* wanted,
                   std::optional<HelperMessage>* got);
  bool write_some();
  void close(const std::string& why);
  void hand_on_held();

  EventLoop& loop_;
  UniqueFd fd_;
  Hooks hooks_;
  std::unique_ptr<IoWatch> read_watch_;
  std::unique_ptr<IoWatch> write_watch_;  // enabled while output is queued
  std::vector<std::uint8_t> in_;
  std::vector<std::uint8_t> out_;
  std::size_t out_at_ = 0;
  std::deque<HelperMessage> held_;
  bool closed_ = false;
  std::string closed_why_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace orca::pmi

#endif
