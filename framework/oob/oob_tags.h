/*
 * Tags of oob messages, reserved per framework so that no two parts of a
 * process answer the same tag. A tag is a 31-bit number: Oob::send refuses
 * anything from 2^31, the top bit marks routed messages on the wire.
 *
 *   0          never used (a zero tag is a bug)
 *   1 - 999    tests and examples (test/oob/oob_peer)
 *   1000s      plm: launch, daemon reports, teardown
 *   2000s      routed: wire-up, route updates
 *   3000s      iof: forwarded stdout / stderr
 *   4000s      pmi: fences, key exchange
 *   5000s      errmgr: failures, exit statuses
 *   from 65536 applications and out-of-tree components
 */
#ifndef ORCA_OOB_OOB_TAGS_H
#define ORCA_OOB_OOB_TAGS_H

#include <cstdint>

namespace orca::oob::tags {

inline constexpr std::uint32_t kTestFirst = 1;
inline constexpr std::uint32_t kTestLast = 999;
inline constexpr std::uint32_t kPlmFirst = 1000;
inline constexpr std::uint32_t kRoutedFirst = 2000;
inline constexpr std::uint32_t kIofFirst = 3000;
inline constexpr std::uint32_t kPmiFirst = 4000;
inline constexpr std::uint32_t kErrmgrFirst = 5000;
inline constexpr std::uint32_t kApplicationFirst = 65536;
/* The largest tag a caller may use. */
inline constexpr std::uint32_t kMaxTag = 0x7fffffffu;

}  // namespace orca::oob::tags

#endif  // ORCA_OOB_OOB_TAGS_H
