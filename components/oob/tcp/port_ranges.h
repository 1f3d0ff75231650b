// Port ranges of oob_tcp_{static,dynamic}_ipv{4,6}_ports: "a-b,c".
#ifndef ORCA_COMPONENTS_OOB_TCP_PORT_RANGES_H
#define ORCA_COMPONENTS_OOB_TCP_PORT_RANGES_H

#include <orca/result.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orca::oob::tcp {

struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;
};

/* "" is no range (let the kernel pick). Errors name `variable`, the entry
 * and what is valid. */
Result<std::vector<PortRange>> parse_port_ranges(std::string_view text, const std::string& variable);

/* Every port of the ranges, in order, without repeats. */
std::vector<std::uint16_t> ports_of(const std::vector<PortRange>& ranges);

}  // namespace orca::oob::tcp

#endif
