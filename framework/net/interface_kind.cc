// Interface kinds: names and the classification rule.
#include <orca/interfaces.h>

namespace orca::net {

namespace {
constexpr std::pair<InterfaceKind, std::string_view> kKindNames[] = {
    {InterfaceKind::Loopback, "loopback"},   {InterfaceKind::Physical, "physical"},
    {InterfaceKind::Wireless, "wireless"},   {InterfaceKind::Bridge, "bridge"},
    {InterfaceKind::Veth, "veth"},           {InterfaceKind::Vlan, "vlan"},
    {InterfaceKind::Bond, "bond"},           {InterfaceKind::TunTap, "tun/tap"},
    {InterfaceKind::Dummy, "dummy"},         {InterfaceKind::OtherVirtual, "other-virtual"},
    {InterfaceKind::Unknown, "unknown"},
};
}  // namespace

std::string_view kind_name(InterfaceKind kind) {
  for (const auto& [k, n] : kKindNames) {
    if (k == kind) return n;
  }
  return "unknown";
}

std::optional<InterfaceKind> parse_kind(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

namespace {
// The kernel's own link types that are authoritative: sysfs cannot change them.
std::optional<InterfaceKind> kernel_kind(const LinkTraits& t) {
  if (t.loopback_flag) return InterfaceKind::Loopback;
  static constexpr std::pair<std::string_view, InterfaceKind> kLinkKinds[] = {
      {"bridge", InterfaceKind::Bridge}, {"veth", InterfaceKind::Veth},   {"vlan", InterfaceKind::Vlan},
      {"bond", InterfaceKind::Bond},     {"tun", InterfaceKind::TunTap},  {"dummy", InterfaceKind::Dummy},
  };
  for (const auto& [k, kind] : kLinkKinds) {
    if (t.link_kind == k) return kind;
  }
  return std::nullopt;
}
}  // namespace

bool kernel_decides_kind(const LinkTraits& traits) { return kernel_kind(traits).has_value(); }

InterfaceKind classify_link(const LinkTraits& t) {
  if (auto kind = kernel_kind(t)) return *kind;
  if (t.wireless) return InterfaceKind::Wireless;
  if (t.tun_flags) return InterfaceKind::TunTap;
  if (t.bridge_dir) return InterfaceKind::Bridge;
  if (!t.link_kind.empty()) return InterfaceKind::OtherVirtual;  // macvlan, vxlan, wireguard, ...
  return t.has_device ? InterfaceKind::Physical : InterfaceKind::OtherVirtual;
}

}  // namespace orca::net
