// oob/tcp's part of a contact URI: every address it listens on, with its
// prefix length and kind, so the connecting side can run the reachable
// framework on them:
//   tcp=10.0.0.1/24/physical/5000,[fd00::1]/64/veth/5001,[fe80::1%2]/64/veth/5002
// The parser refuses anything else with a reason; it never crashes.
#ifndef ORCA_COMPONENTS_OOB_TCP_CONTACT_H
#define ORCA_COMPONENTS_OOB_TCP_CONTACT_H

#include <orca/interfaces.h>
#include <orca/ip_address.h>
#include <orca/result.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orca::oob::tcp {

struct Endpoint {
  net::IpAddress address;
  int prefix_length = 0;
  net::InterfaceKind kind = net::InterfaceKind::Unknown;
  std::uint16_t port = 0;

  /* "10.0.0.1:5000" or "[fd00::1]:5000": how logs and labels name it. */
  std::string socket_text() const;
};

/* "tcp=<endpoint>,<endpoint>..." */
std::string encode_contact(const std::vector<Endpoint>& endpoints);
/* Parses the part after "tcp=". Errors name the bad item. */
Result<std::vector<Endpoint>> parse_contact(std::string_view part);

}  // namespace orca::oob::tcp

#endif
