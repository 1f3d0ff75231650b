// ConnectRace: Happy Eyeballs (RFC 8305) over a ranked candidate list, as
// a state machine without I/O or clocks, so ordering is tested with a fake
// timer.
//
// start() begins candidate 0 and arms the stagger timer. Each time the
// timer fires, or an attempt fails, the next candidate starts (a failure
// starts it at once). The first attempt to succeed (connected and
// handshaken with the right peer) wins; every other attempt in flight is
// cancelled. When every candidate has failed the race is lost.
#ifndef ORCA_COMPONENTS_OOB_TCP_CONNECT_RACE_H
#define ORCA_COMPONENTS_OOB_TCP_CONNECT_RACE_H

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orca::oob::tcp {

class ConnectRace {
 public:
  enum class Outcome { NotTried, InFlight, Failed, Won, Cancelled };

  struct Hooks {
    std::function<void(size_t candidate)> start_attempt;   // begin connecting
    std::function<void(size_t candidate)> cancel_attempt;  // a loser still in flight
    std::function<void(std::chrono::milliseconds)> arm_timer;
    std::function<void()> cancel_timer;
  };

  ConnectRace(size_t candidates, std::chrono::milliseconds stagger, Hooks hooks);

  void start();
  void on_timer();
  void on_failed(size_t candidate, std::string why);
  void on_succeeded(size_t candidate);
  /* Stops everything in flight (the overall deadline passed). */
  void abort(const std::string& why);

  bool finished() const noexcept { return finished_; }
  std::optional<size_t> winner() const noexcept { return winner_; }
  Outcome outcome(size_t candidate) const { return outcomes_.at(candidate); }
  const std::string& detail(size_t candidate) const { return details_.at(candidate); }
  /* Candidates in the order they were started. */
  const std::vector<size_t>& started() const noexcept { return started_; }

 private:
  void start_next();
  void check_lost();

  std::chrono::milliseconds stagger_;
  Hooks hooks_;
  std::vector<Outcome> outcomes_;
  std::vector<std::string> details_;
  std::vector<size_t> started_;
  size_t next_ = 0;
  bool finished_ = false;
  std::optional<size_t> winner_;
};

}  // namespace orca::oob::tcp

#endif
