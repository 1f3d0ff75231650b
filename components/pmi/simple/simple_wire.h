// The wire format of the MPICH "simple" PMI protocols, as bytes in and out:
// no sockets, no event loop.
//
// PMI-1 (Framing::Pmi1): one message per line, "cmd=NAME key=value ...\n".
//   Pairs are separated by one or more spaces; a value is everything after
//   the first '=' up to the next space, so it may hold '=' but never a
//   space or a newline (there is no escaping in PMI-1). "mcmd=spawn\n" opens
//   a multi-line block that ends with the line "endcmd"; the decoder reads
//   the whole block and returns it as one message with multi_command set
//   and no pairs (Orca refuses spawn; the block is consumed only so that
//   the reply can follow it).
//
// PMI-2 (Framing::Pmi2): a 6-byte length field, then that many bytes of
//   "cmd=NAME;key=value;...;". The length is decimal, written by MPICH
//   left-justified and padded with spaces ("22    "); spaces before the
//   digits are accepted too, nothing else is. A ';' inside a key or value
//   is written ";;". The last pair's ';' may be left out.
//
// A connection's first byte decides the framing (detect_framing): a digit
// or a space is PMI-2, anything else is read as PMI-1 and must start with
// "cmd=" or "mcmd=". An MPICH PMI-2 client first sends one PMI-1 line
// ("cmd=init pmi_version=2 ...") and then switches to PMI-2 framing; the
// session (simple_session.h) tells the decoder to switch with
// set_framing() between two messages.
//
// Strictness, both framings: the first pair is the command, which must not
// be empty; every pair has '=' and a non-empty key; no key appears twice;
// no NUL byte anywhere; keys, values and whole messages are bounded by the
// constants below. A malformed message fails the stream for good: bytes
// after it cannot be framed with confidence.
//
// Errors are Messages of area "pmi": topic "wire-malformed" (args
// "framing", "problem") and "wire-unformattable" for format().
#ifndef ORCA_COMPONENTS_PMI_SIMPLE_WIRE_H
#define ORCA_COMPONENTS_PMI_SIMPLE_WIRE_H

#include <orca/result.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orca::pmi {

enum class Framing : std::uint8_t { Pmi1, Pmi2 };

/* The maxima Orca advertises (PMI-1 get_maxes) and enforces. */
inline constexpr std::size_t kMaxKvsNameBytes = 256;
inline constexpr std::size_t kMaxKeyBytes = 64;
inline constexpr std::size_t kMaxValueBytes = 1024;
/* A command name ("get_universe_size", "info-getjobattr"). */
inline constexpr std::size_t kMaxCommandBytes = 64;
/* The longest PMI-1 line, '\n' included: a put of the longest kvsname, key
 * and value fits with room to spare. */
inline constexpr std::size_t kMaxPmi1LineBytes = 2048;
/* The longest PMI-1 spawn block (all its lines), read only to refuse it. */
inline constexpr std::size_t kMaxPmi1SpawnBytes = 64 * 1024;
/* The PMI-2 length field and the longest body it may announce. */
inline constexpr std::size_t kPmi2LengthBytes = 6;
inline constexpr std::size_t kMaxPmi2BodyBytes = 64 * 1024;

using Pairs = std::vector<std::pair<std::string, std::string>>;

/* One message of either framing. `pairs` excludes the command. */
struct WireMessage {
  std::string command;
  Pairs pairs;
  /* PMI-1 "mcmd=..." block (command is its name, pairs empty). */
  bool multi_command = false;

  /* The value of `key`, or nullptr. */
  const std::string* find(std::string_view key) const noexcept;

  friend bool operator==(const WireMessage&, const WireMessage&) = default;
};

std::string_view framing_name(Framing framing) noexcept;

/* The framing a connection speaks, from its first byte. */
Framing detect_framing(char first_byte) noexcept;

/* Parses one complete PMI-1 line (without its '\n') or one PMI-2 body
 * (without its length field). Not for "mcmd=" blocks. */
Result<WireMessage> parse_pmi1_line(std::string_view line);
Result<WireMessage> parse_pmi2_body(std::string_view body);

/* The bytes of `message` in `framing`: PMI-1 with its '\n', PMI-2 with its
 * length field and ';;' escapes. Fails when the message cannot be framed:
 * an empty command or key, a duplicate key, a NUL, a key holding '=' (or
 * ';' in PMI-2), a PMI-1 key or value holding a space or newline, a
 * multi_command message, or a message over the size bound. Keys and values
 * are not held to kMaxKeyBytes / kMaxValueBytes here (a job attribute may
 * be longer), only the whole message to its bound. */
Result<std::string> format(Framing framing, const WireMessage& message);

/* Splits a byte stream into messages. Feed arbitrary chunks with append(),
 * then call next() until it yields no message. Once next() fails, the
 * decoder stays failed and every later next() returns the same error. */
class StreamDecoder {
 public:
  /* nullopt: detect the framing from the first byte. */
  explicit StreamDecoder(std::optional<Framing> framing = std::nullopt) : framing_(framing) {}

  void append(std::string_view bytes);

  /* The next whole message; nullopt when more bytes are needed. */
  Result<std::optional<WireMessage>> next();

  /* Appends `bytes` and returns every message now complete, or the error
   * (messages before the error are lost: the stream is dead anyway). */
  Result<std::vector<WireMessage>> feed(std::string_view bytes);

  /* The framing in use (nullopt until the first byte arrived when
   * detecting). */
  std::optional<Framing> framing() const noexcept { return framing_; }
  /* Switches framing for the bytes after the last message next() returned. */
  void set_framing(Framing framing) noexcept { framing_ = framing; }

  bool failed() const noexcept { return failure_.has_value(); }
  std::size_t buffered() const noexcept { return buffer_.size() - start_; }

 private:
  Result<std::optional<WireMessage>> fail(Message why);
  Result<std::optional<WireMessage>> next_pmi1();
  Result<std::optional<WireMessage>> next_pmi2();
  Result<std::optional<WireMessage>> next_spawn_block();
  void compact();

  std::optional<Framing> framing_;
  std::string buffer_;
  std::size_t start_ = 0;
  /* Bytes of the message at start_ already searched for its end. */
  std::size_t scan_ = 0;
  /* Inside an "mcmd=" block: where its current line starts, its name. */
  std::size_t spawn_line_start_ = 0;
  std::string spawn_command_;
  std::optional<Message> failure_;
};

}  // namespace orca::pmi

#endif
