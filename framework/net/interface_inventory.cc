// InterfaceInventory::scan: links and addresses from rtnetlink, kinds from
// the link type and sysfs.
#include <orca/interfaces.h>
#include <orca/netlink.h>
#include <orca/unique_fd.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <charconv>
#include <fstream>
#include <map>

namespace orca::net {

std::string InterfaceAddress::address_text() const {
  return address.to_string() + "/" + std::to_string(prefix_length);
}

bool InterfaceInventory::owns(const IpAddress& address) const noexcept {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const InterfaceAddress& e) { return e.address.same_address(address); });
}

std::string InterfaceInventory::describe() const {
  std::string out;
  for (const auto& link : links_) {
    std::string addrs;
    for (const auto& e : entries_) {
      if (e.link.index == link.index) addrs += (addrs.empty() ? "" : " ") + e.address_text();
    }
    out += (out.empty() ? "" : ", ") + link.name + " (" + (addrs.empty() ? "no address" : addrs) + ")";
  }
  return out.empty() ? "(no interfaces)" : out;
}

namespace {

std::string sysfs_path(const std::string& ifname, const char* leaf) {
  return "/sys/class/net/" + ifname + "/" + leaf;
}

bool sysfs_exists(const std::string& ifname, const char* leaf) {
  struct stat st {};
  return ::stat(sysfs_path(ifname, leaf).c_str(), &st) == 0;
}

// A plain read: sysfs answers EINVAL for the speed of a virtual link, and
// a stream turns that into an exception it then swallows, on every link
// of every scan (a daemon's start-up scans twice).
std::optional<long long> sysfs_number(const std::string& ifname, const char* leaf) {
  const UniqueFd fd(::open(sysfs_path(ifname, leaf).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  char buf[32];
  ssize_t n;
  do {
    n = ::read(fd.get(), buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(buf, &end, 10);
  if (end == buf || errno != 0) return std::nullopt;
  return v;
}

// Adds what sysfs knows, but only when sysfs shows this namespace: after a
// bare setns() it still shows the namespace that mounted it, and then an
// interface of the same name may be another one (checked by ifindex).
// Only what can matter is looked up: sysfs lookups are a daemon's dearest
// per-link cost (seven path walks a link; a namespace host's lo and veth
// cost about 90 us of its start-up). Loopback has neither a class to learn
// nor a speed; a link type the kernel names decides the class alone.
void add_sysfs_traits(LinkInfo& link, LinkTraits& traits) {
  if (traits.loopback_flag) return;
  const auto index = sysfs_number(link.name, "ifindex");
  if (!index || *index != link.index) return;
  if (!kernel_decides_kind(traits)) {
    traits.has_device = sysfs_exists(link.name, "device");
    traits.wireless = sysfs_exists(link.name, "wireless") || sysfs_exists(link.name, "phy80211");
    traits.bridge_dir = sysfs_exists(link.name, "bridge");
    traits.tun_flags = sysfs_exists(link.name, "tun_flags");
  }
  if (auto speed = sysfs_number(link.name, "speed"); speed && *speed > 0)
    link.speed_mbps = static_cast<std::uint64_t>(*speed);
}

LinkInfo parse_link(const nlmsghdr* h) {
  const auto* ifi = static_cast<const ifinfomsg*>(NLMSG_DATA(h));
  LinkInfo link;
  LinkTraits traits;
  link.index = ifi->ifi_index;
  link.up = ifi->ifi_flags & IFF_UP;
  link.running = ifi->ifi_flags & IFF_RUNNING;
  link.loopback = ifi->ifi_flags & IFF_LOOPBACK;
  link.point_to_point = ifi->ifi_flags & IFF_POINTOPOINT;
  traits.loopback_flag = link.loopback;
  for_each_attribute(IFLA_RTA(ifi), IFLA_PAYLOAD(h), [&](std::uint16_t type, const void* data, size_t len) {
    if (type == IFLA_IFNAME) {
      link.name.assign(static_cast<const char*>(data), strnlen(static_cast<const char*>(data), len));
    } else if (type == IFLA_MTU && len >= sizeof(std::uint32_t)) {
      link.mtu = *static_cast<const std::uint32_t*>(data);
    } else if (type == IFLA_LINKINFO) {
      for_each_attribute(static_cast<const rtattr*>(data), len, [&](std::uint16_t t, const void* d, size_t l) {
        if (t == IFLA_INFO_KIND) traits.link_kind.assign(static_cast<const char*>(d), strnlen(static_cast<const char*>(d), l));
      });
    }
  });
  add_sysfs_traits(link, traits);
  link.kind = classify_link(traits);
  return link;
}

struct RawAddress {
  int index;
  IpAddress address;
  int prefix_length;
  bool tentative;
};

std::optional<RawAddress> parse_address(const nlmsghdr* h) {
  const auto* ifa = static_cast<const ifaddrmsg*>(NLMSG_DATA(h));
  if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6) return std::nullopt;
  const Family family = ifa->ifa_family == AF_INET ? Family::V4 : Family::V6;
  const size_t want = family == Family::V4 ? 4 : 16;
  std::optional<IpAddress> local, address;
  std::uint32_t flags = ifa->ifa_flags;
  for_each_attribute(IFA_RTA(ifa), IFA_PAYLOAD(h), [&](std::uint16_t type, const void* data, size_t len) {
    if ((type == IFA_LOCAL || type == IFA_ADDRESS) && len == want) {
      (type == IFA_LOCAL ? local : address) = IpAddress(family, static_cast<const std::uint8_t*>(data));
    } else if (type == IFA_FLAGS && len >= sizeof(std::uint32_t)) {
      flags = *static_cast<const std::uint32_t*>(data);
    }
  });
  // On point-to-point links IFA_ADDRESS is the far end; IFA_LOCAL is ours.
  std::optional<IpAddress> mine = local ? local : address;
  if (!mine) return std::nullopt;
  if (mine->is_link_local() && family == Family::V6) mine->set_scope_id(ifa->ifa_index);
  return RawAddress{static_cast<int>(ifa->ifa_index), *mine, ifa->ifa_prefixlen,
                    (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)) != 0};
}

}  // namespace

Result<InterfaceInventory> InterfaceInventory::scan() {
  auto sock = NetlinkSocket::open();
  if (!sock) return sock.error();

  std::vector<LinkInfo> links;
  NetlinkRequest link_req(RTM_GETLINK, NLM_F_DUMP);
  link_req.payload<ifinfomsg>()->ifi_family = AF_UNSPEC;
  // Without each link's counters (IFLA_STATS, IFLA_STATS64, IPv6's):
  // nothing here reads them, and the kernel gathers them per link, per
  // CPU, for every daemon of every job. A kernel without the mask ignores it.
  const std::uint32_t skip_stats = RTEXT_FILTER_SKIP_STATS;
  link_req.add_attribute(IFLA_EXT_MASK, &skip_stats, sizeof skip_stats);
  if (Status st = sock->exchange(link_req, [&](const nlmsghdr* h) {
        if (h->nlmsg_type == RTM_NEWLINK) links.push_back(parse_link(h));
      });
      !st)
    return st.error();

  std::vector<RawAddress> raw;
  NetlinkRequest addr_req(RTM_GETADDR, NLM_F_DUMP);
  addr_req.payload<ifaddrmsg>()->ifa_family = AF_UNSPEC;
  if (Status st = sock->exchange(addr_req, [&](const nlmsghdr* h) {
        if (h->nlmsg_type != RTM_NEWADDR) return;
        if (auto a = parse_address(h)) raw.push_back(*a);
      });
      !st)
    return st.error();

  std::map<int, size_t> by_index;
  for (size_t i = 0; i < links.size(); ++i) by_index[links[i].index] = i;
  std::vector<InterfaceAddress> entries;
  entries.reserve(raw.size());
  // Kernel link order, then IPv4 before IPv6, as the kernel lists them.
  auto position = [&](int index) {
    auto it = by_index.find(index);
    return it == by_index.end() ? links.size() : it->second;
  };
  std::stable_sort(raw.begin(), raw.end(),
                   [&](const RawAddress& a, const RawAddress& b) { return position(a.index) < position(b.index); });
  for (const auto& r : raw) {
    auto it = by_index.find(r.index);
    if (it == by_index.end()) continue;  // the link vanished between the two dumps
    entries.push_back(InterfaceAddress{links[it->second], r.address, r.prefix_length, r.tentative});
  }
  return InterfaceInventory(std::move(links), std::move(entries));
}

Result<HostIdentity> HostIdentity::current() {
  HostIdentity id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  if (!(in >> id.boot_id)) {
    return Message("net", "host-identity", {{"what", "/proc/sys/kernel/random/boot_id"}, {"why", "cannot be read"}});
  }
  struct stat st {};
  if (::stat("/proc/self/ns/net", &st) != 0) {
    return Message("net", "host-identity", {{"what", "/proc/self/ns/net"}, {"why", "cannot be read"}});
  }
  id.netns_device = st.st_dev;
  id.netns_inode = st.st_ino;
  return id;
}

std::string HostIdentity::to_string() const {
  return boot_id + "-" + std::to_string(netns_device) + "-" + std::to_string(netns_inode);
}

std::optional<HostIdentity> HostIdentity::parse(std::string_view text) {
  const size_t b = text.rfind('-');
  if (b == std::string_view::npos || b == 0) return std::nullopt;
  const size_t a = text.rfind('-', b - 1);
  if (a == std::string_view::npos || a == 0) return std::nullopt;
  HostIdentity id;
  id.boot_id = std::string(text.substr(0, a));
  // Plain decimal digits only: no sign, no space.
  auto number = [](std::string_view digits, std::uint64_t* out) {
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
  };
  if (!number(text.substr(a + 1, b - a - 1), &id.netns_device) || !number(text.substr(b + 1), &id.netns_inode))
    return std::nullopt;
  return id;
}

}  // namespace orca::net
