/*
 * How the map of a job was asked for, as --display-map's heading says it:
 * "-N 2, then by core, --rank-by node". Printed before launch by orcarun,
 * or once the daemons' processors are known for --map-by ppr:N:core.
 */
#ifndef ORCA_TOOLS_ORCARUN_MAP_POLICY_H
#define ORCA_TOOLS_ORCARUN_MAP_POLICY_H

#include "orcarun_options.h"

#include <string>

namespace orca::orcarun {

std::string map_policy(const Options& o);

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_MAP_POLICY_H
