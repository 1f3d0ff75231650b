/*
 * ProgramLinkage: what orcarun can tell from a program's files alone
 * about whether its ranks could speak PMIx, so that daemons start
 * libpmix's server (about 10 ms of CPU and most of an orcad's memory) only
 * for jobs that may use it (pmix_server_choice.h decides).
 *
 * The program is resolved as execvp would (a name without '/' through
 * PATH), then read as an ELF file: its DT_NEEDED closure, each library
 * found through DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.conf and
 * the default directories, as ld.so searches. These facts come out:
 *   - a PMIx client library in the closure (Open MPI's libmpi, libopen-pal,
 *     libopen-rte, libpmix itself, PRRTE);
 *   - a PMI-1/2 client library the program reaches (MPICH's libmpich,
 *     libpmi, libpmi2), which pmi/simple serves;
 *   - a library of the closure whose interface choice a data-plane
 *     variable steers (UCX, NCCL, libfabric, gloo, PyTorch), for the
 *     data-plane round (pmix_server_choice.h);
 *   - an object of the closure that imports a way to run or load other
 *     code (exec*, posix_spawn*, system, popen, dlopen): a shell, env,
 *     numactl, python, valgrind... which may become an MPI program. Not
 *     counted: what a PMI-1/2 client library and the libraries needed
 *     only through it import; such a process is
 *     an MPICH rank whatever they run (libmpich's execvp starts a process
 *     manager for a singleton, ucx and hwloc load their own plugins).
 * Anything it cannot read (a script, a static or foreign ELF, a library not
 * found, LD_PRELOAD / LD_AUDIT set, a program not found here) is Unknown,
 * never "no": the cautious answer is to start the server.
 */
#ifndef ORCA_LAUNCH_PROGRAM_LINKAGE_H
#define ORCA_LAUNCH_PROGRAM_LINKAGE_H

#include <orca/export.h>

#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

/* The environment the program will run with, as far as linking goes. */
struct LinkEnvironment {
  std::string path;             // PATH
  std::string ld_library_path;  // LD_LIBRARY_PATH
  std::string ld_preload;       // LD_PRELOAD or LD_AUDIT (non-empty: Unknown)
  std::string ld_so_conf = "/etc/ld.so.conf";
};

struct ProgramLinkage {
  enum class Kind {
    Read,     // an ELF program whose whole closure was read
    Unknown,  // see `unknown_why`
  };
  Kind kind = Kind::Unknown;
  std::string path;          // the file it resolved to ("" : not found)
  std::string pmix_library;  // the first PMIx client library of the closure ("" : none)
  std::string launcher;      // "<object> imports <symbol>" for the first object that can run or load code ("" : none)
  std::string pmi_library;   // the first PMI-1/2 client library (libmpich, libpmi, libpmi2; its imports not counted) ("" : none)
  std::string network_library;  // the first UCX, NCCL, libfabric, gloo or PyTorch library of the closure ("" : none,
                                // or not read that far: a PMIx client library ends the reading)
  std::string unknown_why;   // Kind::Unknown: why
};

/* Reads `program` (argv[0]) and the libraries it links. Never throws for
 * a file it cannot read: that is Kind::Unknown with the reason. */
ORCA_EXPORT ProgramLinkage inspect_program(std::string_view program, const LinkEnvironment& environment);

/* An MPMD job's programs (argv[0] of each app, in order): each distinct
 * name read once, in the order it first appears (an app file of 100 lines
 * naming one program reads it once, not 100 times). */
ORCA_EXPORT std::vector<ProgramLinkage> inspect_programs(const std::vector<std::string>& programs,
                                                         const LinkEnvironment& environment);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_PROGRAM_LINKAGE_H
