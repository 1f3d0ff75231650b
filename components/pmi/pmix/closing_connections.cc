// ClosingConnections: the kernel's TCP table, read for half-closed
// connections to libpmix's port.
#include "closing_connections.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace orca::pmi {

namespace {

// /proc/net/tcp's states (include/net/tcp_states.h).
constexpr unsigned kFinWait1 = 0x04;
constexpr unsigned kFinWait2 = 0x05;
constexpr unsigned kCloseWait = 0x08;

std::optional<unsigned> hex(std::string_view text) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// "0100007F:97C9" (address:port, hex): the port.
std::optional<unsigned> port_of(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return hex(address.substr(colon + 1));
}

// The next field of `line` from `at`, skipping blanks.
std::string_view field(std::string_view line, std::size_t& at) {
  while (at < line.size() && line[at] == ' ') ++at;
  const std::size_t start = at;
  while (at < line.size() && line[at] != ' ') ++at;
  return line.substr(start, at - start);
}

}  // namespace

std::optional<ServerPort> server_port(std::string_view uri) {
  for (const auto& [scheme, ipv6] : {std::pair{std::string_view("tcp4://"), false}, std::pair{std::string_view("tcp6://"), true}}) {
    const auto at = uri.find(scheme);
    if (at == std::string_view::npos) continue;
    const std::string_view rest = uri.substr(at + scheme.size());
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view digits = rest.substr(colon + 1);
    if (const auto end = digits.find_first_not_of("0123456789"); end != std::string_view::npos) digits = digits.substr(0, end);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || digits.empty() || port == 0 || port > 65535) return std::nullopt;
    return ServerPort{static_cast<std::uint16_t>(port), ipv6};
  }
  return std::nullopt;
}

std::size_t half_closed(std::string_view table, std::uint16_t port) {
  std::size_t count = 0;
  while (!table.empty()) {
    const auto eol = table.find('\n');
    const std::string_view line = table.substr(0, eol);
    table = eol == std::string_view::npos ? std::string_view() : table.substr(eol + 1);
    std::size_t at = 0;
    const std::string_view slot = field(line, at);
    if (slot.empty() || slot.back() != ':') continue;  // the heading, or not a row
    const auto local = port_of(field(line, at));
    const auto remote = port_of(field(line, at));
    const auto state = hex(field(line, at));
    if (!local || !remote || !state) continue;
    if ((*remote == port && (*state == kFinWait1 || *state == kFinWait2)) || (*local == port && *state == kCloseWait)) {
      ++count;
    }
  }
  return count;
}

std::optional<std::size_t> half_closed_now(ServerPort server) {
  std::ifstream in(server.ipv6 ? "/proc/self/net/tcp6" : "/proc/self/net/tcp");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return half_closed(text.str(), server.port);
}

}  // namespace orca::pmi
