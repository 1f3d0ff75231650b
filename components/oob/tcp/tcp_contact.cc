// The tcp part of contact URIs.
#include "tcp_contact.h"

#include <charconv>

namespace orca::oob::tcp {

std::string Endpoint::socket_text() const {
  const std::string a = address.to_string();
  return (address.family() == net::Family::V6 ? "[" + a + "]" : a) + ":" + std::to_string(port);
}

std::string encode_contact(const std::vector<Endpoint>& endpoints) {
  std::string out = "tcp=";
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const Endpoint& e = endpoints[i];
    if (i) out += ',';
    std::string a = e.address.to_string();
    if (e.address.family() == net::Family::V6) {
      if (e.address.scope_id() != 0) a += "%" + std::to_string(e.address.scope_id());
      a = "[" + a + "]";
    }
    out += a + "/" + std::to_string(e.prefix_length) + "/" + std::string(net::kind_name(e.kind)) + "/" +
           std::to_string(e.port);
  }
  return out;
}

namespace {

template <typename T>
bool number(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

Result<Endpoint> parse_endpoint(std::string_view item) {
  auto bad = [&](const std::string& why) {
    return Message("oob", "bad-uri", {{"uri", "tcp=..." + std::string(item.substr(0, 100))}, {"why", why}});
  };
  Endpoint e;
  std::string_view rest;
  std::string addr_text;
  if (!item.empty() && item.front() == '[') {
    const size_t close = item.find(']');
    if (close == std::string_view::npos) return bad("an IPv6 address without ']'");
    addr_text = std::string(item.substr(1, close - 1));
    rest = item.substr(close + 1);
  } else {
    const size_t slash = item.find('/');
    if (slash == std::string_view::npos) return bad("no /prefix/kind/port after the address");
    addr_text = std::string(item.substr(0, slash));
    rest = item.substr(slash);
  }
  std::string why;
  auto address = net::IpAddress::parse(addr_text, &why);
  if (!address) return bad(why);
  // A numeric scope from another host means nothing here; keep the number
  // only as a marker that the address is link-local.
  e.address = *address;
  // rest is "/<prefix>/<kind>/<port>"
  if (rest.empty() || rest.front() != '/') return bad("no /prefix/kind/port after the address");
  rest.remove_prefix(1);
  // The kind may itself contain '/' ("tun/tap"): the port is after the last.
  const size_t s1 = rest.find('/');
  const size_t s2 = rest.rfind('/');
  if (s1 == std::string_view::npos || s2 == s1) return bad("expected <address>/<prefix>/<kind>/<port>");
  const int max_prefix = e.address.family() == net::Family::V4 ? 32 : 128;
  if (!number(rest.substr(0, s1), &e.prefix_length) || e.prefix_length < 0 || e.prefix_length > max_prefix)
    return bad("the prefix length is not 0.." + std::to_string(max_prefix));
  auto kind = net::parse_kind(rest.substr(s1 + 1, s2 - s1 - 1));
  if (!kind) return bad("unknown interface kind");
  e.kind = *kind;
  if (!number(rest.substr(s2 + 1), &e.port) || e.port == 0) return bad("the port is not 1..65535");
  return e;
}

}  // namespace

Result<std::vector<Endpoint>> parse_contact(std::string_view part) {
  std::vector<Endpoint> out;
  if (part.empty()) return Message("oob", "bad-uri", {{"uri", "tcp="}, {"why", "no address"}});
  size_t pos = 0;
  while (pos <= part.size()) {
    size_t end = part.find(',', pos);
    if (end == std::string_view::npos) end = part.size();
    auto e = parse_endpoint(part.substr(pos, end - pos));
    if (!e) return e.error();
    out.push_back(e.value());
    if (out.size() > 4096) return Message("oob", "bad-uri", {{"uri", "tcp=..."}, {"why", "too many addresses"}});
    pos = end + 1;
  }
  return out;
}

}  // namespace orca::oob::tcp
