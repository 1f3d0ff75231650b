// oob/tcp variables: the table and how they become a TcpConfig.
#include "tcp_config.h"

#include <orca/mca_context_reader.h>

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>

namespace orca::oob::tcp {

// Every numeric variable declares its range: the variable system refuses a
// value outside it from every source, and orca_info shows it. The ranges
// also keep what the module derives from them (heartbeat x heartbeat_misses
// as TCP_USER_TIMEOUT, retry_backoff doubled up to 2^10 times) in range.
namespace {
const orca_mca_var_decl kOwnVariables[] = {
    {.name = "listen_wildcard",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "false",
     .level = 5,
     .description = "Listen on the wildcard address (0.0.0.0 / ::) instead of one socket per selected address"},
    {.name = "ipv4", .type = ORCA_MCA_VAR_BOOL, .default_value = "true", .level = 4, .description = "Use IPv4 addresses"},
    {.name = "ipv6",
     .type = ORCA_MCA_VAR_BOOL,
     .default_value = "true",
     .level = 4,
     .description = "Use IPv6 addresses (global, unique-local and link-local)"},
    {.name = "static_ipv4_ports",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description =
         "IPv4 ports to listen on, \"a-b,c\"; every process needs one free port. Exclusive with the dynamic ranges"},
    {.name = "static_ipv6_ports",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description = "IPv6 ports to listen on, \"a-b,c\" (see static_ipv4_ports)"},
    {.name = "dynamic_ipv4_ports",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description = "IPv4 port range to pick a free listening port from, \"a-b,c\"; empty: the kernel picks"},
    {.name = "dynamic_ipv6_ports",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 4,
     .description = "IPv6 port range to pick from (see dynamic_ipv4_ports)"},
    {.name = "connect_stagger",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "250",
     .level = 5,
     .description =
         "Milliseconds before the next candidate address starts while earlier ones are still connecting (RFC 8305)",
     .min_value = "0",
     .max_value = "60000"},
    {.name = "connect_timeout",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "5000",
     .level = 4,
     .description = "Milliseconds one round of connection attempts to a peer may take before it is abandoned",
     .min_value = "1",
     .max_value = "3600000"},
    {.name = "retries",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "3",
     .level = 4,
     .description = "Rounds of connection attempts after the first before a peer is reported lost",
     .min_value = "0",
     .max_value = "1000"},
    {.name = "retry_backoff",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "200",
     .level = 6,
     .description = "Milliseconds before the first retry; doubles every round",
     .min_value = "1",
     .max_value = "600000"},
    {.name = "keepalive_time",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "30",
     .level = 6,
     .description = "Seconds of idleness before TCP keepalive probes start (TCP_KEEPIDLE)",
     .min_value = "1",
     .max_value = "32767"},
    {.name = "keepalive_intvl",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "5",
     .level = 6,
     .description = "Seconds between TCP keepalive probes (TCP_KEEPINTVL)",
     .min_value = "1",
     .max_value = "32767"},
    {.name = "keepalive_probes",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "3",
     .level = 6,
     .description = "Unanswered keepalive probes before TCP drops a connection (TCP_KEEPCNT)",
     .min_value = "1",
     .max_value = "127"},
    {.name = "user_timeout",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "0",
     .level = 6,
     .description = "TCP_USER_TIMEOUT in milliseconds: unacknowledged data older than this closes the connection; "
                    "0: heartbeat x heartbeat_misses",
     .min_value = "0",
     .max_value = "3600000"},
};
}  // namespace

const std::vector<orca_mca_var_decl>& variables() {
  // Its own rows, then the stream engine's under the same prefix.
  static const std::vector<orca_mca_var_decl> all = [] {
    std::vector<orca_mca_var_decl> v(std::begin(kOwnVariables), std::end(kOwnVariables));
    const auto engine = engine_variable_decls();
    v.insert(v.end(), engine.begin(), engine.end());
    return v;
  }();
  return all;
}

Result<TcpConfig> read_config(const orca_mca_context& c) {
  TcpConfig cfg;
  auto engine = read_engine_config(c, "oob_tcp_");
  if (!engine) return engine.error();
  cfg.engine = std::move(engine.value());
  const mca::ContextReader in(c, "oob_tcp_");
  auto interfaces = InterfaceLists::read(in);
  if (!interfaces) return interfaces.error();
  cfg.interfaces = interfaces.value();
  for (const auto& [name, target] : {std::pair{"listen_wildcard", &cfg.listen_wildcard}, std::pair{"ipv4", &cfg.ipv4},
                                     std::pair{"ipv6", &cfg.ipv6}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  std::string texts[4];
  const char* const port_vars[4] = {"static_ipv4_ports", "static_ipv6_ports", "dynamic_ipv4_ports", "dynamic_ipv6_ports"};
  for (int i = 0; i < 4; ++i) {
    auto t = in.text(port_vars[i]);
    if (!t) return t.error();
    texts[i] = std::move(t.value());
  }
  const std::string &s4 = texts[0], &s6 = texts[1], &d4 = texts[2], &d6 = texts[3];
  if ((!s4.empty() || !s6.empty()) && (!d4.empty() || !d6.empty())) {
    return Message("oob", "static-and-dynamic-ports",
                   {{"why", "static ports (oob_tcp_static_ipv*_ports) and dynamic ranges (oob_tcp_dynamic_ipv*_ports) "
                            "are both set; use one kind"}});
  }
  cfg.static_ports = !s4.empty() || !s6.empty();
  auto v4 = parse_port_ranges(cfg.static_ports ? s4 : d4,
                              cfg.static_ports ? "oob_tcp_static_ipv4_ports" : "oob_tcp_dynamic_ipv4_ports");
  if (!v4) return v4.error();
  auto v6 = parse_port_ranges(cfg.static_ports ? s6 : d6,
                              cfg.static_ports ? "oob_tcp_static_ipv6_ports" : "oob_tcp_dynamic_ipv6_ports");
  if (!v6) return v6.error();
  cfg.ports_v4 = v4.value();
  cfg.ports_v6 = v6.value();

  for (const auto& [name, target] : {std::pair{"connect_stagger", &cfg.stagger},
                                     std::pair{"connect_timeout", &cfg.connect_timeout},
                                     std::pair{"retry_backoff", &cfg.retry_backoff},
                                     std::pair{"user_timeout", &cfg.user_timeout}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"retries", &cfg.retries},
                                     std::pair{"keepalive_time", &cfg.keepalive_time},
                                     std::pair{"keepalive_intvl", &cfg.keepalive_interval},
                                     std::pair{"keepalive_probes", &cfg.keepalive_probes}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  return cfg;
}

}  // namespace orca::oob::tcp
