// ConnectRace state machine.
#include "connect_race.h"

#include <algorithm>

namespace orca::oob::tcp {

ConnectRace::ConnectRace(size_t candidates, std::chrono::milliseconds stagger, Hooks hooks)
    : stagger_(stagger),
      hooks_(std::move(hooks)),
      outcomes_(candidates, Outcome::NotTried),
      details_(candidates) {}

void ConnectRace::start() {
  if (outcomes_.empty()) {
    finished_ = true;
    return;
  }
  start_next();
}

void ConnectRace::start_next() {
  if (finished_ || next_ >= outcomes_.size()) return;
  const size_t i = next_++;
  outcomes_[i] = Outcome::InFlight;
  started_.push_back(i);
  if (next_ < outcomes_.size()) hooks_.arm_timer(stagger_);
  hooks_.start_attempt(i);  // may report failure synchronously
}

void ConnectRace::on_timer() { start_next(); }

void ConnectRace::on_failed(size_t candidate, std::string why) {
  if (finished_ || outcomes_.at(candidate) != Outcome::InFlight) return;
  outcomes_[candidate] = Outcome::Failed;
  details_[candidate] = std::move(why);
  if (next_ < outcomes_.size()) {
    hooks_.cancel_timer();
    start_next();  // a failure frees the way at once
  } else {
    check_lost();
  }
}

void ConnectRace::on_succeeded(size_t candidate) {
  if (finished_ || outcomes_.at(candidate) != Outcome::InFlight) return;
  finished_ = true;
  winner_ = candidate;
  outcomes_[candidate] = Outcome::Won;
  hooks_.cancel_timer();
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    if (outcomes_[i] == Outcome::InFlight) {
      outcomes_[i] = Outcome::Cancelled;
      details_[i] = "cancelled: another address won";
      hooks_.cancel_attempt(i);
    }
  }
}

void ConnectRace::abort(const std::string& why) {
  if (finished_) return;
  finished_ = true;
  hooks_.cancel_timer();
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    if (outcomes_[i] == Outcome::InFlight) {
      outcomes_[i] = Outcome::Failed;
      details_[i] = why;
      hooks_.cancel_attempt(i);
    } else if (outcomes_[i] == Outcome::NotTried) {
      details_[i] = "not tried: " + why;
    }
  }
}

void ConnectRace::check_lost() {
  const bool any_in_flight = std::any_of(outcomes_.begin(), outcomes_.end(),
                                         [](Outcome o) { return o == Outcome::InFlight; });
  if (!any_in_flight && next_ >= outcomes_.size()) {
    finished_ = true;
    hooks_.cancel_timer();
  }
}

}  // namespace orca::oob::tcp
