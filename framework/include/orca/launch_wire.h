/*
 * The launcher's own messages: what orcarun and its orcads say to each
 * other, as values with a strict binary codec.
 *
 *   Bootstrap      orcarun (or a parent orcad) -> a new orcad, on its
 *                  standard input: who it is, the job secret, the settings
 *                  to apply, its parent's contact URI. Never on a command
 *                  line.
 *   DaemonReport   orcad -> orcarun, up the routing tree, once it is up:
 *                  its name, host, contact URI and the route its
 *                  connection took.
 *   LaunchCommand  orcarun -> every orcad: the command and where each rank
 *                  runs.
 *   OutputChunk    orcad -> orcarun: bytes a rank wrote on stdout/stderr.
 *   ExitRecord     orcad -> orcarun: how a rank ended.
 *   Teardown       orcarun -> every orcad: stop, with a reason.
 *
 * Encoding: a one-byte kind, then fields in order; integers big-endian;
 * a string or byte field is a u32 length and the bytes; a list is a u32
 * count and its items. Decoding is strict: every length is checked
 * against what remains and against a per-field bound before anything is
 * allocated, trailing bytes are an error, and an error says which field
 * of which message was malformed. These messages travel only between
 * processes that proved the job secret, but a decoder must still cost
 * nothing on a lie.
 */
#ifndef ORCA_LAUNCH_WIRE_H
#define ORCA_LAUNCH_WIRE_H

#include <orca/export.h>
#include <orca/result.h>

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace orca::launch {

/* Bounds a decoder enforces (an encoder refuses to exceed them too). */
inline constexpr std::uint32_t kMaxText = 1u << 20;        // one string field
inline constexpr std::uint32_t kMaxBytes = 16u << 20;      // one byte field (output)
inline constexpr std::uint32_t kMaxItems = 1u << 20;       // one list

struct Bootstrap {
  std::uint32_t job = 0;
  std::uint32_t vpid = 0;        // this daemon's
  std::uint32_t daemons = 0;     // vpids 1..daemons; orcarun is 0
  std::uint32_t parent = 0;      // the vpid it reports to
  std::string parent_uri;
  std::vector<std::uint8_t> secret;
  std::string settings;          // mca::encode_settings text
};

struct DaemonReport {
  std::uint32_t vpid = 0;
  std::string hostname;
  std::string host_identity;
  std::string contact_uri;
  std::string route;             // "tcp: 10.0.0.2:40112 -> 10.0.0.1:5000"
  std::vector<std::string> notes;  // interface summary, refusals, topology
};

struct Placement {
  std::uint32_t rank = 0;
  std::uint32_t daemon = 0;      // the vpid that runs it
  std::uint32_t local_rank = 0;
};

struct LaunchCommand {
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // NAME=VALUE added for every rank
  std::vector<Placement> placements;
  std::uint32_t size = 0;                // ranks in all
};

enum class Stream : std::uint8_t { Stdout = 1, Stderr = 2 };

struct OutputChunk {
  std::uint32_t rank = 0;
  Stream stream = Stream::Stdout;
  bool eof = false;
  std::vector<std::uint8_t> bytes;
};

struct ExitRecord {
  std::uint32_t rank = 0;
  std::int32_t wait_status = 0;   // as waitpid gave it
  bool started = true;            // false: exec failed (status 127)
  std::string message;
};

struct Teardown {
  std::int32_t signal = 0;        // 0: exit cleanly
  std::string reason;
};

using WireMessage = std::variant<Bootstrap, DaemonReport, LaunchCommand, OutputChunk, ExitRecord, Teardown>;

/* Encodes one message. Errors: a field above its bound (named). */
ORCA_EXPORT Result<std::vector<std::uint8_t>> encode(const WireMessage& message);
/* Decodes exactly one message from `bytes`. Errors: an unknown kind, a
 * truncated or oversized field, trailing bytes (each names the field). */
ORCA_EXPORT Result<WireMessage> decode(std::span<const std::uint8_t> bytes);

/* "bootstrap", "daemon report", ... for messages. */
ORCA_EXPORT const char* kind_name(const WireMessage& message);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_WIRE_H
