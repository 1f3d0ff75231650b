// Small text helpers of the launch parsers (not part of the public API).
#ifndef ORCA_LAUNCH_LAUNCH_TEXT_H
#define ORCA_LAUNCH_LAUNCH_TEXT_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orca::launch {

/* The start of a long piece of input, for a message: enough to find it,
 * not a megabyte of it. */
std::string excerpt(std::string_view text);

/* `text` as a whole number from `min` to `max`: decimal digits only (no
 * sign, no spaces); leading zeros allowed. nullopt otherwise. */
std::optional<std::uint64_t> parse_whole_number(std::string_view text, std::uint64_t min, std::uint64_t max);

/* The slots a host may have, in words, for messages. */
std::string valid_slots_text();

}  // namespace orca::launch

#endif
