// StdinForwarder: orcarun's standard input to the daemons of the ranks
// that read it (--stdin), with a window of bytes in flight so that a
// fast producer and a slow rank cost bounded memory on both sides.
#ifndef ORCA_TOOLS_ORCARUN_STDIN_FORWARDER_H
#define ORCA_TOOLS_ORCARUN_STDIN_FORWARDER_H

#include "launch/launch_wire.h"
#include "oob/oob_outbox.h"

#include <orca/event_loop.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace orca::orcarun {

class StdinForwarder {
 public:
  /* How many bytes may be sent and not yet written, per rank that reads. */
  static constexpr std::uint64_t kWindow = 1u << 20;
  /* Reads fd 0 and sends StdinData of job `job` (0: a standalone run's)
   * on `tag` to every process in `targets` (the daemons, or a DVM's
   * controller, which passes it on), whose ranks that read it are
   * `readers` in all. Each of those ranks credits what it took (a daemon
   * with two such ranks credits every byte twice), so the window and the
   * bytes in flight count one copy per rank. */
  StdinForwarder(EventLoop& loop, oob::Outbox& outbox, std::vector<ProcessName> targets, std::uint64_t readers,
                 std::uint32_t job = 0, std::uint32_t tag = launch::kTagStdin);
  void credit(std::uint32_t bytes);

 private:
  void read_some();
  void resume();
  EventLoop& loop_;
  oob::Outbox& outbox_;
  std::vector<ProcessName> targets_;
  std::uint64_t readers_;
  std::uint32_t job_;
  std::uint32_t tag_;
  std::unique_ptr<IoWatch> watch_;  // pipes, terminals, sockets
  std::unique_ptr<Timer> poll_;     // files (epoll cannot watch them): read as the window allows
  std::uint64_t in_flight_ = 0;
  bool eof_ = false;
};

}  // namespace orca::orcarun

#endif
