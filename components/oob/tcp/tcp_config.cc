// oob/tcp variables: the table and how they become a TcpConfig.
#include "tcp_config.h"

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
const orca_mca_var_decl kVariables[] = {
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
    {.name = "max_msg_size",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "64M",
     .level = 4,
     .description =
         "Largest message accepted; a frame announcing more closes its connection before anything is allocated",
     .min_value = "1k",
     .max_value = "1G"},
    {.name = "send_queue_limit",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "256M",
     .level = 5,
     .description = "Bytes queued per peer (unsent and unacknowledged) before send() refuses more (back-pressure)",
     .min_value = "64k",
     .max_value = "64G"},
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
    {.name = "heartbeat",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "500",
     .level = 5,
     .description = "Milliseconds between application heartbeats on an idle connection; 0 disables them",
     .min_value = "0",
     .max_value = "3600000"},
    {.name = "heartbeat_misses",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "4",
     .level = 5,
     .description = "Heartbeat periods without a word from the peer before its connection is dropped and retried: "
                    "silence of heartbeat x heartbeat_misses milliseconds drops the connection",
     .min_value = "1",
     .max_value = "1000"},
    {.name = "handshake_timeout",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "5000",
     .level = 6,
     .description = "Milliseconds a new connection may take to authenticate",
     .min_value = "1",
     .max_value = "3600000"},
    {.name = "max_pending",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "256",
     .level = 5,
     .description = "Connections that have not yet proven the job secret, in all; a new one beyond this is closed at once",
     .min_value = "1",
     .max_value = "65536"},
    {.name = "max_pending_per_source",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "32",
     .level = 5,
     .description = "Connections from one source address that have not yet proven the job secret; beyond this a new "
                    "one from that address is closed at once",
     .min_value = "1",
     .max_value = "65536"},
    {.name = "user_timeout",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "0",
     .level = 6,
     .description = "TCP_USER_TIMEOUT in milliseconds: unacknowledged data older than this closes the connection; "
                    "0: heartbeat x heartbeat_misses",
     .min_value = "0",
     .max_value = "3600000"},
};
const size_t kVariableCount = std::size(kVariables);

namespace {

Message unusable(const char* name, std::string why) {
  const std::string full = std::string("oob_tcp_") + name;
  return Message("mca-var", "unusable-var", {{"name", full}, {"why", full + " " + std::move(why)}});
}

// A value of any length: the buffer grows until it fits (port lists can be long).
Result<std::string> text_of(const orca_mca_context& c, const char* name) {
  for (size_t size = 1024; size <= (1u << 20); size *= 4) {
    std::string buf(size, '\0');
    if (c.get_text(&c, name, buf.data(), buf.size()) == ORCA_MCA_OK) return std::string(buf.c_str());
  }
  return unusable(name, "cannot be read as text (no such variable, or longer than 1 MiB)");
}

// The one way an integer setting is read: a failed read is an error, never
// a silent 0, and a value that does not fit its destination is an error,
// never a wrap. The declared ranges keep real values far inside T.
template <typename T>
Status read_int(const orca_mca_context& c, const char* name, T& target) {
  std::int64_t v = 0;
  if (c.get_int(&c, name, &v) != ORCA_MCA_OK) {
    return unusable(name, "cannot be read as a number (no such variable, or its value is above 2^63-1)");
  }
  if (!std::in_range<T>(v)) {
    return unusable(name, "is " + std::to_string(v) + ", outside what oob/tcp can hold (" +
                              std::to_string(std::numeric_limits<T>::min()) + " to " +
                              std::to_string(std::numeric_limits<T>::max()) + ")");
  }
  target = static_cast<T>(v);
  return {};
}

Status read_bool(const orca_mca_context& c, const char* name, bool& target) {
  int v = 0;
  if (Status st = read_int(c, name, v); !st) return st;
  target = v != 0;
  return {};
}

Status read_ms(const orca_mca_context& c, const char* name, std::chrono::milliseconds& target) {
  std::chrono::milliseconds::rep v = 0;
  if (Status st = read_int(c, name, v); !st) return st;
  target = std::chrono::milliseconds(v);
  return {};
}

}  // namespace

Result<TcpConfig> read_config(const orca_mca_context& c) {
  TcpConfig cfg;
  for (const auto& [name, target] : {std::pair{"listen_wildcard", &cfg.listen_wildcard}, std::pair{"ipv4", &cfg.ipv4},
                                     std::pair{"ipv6", &cfg.ipv6}}) {
    if (Status st = read_bool(c, name, *target); !st) return st.error();
  }
  std::string texts[4];
  const char* const port_vars[4] = {"static_ipv4_ports", "static_ipv6_ports", "dynamic_ipv4_ports", "dynamic_ipv6_ports"};
  for (int i = 0; i < 4; ++i) {
    auto t = text_of(c, port_vars[i]);
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
                                     std::pair{"heartbeat", &cfg.engine.heartbeat},
                                     std::pair{"handshake_timeout", &cfg.engine.handshake_timeout},
                                     std::pair{"user_timeout", &cfg.user_timeout}}) {
    if (Status st = read_ms(c, name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"retries", &cfg.retries},
                                     std::pair{"keepalive_time", &cfg.keepalive_time},
                                     std::pair{"keepalive_intvl", &cfg.keepalive_interval},
                                     std::pair{"keepalive_probes", &cfg.keepalive_probes},
                                     std::pair{"heartbeat_misses", &cfg.engine.heartbeat_misses}}) {
    if (Status st = read_int(c, name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"max_msg_size", &cfg.engine.max_message_size},
                                     std::pair{"send_queue_limit", &cfg.engine.send_queue_limit}}) {
    if (Status st = read_int(c, name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"max_pending", &cfg.engine.max_pending},
                                     std::pair{"max_pending_per_source", &cfg.engine.max_pending_per_source}}) {
    if (Status st = read_int(c, name, *target); !st) return st.error();
  }
  cfg.engine.variable_prefix = "oob_tcp_";
  return cfg;
}

}  // namespace orca::oob::tcp
