// Hostfiles (parse_hostfile_text, orca/host_list.h): "node[1-4] slots=8"
// lines, comments and blank lines, as read_hostfile() gets them from a
// file the user wrote.
//
// Checks: the hosts of an accepted file are valid host names (after an
// optional USER@, or IPv6 addresses), each once, with slots in bounds; a
// file that never says slots= nor host:N marks no host as having been
// given slots.
#include <orca/host_list.h>

#include "fuzz_input.h"
#include "hostlist_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::launch;
  orca::fuzz::FuzzInput in(data, size);
  const std::string_view text = in.rest_text();
  auto hosts = parse_hostfile_text(text, "fuzz-hostfile");
  if (!hosts) {
    orca::fuzz::fuzz_require(!hosts.error().summary().empty(), "a refusal without a reason");
    return 0;
  }
  orca::fuzz::check_hosts(hosts.value());
  // A cap is never below the slots it caps, and comes only from max_slots= (or max-slots=).
  for (const HostSlots& h : hosts.value()) {
    orca::fuzz::fuzz_require(h.max_slots == 0 || h.max_slots >= h.slots, "max_slots below the host's slots");
    orca::fuzz::fuzz_require(h.max_slots == 0 || text.find("slots") != std::string_view::npos,
                             "a cap from a file that never says max_slots");
  }
  // Slots are given only as slots=N or host:N (Hydra's form).
  if (text.find("slots") == std::string_view::npos && text.find(':') == std::string_view::npos) {
    for (const HostSlots& h : hosts.value()) {
      orca::fuzz::fuzz_require(!h.slots_given, "slots given by a file that never says slots= or host:N");
    }
  }
  return 0;
}
