// oob/tcp variables: the table and how they become a TcpConfig.
#include "tcp_config.h"

#include <climits>
#include <cstdint>
#include <iterator>

namespace orca::oob::tcp {

const orca_mca_var_decl kVariables[] = {
    {"listen_wildcard", ORCA_MCA_VAR_BOOL, "false", 5,
     "Listen on the wildcard address (0.0.0.0 / ::) instead of one socket per selected address", nullptr, nullptr, 0},
    {"ipv4", ORCA_MCA_VAR_BOOL, "true", 4, "Use IPv4 addresses", nullptr, nullptr, 0},
    {"ipv6", ORCA_MCA_VAR_BOOL, "true", 4, "Use IPv6 addresses (global, unique-local and link-local)", nullptr,
     nullptr, 0},
    {"static_ipv4_ports", ORCA_MCA_VAR_STRING, "", 4,
     "IPv4 ports to listen on, \"a-b,c\"; every process needs one free port. Exclusive with the dynamic ranges",
     nullptr, nullptr, 0},
    {"static_ipv6_ports", ORCA_MCA_VAR_STRING, "", 4, "IPv6 ports to listen on, \"a-b,c\" (see static_ipv4_ports)",
     nullptr, nullptr, 0},
    {"dynamic_ipv4_ports", ORCA_MCA_VAR_STRING, "", 4,
     "IPv4 port range to pick a free listening port from, \"a-b,c\"; empty: the kernel picks", nullptr, nullptr, 0},
    {"dynamic_ipv6_ports", ORCA_MCA_VAR_STRING, "", 4, "IPv6 port range to pick from (see dynamic_ipv4_ports)", nullptr,
     nullptr, 0},
    {"connect_stagger", ORCA_MCA_VAR_INT, "250", 5,
     "Milliseconds before the next candidate address starts while earlier ones are still connecting (RFC 8305)",
     nullptr, nullptr, 0},
    {"connect_timeout", ORCA_MCA_VAR_INT, "5000", 4,
     "Milliseconds one round of connection attempts to a peer may take before it is abandoned", nullptr, nullptr, 0},
    {"retries", ORCA_MCA_VAR_INT, "3", 4, "Rounds of connection attempts after the first before a peer is reported lost",
     nullptr, nullptr, 0},
    {"retry_backoff", ORCA_MCA_VAR_INT, "200", 6, "Milliseconds before the first retry; doubles every round", nullptr,
     nullptr, 0},
    {"max_msg_size", ORCA_MCA_VAR_SIZE, "64M", 4,
     "Largest message accepted; a frame announcing more closes its connection before anything is allocated", nullptr,
     nullptr, 0},
    {"send_queue_limit", ORCA_MCA_VAR_SIZE, "256M", 5,
     "Bytes queued per peer (unsent and unacknowledged) before send() refuses more (back-pressure)", nullptr, nullptr,
     0},
    {"keepalive_time", ORCA_MCA_VAR_INT, "30", 6, "Seconds of idleness before TCP keepalive probes start (TCP_KEEPIDLE)",
     nullptr, nullptr, 0},
    {"keepalive_intvl", ORCA_MCA_VAR_INT, "5", 6, "Seconds between TCP keepalive probes (TCP_KEEPINTVL)", nullptr,
     nullptr, 0},
    {"keepalive_probes", ORCA_MCA_VAR_INT, "3", 6, "Unanswered keepalive probes before TCP drops a connection (TCP_KEEPCNT)",
     nullptr, nullptr, 0},
    {"heartbeat", ORCA_MCA_VAR_INT, "2000", 5,
     "Milliseconds between application heartbeats on an idle connection; 0 disables them", nullptr, nullptr, 0},
    {"heartbeat_misses", ORCA_MCA_VAR_INT, "3", 5,
     "Heartbeat periods without a word from the peer before its connection is dropped and retried", nullptr, nullptr,
     0},
    {"handshake_timeout", ORCA_MCA_VAR_INT, "5000", 6, "Milliseconds a new connection may take to authenticate",
     nullptr, nullptr, 0},
};
const size_t kVariableCount = std::size(kVariables);

namespace {

// A value of any length: the buffer grows until it fits (port lists can be long).
Result<std::string> text_of(const orca_mca_context& c, const char* name) {
  for (size_t size = 1024; size <= (1u << 20); size *= 4) {
    std::string buf(size, '\0');
    if (c.get_text(&c, name, buf.data(), buf.size()) == ORCA_MCA_OK) return std::string(buf.c_str());
  }
  return Message("oob", "bad-tcp-setting", {{"why", std::string("oob_tcp_") + name + " cannot be read (longer than 1 MiB?)"}});
}

// Integer settings that must fit an int: a larger value is an error, not a wrap.
Result<int> small_int_of(const orca_mca_context& c, const char* name) {
  std::int64_t v = 0;
  if (c.get_int(&c, name, &v) != ORCA_MCA_OK) {
    return Message("oob", "bad-tcp-setting", {{"why", std::string("oob_tcp_") + name + " cannot be read"}});
  }
  if (v < INT32_MIN || v > INT32_MAX) {
    return Message("oob", "bad-tcp-setting", {{"why", std::string("oob_tcp_") + name + " is out of range"}});
  }
  return static_cast<int>(v);
}

std::int64_t int_of(const orca_mca_context& c, const char* name) {
  std::int64_t v = 0;
  c.get_int(&c, name, &v);
  return v;
}

}  // namespace

Result<TcpConfig> read_config(const orca_mca_context& c) {
  TcpConfig cfg;
  cfg.listen_wildcard = int_of(c, "listen_wildcard") != 0;
  cfg.ipv4 = int_of(c, "ipv4") != 0;
  cfg.ipv6 = int_of(c, "ipv6") != 0;
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
  cfg.stagger = std::chrono::milliseconds(int_of(c, "connect_stagger"));
  cfg.connect_timeout = std::chrono::milliseconds(int_of(c, "connect_timeout"));
  cfg.retry_backoff = std::chrono::milliseconds(int_of(c, "retry_backoff"));
  struct {
    const char* name;
    int* target;
  } ints[] = {{"retries", &cfg.retries},
              {"keepalive_time", &cfg.keepalive_time},
              {"keepalive_intvl", &cfg.keepalive_interval},
              {"keepalive_probes", &cfg.keepalive_probes},
              {"heartbeat_misses", &cfg.engine.heartbeat_misses}};
  for (auto& [name, target] : ints) {
    auto v = small_int_of(c, name);
    if (!v) return v.error();
    *target = v.value();
  }
  cfg.engine.max_message_size = static_cast<std::uint64_t>(int_of(c, "max_msg_size"));
  cfg.engine.send_queue_limit = static_cast<std::uint64_t>(int_of(c, "send_queue_limit"));
  cfg.engine.heartbeat = std::chrono::milliseconds(int_of(c, "heartbeat"));
  cfg.engine.handshake_timeout = std::chrono::milliseconds(int_of(c, "handshake_timeout"));
  if (cfg.stagger.count() < 0 || cfg.connect_timeout.count() <= 0 || cfg.retries < 0 ||
      cfg.engine.heartbeat_misses < 1 || cfg.engine.handshake_timeout.count() <= 0) {
    return Message("oob", "bad-tcp-setting",
                   {{"why", "oob_tcp_connect_timeout and oob_tcp_handshake_timeout must be positive, "
                            "oob_tcp_connect_stagger and oob_tcp_retries not negative, oob_tcp_heartbeat_misses >= 1"}});
  }
  return cfg;
}

}  // namespace orca::oob::tcp
