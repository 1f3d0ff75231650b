/*
 * ORCA_ADDRESS_SANITIZER is defined in a build with AddressSanitizer (gcc
 * says so with __SANITIZE_ADDRESS__, clang with __has_feature; the test
 * programs' files, compiled without the instrumentation in such a build,
 * get -DORCA_ADDRESS_SANITIZER=1), for the few places that behave
 * differently there: UniqueFd's close checks, orcad's leak suppressions,
 * and spawn_child's fork.
 */
#ifndef ORCA_ADDRESS_SANITIZER_H
#define ORCA_ADDRESS_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define ORCA_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORCA_ADDRESS_SANITIZER 1
#endif
#endif

#endif  // ORCA_ADDRESS_SANITIZER_H
