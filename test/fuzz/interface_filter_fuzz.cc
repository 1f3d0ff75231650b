// The include / exclude interface lists (orca/interface_selection.h):
// names and IPv4/IPv6 CIDRs, as a user sets oob_tcp_if_include or
// oob_tcp_if_exclude, through the registry's list parser, then decided
// against a synthetic inventory (lo, eth0, virbr0, wlan0).
//
// Input: a mode byte (0: include, 1: exclude, 2: both, split at the
// first '\n'), then the value(s). Checks: one decision per entry, each
// with a rule; loopback stays unless the exclude list named it; an
// included non-loopback entry matches an entry of the list; an excluded
// entry is never selected; an accepted CIDR entry holds no control byte.
#include <orca/interface_selection.h>
#include <orca/mca_var.h>

#include "../lib/synthetic_inventory.h"
#include "fuzz_input.h"

namespace orca::net {
namespace {

using fuzz::fuzz_require;

void check_decisions(const InterfaceInventory& inventory, const InterfaceFilter& filter,
                     const std::vector<InterfaceDecision>& decisions) {
  fuzz_require(decisions.size() == inventory.entries().size(), "not one decision per entry");
  for (size_t i = 0; i < decisions.size(); ++i) {
    const InterfaceDecision& d = decisions[i];
    const InterfaceAddress& e = inventory.entries()[d.entry];
    fuzz_require(d.entry == i && !d.rule.empty(), "a decision without its entry or rule");
    bool matched = false;
    for (const FilterEntry& f : filter.entries) matched = matched || f.matches(e);
    if (filter.mode == InterfaceFilter::Mode::Exclude && matched) {
      fuzz_require(!d.selected, "an excluded entry was selected");
    } else if (e.link.loopback && e.link.up && !e.tentative) {
      fuzz_require(d.selected, "loopback was dropped although no exclude list named it");
    } else if (d.selected && filter.mode == InterfaceFilter::Mode::Include) {
      fuzz_require(matched, "an entry the include list does not name was selected");
    }
  }
  for (const FilterEntry& f : filter.entries) {
    if (!f.is_prefix) continue;
    for (unsigned char c : f.text) fuzz_require(c > 0x20 && c != 0x7f, "a CIDR with a control byte was accepted");
  }
}

}  // namespace
}  // namespace orca::net

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca;
  orca::fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.byte() % 3;
  std::string_view include = in.rest_text();
  std::string_view exclude;
  if (mode == 1) std::swap(include, exclude);
  if (mode == 2) {
    const size_t nl = include.find('\n');
    exclude = nl == std::string_view::npos ? std::string_view() : include.substr(nl + 1);
    include = include.substr(0, nl);
  }
  mca::Registry registry;
  orca::fuzz::fuzz_require(net::declare_interface_selection_vars(registry, "oob", "tcp").ok(),
                           "the selection variables cannot be declared");
  const mca::Source from{mca::SourceKind::CommandLine, "", 0, 0};
  if (!include.empty()) (void)registry.add_setting({"oob_tcp_if_include", std::string(include), from});
  if (!exclude.empty()) (void)registry.add_setting({"oob_tcp_if_exclude", std::string(exclude), from});
  auto filter = net::interface_filter_from(registry, "oob_tcp_");
  if (!filter) return 0;
  const net::InterfaceInventory inventory = test::standard_inventory();
  auto decisions = net::select_interfaces(inventory, filter.value());
  if (!decisions) return 0;
  net::check_decisions(inventory, filter.value(), decisions.value());
  return 0;
}
