// orcad: the daemon orcarun starts on every host. Everything it needs
// (its name, the job secret, the settings, its parent's contact URI)
// arrives on standard input, never on the command line, where every user
// of the host could read the secret.
#include "launch/launch_wire.h"
#include "mca/var/mca_forward.h"
#include "runtime/process.h"
#include "tools/builtin_components.h"
#include "tools/tool_main.h"
#include "daemon_session.h"
#include "rank_keeper.h"

#include <orca/address_sanitizer.h>
#include <orca/child_process.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

extern char** environ;

namespace {

// How long orcad waits for each part of its bootstrap.
constexpr int kBootstrapLimitMs = 60000;

const char* const kUsage =
    "Usage: orcad\n"
    "The Orca daemon. orcarun starts it on each host of a job (directly,\n"
    "through plm_rsh_agent, or as one srun step) and hands it its bootstrap\n"
    "on its standard input (or, with srun, in ORCA_BOOTSTRAP); it is not\n"
    "meant to be run by hand. See orcarun --help.\n"
    "\n"
    "  -h, --help             print this help and exit\n"
    "  --mca NAME VALUE       set an MCA variable on this host (orcarun's settings\n"
    "                         reach every daemon with the bootstrap anyway)\n"
    "  --tune FILE            read MCA settings from FILE\n";

}  // namespace

// Under AddressSanitizer (--enable-sanitizers), what libpmix allocates in
// PMIx_server_init and its data stores and still holds at exit is libpmix's,
// not a leak of ours: LeakSanitizer is told so here, in the program, so
// that it holds however orcad was started (ssh passes no LSAN_OPTIONS).
#ifdef ORCA_ADDRESS_SANITIZER
extern "C" const char* __lsan_default_suppressions() { return "leak:libpmix.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif

static int orcad_main(int argc, char** argv) {
  orca::orcad::StartupClock clock;
  clock.main = orca::orcad::StartupClock::Clock::now();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
  }
  // The keeper first: before any thread exists (libpmix starts some; a
  // sanitized build forks it, and fork copies only the caller) and before
  // the bootstrap is read. It ends the ranks' process groups should this
  // process die without ending them (rank_keeper.h); it is told the clean
  // end after the session, which ends every rank.
  auto keeper = orca::orcad::RankKeeper::start();
  if (!keeper) {
    std::cerr << "orcad: cannot start the keeper of its ranks: " << orca::plm::spawn_failure_text(keeper.error()) << "\n";
    return 1;
  }
  // From the environment when the launcher put it there (plm/slurm), and
  // gone from it before anything is started: no rank may inherit it.
  const char* in_environment = std::getenv(orca::launch::kBootstrapVariable);
  const std::string text = in_environment != nullptr ? in_environment : "";
  ::unsetenv(orca::launch::kBootstrapVariable);
  auto bootstrap = in_environment != nullptr ? orca::launch::parse_bootstrap_text(text)
                                             : orca::launch::read_bootstrap(0, kBootstrapLimitMs);
  if (!bootstrap) {
    std::cerr << "orcad: no usable bootstrap " << (in_environment != nullptr ? "in the environment" : "on standard input")
              << ": " << bootstrap.error().arg("why") << bootstrap.error().arg("field") << "\n"
              << kUsage;
    return 1;
  }
  clock.bootstrap_read = orca::orcad::StartupClock::Clock::now();
  auto settings = orca::mca::decode_settings(bootstrap->settings);
  if (!settings) {
    std::cerr << "orcad: the settings from the launcher are malformed: " << settings.error().summary() << "\n";
    return 1;
  }
  // What orcarun knows this job will not use is never loaded (libpmix's
  // component alone is several ms of dlopen and relocation; every other
  // file a dlopen, its relocations and its pages).
  orca::mca::LeaveOut leave_out{.components = bootstrap->unused_components,
                                .why = "orcarun left it out of this job (it chose another, or orcarun_pmix_server)"};
  auto process = orca::Process::create("orcad", ORCA_PROCESS_DAEMON, argc, argv, environ, std::move(settings.value()),
                                        std::move(leave_out), orca::tools::builtin_components());
  if (!process) return 1;
  clock.process_created = orca::orcad::StartupClock::Clock::now();
  int status = 0;
  bool outside_state = true;
  {
    orca::orcad::DaemonSession session(*process.value(), std::move(bootstrap.value()), clock, keeper.value());
    status = session.run();
    outside_state = session.keeps_outside_state();
  }
  // Every rank has ended with the session: the keeper's clean end.
  keeper->end();
#ifndef ORCA_ADDRESS_SANITIZER
  // What is left is this process's own memory, its descriptors and its
  // components: the kernel frees them all at exit. Freeing them one by one
  // first (the registry, the keeper's memory, whose unmap interrupts the
  // other CPUs) was 2-3% of a daemon's CPU, on every host of every job.
  // The oob goes first as ever: what its connections still hold (a last
  // report to orcarun) is written if the sockets take it. A module whose
  // library keeps files (libpmix) ends as usual. Sanitized builds tear
  // down everything: LeakSanitizer checks it.
  if (!outside_state) {
    process.value()->close_oob();
    orca::tools::exit_without_teardown(status);
  }
#endif
  return status;
}

int main(int argc, char** argv) {
  return orca::tools::guarded_main("orcad", [&] { return orcad_main(argc, argv); });
}
