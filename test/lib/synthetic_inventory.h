// Hand-built interface inventories for the selection policy and the
// reachable framework: no kernel involved, every field chosen by the test.
//
//   auto inv = orca::test::standard_inventory();
//   orca::net::IpAddress a = orca::test::ip("10.1.0.5");
#ifndef ORCA_TEST_LIB_SYNTHETIC_INVENTORY_H
#define ORCA_TEST_LIB_SYNTHETIC_INVENTORY_H

#include <orca/interfaces.h>
#include <orca/ip_address.h>
#include <orca/reachable.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace orca::net {

/* Readable values in GoogleTest failure output (found by ADL). */
inline void PrintTo(const IpAddress& a, std::ostream* os) {
  *os << a.to_string();
  if (a.scope_id() != 0) *os << "%" << a.scope_id();
}
inline void PrintTo(InterfaceKind kind, std::ostream* os) { *os << kind_name(kind); }

}  // namespace orca::net

namespace orca::test {

/* An address the test writes as text; a typo in a test throws, which
 * GoogleTest reports as a failure of that test. */
inline net::IpAddress ip(std::string_view text) {
  std::string why;
  auto a = net::IpAddress::parse(text, &why);
  if (!a) throw std::invalid_argument("test address '" + std::string(text) + "': " + why);
  return *a;
}

struct LinkSpec {
  std::string name;
  int index = 0;
  net::InterfaceKind kind = net::InterfaceKind::Physical;
  bool up = true;
  bool running = true;
  std::optional<std::uint64_t> speed_mbps;
};

inline net::LinkInfo make_link(const LinkSpec& spec) {
  net::LinkInfo link;
  link.name = spec.name;
  link.index = spec.index;
  link.up = spec.up;
  link.running = spec.running;
  link.loopback = spec.kind == net::InterfaceKind::Loopback;
  link.mtu = link.loopback ? 65536 : 1500;
  link.speed_mbps = spec.speed_mbps;
  link.kind = spec.kind;
  return link;
}

/* One (interface, address) entry. IPv6 link-local addresses get the link
 * index as scope, as InterfaceInventory::scan() does. */
inline net::InterfaceAddress make_entry(const net::LinkInfo& link, std::string_view address, int prefix_length,
                                        bool tentative = false) {
  net::InterfaceAddress e;
  e.link = link;
  e.address = ip(address);
  if (e.address.family() == net::Family::V6 && e.address.is_link_local())
    e.address.set_scope_id(static_cast<std::uint32_t>(link.index));
  e.prefix_length = prefix_length;
  e.tentative = tentative;
  return e;
}

// A verdict's reason as a string, never reading past the buffer.
inline std::string reason_of(const orca_reach_verdict& v) { return std::string(v.reason, strnlen(v.reason, sizeof v.reason)); }

// A verdict for a module to fill: no NUL anywhere in the reason, so a
// module that forgets to terminate it is caught.
inline orca_reach_verdict undecided() {
  orca_reach_verdict v;
  std::memset(&v, 'X', sizeof v);
  v.weight = ORCA_REACH_UNDECIDED;
  return v;
}

inline reach::RemoteAddress remote(std::string_view address, int prefix_length,
                                   net::InterfaceKind kind = net::InterfaceKind::Unknown) {
  return reach::RemoteAddress{ip(address), prefix_length, kind};
}

/* The inventory most tests use. Entry indexes (kEntry*) are stable.
 *
 *   lo      1  loopback   up, running   127.0.0.1/8, ::1/128
 *   eth0    2  physical   up, running   10.1.0.5/24, fd00:1::5/64,
 *                         10 Gb/s       2001:db8:1::5/64 (tentative)
 *   virbr0  3  bridge     up, NO carrier 192.168.122.1/24
 *   wlan0   4  wireless   DOWN           192.168.1.20/24
 *   eth1    5  physical   up, running   (no address)
 */
inline constexpr size_t kEntryLo4 = 0;
inline constexpr size_t kEntryLo6 = 1;
inline constexpr size_t kEntryEth0V4 = 2;
inline constexpr size_t kEntryEth0V6 = 3;
inline constexpr size_t kEntryEth0Tentative = 4;
inline constexpr size_t kEntryVirbr0 = 5;
inline constexpr size_t kEntryWlan0 = 6;
inline constexpr size_t kStandardEntries = 7;

inline net::InterfaceInventory standard_inventory() {
  using K = net::InterfaceKind;
  const net::LinkInfo lo = make_link({"lo", 1, K::Loopback, true, true, std::nullopt});
  const net::LinkInfo eth0 = make_link({"eth0", 2, K::Physical, true, true, 10000});
  const net::LinkInfo virbr0 = make_link({"virbr0", 3, K::Bridge, true, false, std::nullopt});
  const net::LinkInfo wlan0 = make_link({"wlan0", 4, K::Wireless, false, false, std::nullopt});
  const net::LinkInfo eth1 = make_link({"eth1", 5, K::Physical, true, true, 1000});
  std::vector<net::InterfaceAddress> entries = {
      make_entry(lo, "127.0.0.1", 8),
      make_entry(lo, "::1", 128),
      make_entry(eth0, "10.1.0.5", 24),
      make_entry(eth0, "fd00:1::5", 64),
      make_entry(eth0, "2001:db8:1::5", 64, /*tentative=*/true),
      make_entry(virbr0, "192.168.122.1", 24),
      make_entry(wlan0, "192.168.1.20", 24),
  };
  return net::InterfaceInventory({lo, eth0, virbr0, wlan0, eth1}, std::move(entries));
}

/* The seed scenario of the reachable framework: a host with loopback and
 * a libvirt bridge only (192.168.122.1/24 exists on every such host). */
inline net::InterfaceInventory lo_and_virbr0_inventory() {
  using K = net::InterfaceKind;
  const net::LinkInfo lo = make_link({"lo", 1, K::Loopback, true, true, std::nullopt});
  const net::LinkInfo virbr0 = make_link({"virbr0", 2, K::Bridge, true, false, std::nullopt});
  std::vector<net::InterfaceAddress> entries = {
      make_entry(lo, "127.0.0.1", 8),
      make_entry(virbr0, "192.168.122.1", 24),
  };
  return net::InterfaceInventory({lo, virbr0}, std::move(entries));
}

/* Every entry selected, in inventory order (what select_interfaces gives
 * for an inventory whose links are all up, with no lists set). */
inline std::vector<net::InterfaceDecision> select_all(const net::InterfaceInventory& inventory) {
  std::vector<net::InterfaceDecision> out;
  for (size_t i = 0; i < inventory.entries().size(); ++i) out.push_back({i, true, "selected by the test"});
  return out;
}

}  // namespace orca::test

#endif
