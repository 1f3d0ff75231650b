/*
 * CpuTopology: the processors one daemon may run its ranks on, as orcarun
 * places and binds ranks with them (cpu_binding.h).
 *
 * Each processing unit (hardware thread) the daemon may use, in hwloc's
 * logical order, with the logical indices of its core, NUMA node and
 * package on that host. Only the usable ones are listed: those of the
 * daemon's cgroup cpuset (a container, a Slurm task) and of its own
 * affinity mask (taskset), so a binding can never leave them.
 *
 * It travels in the daemon's report as text, one PU per word,
 * "OS.CORE.NUMA.PACKAGE" ("0.0.0.0 16.0.0.0 1.1.0.0 ..."), parsed
 * strictly: the report comes over the network.
 */
#ifndef ORCA_LAUNCH_CPU_TOPOLOGY_H
#define ORCA_LAUNCH_CPU_TOPOLOGY_H

#include <orca/export.h>
#include <orca/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

/* The most PUs one host may report (a CPU mask of the kernel's default
 * CONFIG_NR_CPUS maximum). */
inline constexpr unsigned kMaxPus = 8192;

struct ORCA_EXPORT ProcessingUnit {
  unsigned os = 0;       // the kernel's CPU number (sched_setaffinity, taskset)
  unsigned core = 0;     // logical index of its core on the host
  unsigned numa = 0;     // ... of its NUMA node
  unsigned package = 0;  // ... of its package (socket)
  bool operator==(const ProcessingUnit&) const = default;
};

struct ORCA_EXPORT CpuTopology {
  std::vector<ProcessingUnit> pus;  // logical order: a core's PUs together, cores in order
  bool operator==(const CpuTopology&) const = default;
};

/* The resources ranks are mapped and bound to. */
enum class Resource { Hwthread, Core, Numa, Package };

/* "hwthread", "core", "numa" or "package" (also Open MPI's "socket");
 * case is ignored. Error: launch/resource-unknown. */
ORCA_EXPORT Result<Resource> parse_resource(std::string_view text);
ORCA_EXPORT const char* resource_name(Resource r);

/* The index of the `r` object that holds `pu`: its position in the list
 * for a hwthread, else its core, NUMA node or package. */
ORCA_EXPORT unsigned resource_index(const CpuTopology& topology, std::size_t pu, Resource r);

ORCA_EXPORT std::string encode_cpu_topology(const CpuTopology& topology);
/* Errors (launch/cpu-topology-malformed): a word not of four numbers, a
 * number above 2^20, an OS number given twice, more than kMaxPus PUs, no
 * PU at all. */
ORCA_EXPORT Result<CpuTopology> parse_cpu_topology(std::string_view text);

/* CPU numbers as taskset and Open MPI print them: "0-3,8,10-11" (sorted,
 * runs joined); "" for none. */
ORCA_EXPORT std::string cpu_list_text(std::vector<unsigned> cpus);
/* The reverse, strictly: numbers below kMaxPus, each run low-high.
 * Error: launch/cpu-list-malformed. */
ORCA_EXPORT Result<std::vector<unsigned>> parse_cpu_list(std::string_view text);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_CPU_TOPOLOGY_H
