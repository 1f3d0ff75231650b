// oob/tcp's variables, read once in open().
#ifndef ORCA_COMPONENTS_OOB_TCP_CONFIG_H
#define ORCA_COMPONENTS_OOB_TCP_CONFIG_H

#include "port_ranges.h"

#include <orca/mca_component.h>
#include <orca/oob_engine.h>
#include <orca/oob_interface_lists.h>

#include <chrono>
#include <string>
#include <vector>

namespace orca::oob::tcp {

/* The variable table, for register_vars: oob/tcp's own rows and the
 * stream engine's (engine_variable_decls), all oob_tcp_*; every numeric
 * row has a range. */
const std::vector<orca_mca_var_decl>& variables();

struct TcpConfig {
  bool listen_wildcard = false;
  bool ipv4 = true;
  bool ipv6 = true;
  std::vector<PortRange> ports_v4;  // empty: the kernel picks
  std::vector<PortRange> ports_v6;
  bool static_ports = false;        // ports_* came from the static variables
  std::chrono::milliseconds stagger{250};
  std::chrono::milliseconds connect_timeout{5000};
  int retries = 3;
  std::chrono::milliseconds retry_backoff{200};
  int keepalive_time = 30;
  int keepalive_interval = 5;
  int keepalive_probes = 3;
  /* TCP_USER_TIMEOUT; 0: heartbeat x heartbeat_misses (none when the
   * heartbeat is off), so unacknowledged data fails as fast as silence. */
  std::chrono::milliseconds user_timeout{0};
  EngineConfig engine;  // message size, queue, heartbeat, handshake timeout
  InterfaceLists interfaces;  // oob_tcp_if_include / oob_tcp_if_exclude, for the host to apply
};

/* Reads the variables through the component context; the variable system
 * has already held each value to its declared range. Errors (their "why"
 * is the text for the C boundary): a variable that cannot be read or does
 * not fit its field ("unusable-var", naming oob_tcp_<name>), static and
 * dynamic ports both set, a bad port range. */
Result<TcpConfig> read_config(const orca_mca_context& context);

}  // namespace orca::oob::tcp

#endif
