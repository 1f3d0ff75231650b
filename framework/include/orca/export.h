/*
 * Export control for liborca.
 *
 * liborca is built with -fvisibility=hidden; only declarations marked
 * ORCA_EXPORT form the surface that tools and components may use.
 */
#ifndef ORCA_EXPORT_H
#define ORCA_EXPORT_H

#if defined(ORCA_BUILDING_LIBORCA)
#define ORCA_EXPORT __attribute__((visibility("default")))
#else
#define ORCA_EXPORT
#endif

#endif /* ORCA_EXPORT_H */
