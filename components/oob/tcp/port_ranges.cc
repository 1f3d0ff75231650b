// Port range lists.
#include "port_ranges.h"

#include <charconv>
#include <set>

namespace orca::oob::tcp {

Result<std::vector<PortRange>> parse_port_ranges(std::string_view text, const std::string& variable) {
  std::vector<PortRange> out;
  if (text.empty()) return out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    auto bad = [&](const std::string& why) {
      return Message("oob", "bad-port-range",
                     {{"variable", variable}, {"entry", std::string(item)},
                      {"why", variable + " entry \"" + std::string(item) + "\": " + why}});
    };
    auto port = [](std::string_view t, std::uint16_t* v) {
      auto [e, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
      return !t.empty() && ec == std::errc() && e == t.data() + t.size() && *v != 0;
    };
    PortRange r;
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      if (!port(item, &r.first)) return bad("not a port 1..65535");
      r.last = r.first;
    } else {
      if (!port(item.substr(0, dash), &r.first) || !port(item.substr(dash + 1), &r.last))
        return bad("not a range a-b of ports 1..65535");
      if (r.last < r.first) return bad("the range ends before it starts");
    }
    out.push_back(r);
  }
  return out;
}

std::vector<std::uint16_t> ports_of(const std::vector<PortRange>& ranges) {
  std::vector<std::uint16_t> out;
  std::set<std::uint16_t> seen;
  for (const auto& r : ranges) {
    for (std::uint32_t p = r.first; p <= r.last; ++p) {
      if (seen.insert(static_cast<std::uint16_t>(p)).second) out.push_back(static_cast<std::uint16_t>(p));
    }
  }
  return out;
}

}  // namespace orca::oob::tcp
