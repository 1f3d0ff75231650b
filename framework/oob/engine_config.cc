// The stream engine's variables, declared by each stream component under
// its own names (oob_tcp_heartbeat, oob_usock_heartbeat, ...).
#include <orca/mca_context_reader.h>
#include <orca/oob_engine.h>

namespace orca::oob {

namespace {
// Ranges keep what is derived from them in range too: heartbeat x misses
// fits any clock arithmetic, max_msg_size a frame's 32-bit length.
const orca_mca_var_decl kEngineDecls[] = {
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
    {.name = "handshake_patience",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "60000",
     .level = 6,
     .description = "Milliseconds past handshake_timeout that a connection waits for its handshake while the "
                    "peer process, of this user, runs (usock: the kernel names it; a stopped or gone one, another "
                    "user's, and any TCP peer are given up at handshake_timeout): a parent busy with a thousand "
                    "daemons starting is not a dead one. 0 gives up at handshake_timeout always",
     .min_value = "0",
     .max_value = "3600000"},
    {.name = "max_pending",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "256",
     .level = 5,
     .description = "Handshake slots: connections that have not yet proven the job secret, in all. A new connection "
                    "that finds none free takes the slot of the oldest handshake of the source holding the most",
     .min_value = "1",
     .max_value = "65536"},
    {.name = "pending_reserve",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "64",
     .level = 5,
     .description = "Of max_pending, the handshake slots only sources that completed a handshake in this job (a "
                    "daemon reconnecting) may use; other sources share the rest. Must be below max_pending",
     .min_value = "0",
     .max_value = "65535"},
    {.name = "max_pending_per_source",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "32",
     .level = 5,
     .description = "Handshake slots one source (a remote address; for usock a process) may hold; a new connection "
                    "beyond this takes the slot of that source's oldest handshake",
     .min_value = "1",
     .max_value = "65536"},
};
}  // namespace

std::span<const orca_mca_var_decl> engine_variable_decls() { return kEngineDecls; }

Result<EngineConfig> read_engine_config(const orca_mca_context& context, std::string prefix) {
  EngineConfig cfg;
  const mca::ContextReader in(context, prefix);
  for (const auto& [name, target] : {std::pair{"heartbeat", &cfg.heartbeat},
                                     std::pair{"handshake_timeout", &cfg.handshake_timeout},
                                     std::pair{"handshake_patience", &cfg.handshake_patience}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"max_msg_size", &cfg.max_message_size},
                                     std::pair{"send_queue_limit", &cfg.send_queue_limit}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  for (const auto& [name, target] : {std::pair{"max_pending", &cfg.max_pending},
                                     std::pair{"pending_reserve", &cfg.pending_reserve},
                                     std::pair{"max_pending_per_source", &cfg.max_pending_per_source}}) {
    if (Status st = in.read(name, *target); !st) return st.error();
  }
  if (cfg.pending_reserve >= cfg.max_pending) {
    // New sources (a daemon's first connection among them) need a slot.
    const std::string reserve = prefix + "pending_reserve", total = prefix + "max_pending";
    return Message("oob", "pending-reserve-too-large",
                   {{"reserve", reserve},
                    {"total", total},
                    {"why", reserve + " (" + std::to_string(cfg.pending_reserve) + ") is not below " + total + " (" +
                                std::to_string(cfg.max_pending) + ")"}});
  }
  if (Status st = in.read("heartbeat_misses", cfg.heartbeat_misses); !st) return st.error();
  cfg.variable_prefix = std::move(prefix);
  return cfg;
}

}  // namespace orca::oob
