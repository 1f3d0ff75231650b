// What the launcher's machine tests share: routing trees built from the
// radix component's own source (no component loaded), and wait statuses
// as waitpid gives them.
#ifndef ORCA_TEST_FRAMEWORK_LAUNCH_MACHINE_FIXTURES_H
#define ORCA_TEST_FRAMEWORK_LAUNCH_MACHINE_FIXTURES_H

#include "routed/radix/radix_tree.h"

#include "lib/result_assertions.h"

#include <orca/routed.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace orca::test {

inline routed::RoutingTree radix_tree(std::uint32_t radix, std::uint32_t daemons) {
  routed::radix::RadixTree shape(radix);
  auto t = routed::RoutingTree::build(shape.module(), daemons, "radix");
  EXPECT_TRUE(Succeeded(t));
  return std::move(t.value());
}

inline int exited(int code) { return code << 8; }
inline int killed(int signo) { return signo; }

/* A machine's timers on a fake clock: the machine's arm and cancel hooks
 * call arm() and cancel(); advance() moves the clock and fires what is
 * due, in deadline order, through `fire`. */
template <typename Key>
class FakeTimers {
 public:
  using milliseconds = std::chrono::milliseconds;

  void arm(const Key& key, milliseconds after) {
    deadline_[key] = now_ + after;
    duration_[key] = after;
  }
  void cancel(const Key& key) { deadline_.erase(key); }
  bool is_armed(const Key& key) const { return deadline_.count(key) > 0; }
  /* How long `key` was last armed for (0: never). */
  milliseconds armed_for(const Key& key) const {
    auto it = duration_.find(key);
    return it == duration_.end() ? milliseconds(0) : it->second;
  }
  template <typename Fire>
  void advance(milliseconds by, Fire fire) {
    const milliseconds until = now_ + by;
    for (;;) {
      auto due = std::min_element(deadline_.begin(), deadline_.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      if (due == deadline_.end() || due->second > until) break;
      const Key key = due->first;
      now_ = due->second;
      deadline_.erase(due);
      fire(key);
    }
    now_ = until;
  }

 private:
  std::map<Key, milliseconds> deadline_;
  std::map<Key, milliseconds> duration_;
  milliseconds now_{0};
};

/* The entries of a hook log that start with `prefix`, in order. */
inline std::vector<std::string> only(const std::vector<std::string>& log, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : log) {
    if (e.rfind(prefix, 0) == 0) out.push_back(e);
  }
  return out;
}

}  // namespace orca::test

#endif
