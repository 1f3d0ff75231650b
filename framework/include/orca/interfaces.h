/*
 * The interface inventory: every (interface, address) of this network
 * namespace, classified.
 *
 * InterfaceInventory::scan() asks the kernel over rtnetlink for links and
 * addresses (IPv4 and IPv6: global, unique-local, link-local) and
 * classifies each link by its netlink link type and sysfs, never by its
 * name: a bridge called eth9 is a bridge, a NIC called virbr0 is physical.
 * Nothing is left out here; which entries the oob uses is decided by the
 * selection policy (interface_selection.h) and the reachable framework.
 *
 * HostIdentity says whether two processes share a host for the purpose of
 * loopback and duplicated addresses: the kernel boot id plus the network
 * namespace (two namespaces on one machine are two hosts).
 */
#ifndef ORCA_INTERFACES_H
#define ORCA_INTERFACES_H

#include <orca/export.h>
#include <orca/ip_address.h>
#include <orca/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orca::net {

enum class InterfaceKind {
  Loopback,
  Physical,
  Wireless,
  Bridge,
  Veth,
  Vlan,
  Bond,
  TunTap,
  Dummy,
  OtherVirtual,
  Unknown,  // a peer's address whose kind was not advertised
};

ORCA_EXPORT std::string_view kind_name(InterfaceKind kind);
ORCA_EXPORT std::optional<InterfaceKind> parse_kind(std::string_view name);

/* What the kernel says about one link, before classification. */
struct ORCA_EXPORT LinkTraits {
  bool loopback_flag = false;    // IFF_LOOPBACK
  std::string link_kind;         // IFLA_INFO_KIND: "bridge", "veth", "vlan", ...
  bool has_device = false;       // sysfs device/ (a bus device behind it)
  bool wireless = false;         // sysfs wireless/ or phy80211/
  bool bridge_dir = false;       // sysfs bridge/
  bool tun_flags = false;        // sysfs tun_flags
};

/* The classification rule: link flags and type first, sysfs after. */
ORCA_EXPORT InterfaceKind classify_link(const LinkTraits& traits);
/* Whether the loopback flag and link kind alone decide classify_link,
 * whatever sysfs would say: then a scan need not look there. */
ORCA_EXPORT bool kernel_decides_kind(const LinkTraits& traits);

struct ORCA_EXPORT LinkInfo {
  std::string name;
  int index = 0;
  bool up = false;             // IFF_UP
  bool running = false;        // IFF_RUNNING: carrier present
  bool loopback = false;
  bool point_to_point = false;
  unsigned mtu = 0;
  std::optional<std::uint64_t> speed_mbps;  // when the driver reports it
  InterfaceKind kind = InterfaceKind::OtherVirtual;
  std::string pci_bus_id;              // physical NICs, when hwloc sees them
  std::optional<int> numa_node;        // likewise
};

struct ORCA_EXPORT InterfaceAddress {
  LinkInfo link;
  IpAddress address;     // IPv6 link-local carries the link index as scope
  int prefix_length = 0;
  bool tentative = false;  // IPv6 duplicate address detection not finished

  /* "10.0.0.1/24" */
  std::string address_text() const;
};

class ORCA_EXPORT InterfaceInventory {
 public:
  InterfaceInventory() = default;
  InterfaceInventory(std::vector<LinkInfo> links, std::vector<InterfaceAddress> entries)
      : links_(std::move(links)), entries_(std::move(entries)) {}

  /* Reads this network namespace. Errors: netlink unavailable. */
  static Result<InterfaceInventory> scan();

  /* One per (interface, address), in kernel link order. */
  const std::vector<InterfaceAddress>& entries() const noexcept { return entries_; }
  std::vector<InterfaceAddress>& entries() noexcept { return entries_; }
  /* Every link, with or without addresses. */
  const std::vector<LinkInfo>& links() const noexcept { return links_; }
  std::vector<LinkInfo>& links() noexcept { return links_; }

  /* Whether `address` is one of this host's own addresses. */
  bool owns(const IpAddress& address) const noexcept;
  /* "lo 127.0.0.1/8, eth0 10.0.0.1/24, ..." for error messages. */
  std::string describe() const;

 private:
  std::vector<LinkInfo> links_;
  std::vector<InterfaceAddress> entries_;
};

struct ORCA_EXPORT HostIdentity {
  std::string boot_id;           // /proc/sys/kernel/random/boot_id
  std::uint64_t netns_device = 0;  // stat(/proc/self/ns/net)
  std::uint64_t netns_inode = 0;

  /* This process's identity. */
  static Result<HostIdentity> current();
  /* "<boot id>-<device>-<inode>", the form carried in contact URIs. */
  std::string to_string() const;
  static std::optional<HostIdentity> parse(std::string_view text);

  friend bool operator==(const HostIdentity&, const HostIdentity&) = default;
};

}  // namespace orca::net

#endif  // ORCA_INTERFACES_H
