/*
 * random_bytes: bytes from the kernel's CSPRNG (getrandom(2)) for nonces,
 * job secrets and socket names.
 *
 * Why not RAND_bytes: libcrypto's generator costs its set-up (a DRBG
 * seeded from the same kernel source) in every process, and every orcad
 * would pay it at start-up for a few dozen bytes. getrandom blocks only
 * until the kernel's pool is first seeded at boot.
 */
#ifndef ORCA_OOB_RANDOM_H
#define ORCA_OOB_RANDOM_H

#include <orca/export.h>

#include <cstdint>
#include <span>
#include <string>

namespace orca::oob {

/* Fills `out`. Returns false (errno-style text in *why) if the kernel
 * refused, which on Linux means no getrandom at all. */
ORCA_EXPORT bool random_bytes(std::span<std::uint8_t> out, std::string* why = nullptr);

}  // namespace orca::oob

#endif
