// orcadvm: a persistent DVM. `start` keeps daemons up on the hosts (the
// controller, dvm_controller.h), `status` and `stop` ask the running one
// (dvm_client.h).
#include "detach.h"
#include "dvm_client.h"
#include "dvm_controller.h"

#include "launch/dvm_contact.h"
#include "launch/launcher_vars.h"
#include "tools/builtin_components.h"
#include "tools/orcarun/dvm_connection.h"
#include "tools/orcarun/job_planning.h"
#include "tools/tool_main.h"

#include <config.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

extern char** environ;

namespace {

const char* const kUsage =
    "Usage: orcadvm start [--host H[,H...] | --hostfile FILE] [--daemonize] [OPTIONS]\n"
    "       orcadvm status [--dvm-uri FILE|URI]\n"
    "       orcadvm stop [--dvm-uri FILE|URI]\n"
    "Keeps Orca's daemons up on a set of hosts (a DVM), so that jobs run there\n"
    "without starting daemons each time.\n"
    "\n"
    "  start        start a daemon on every host (as orcarun would: --host,\n"
    "               --hostfile, else the batch allocation, else this host), then\n"
    "               wait; writes a contact file only you can read, under\n"
    "               $XDG_RUNTIME_DIR/orca (else ~/.orca), and prints its path\n"
    "  status       print the running DVM's hosts, daemons, jobs and clients\n"
    "  stop         end the running DVM's jobs and daemons; returns once they\n"
    "               are gone\n"
    "\n"
    "Options of start:\n"
    "  --daemonize            run on detached from the terminal, returning once the\n"
    "                         DVM is up; it stops after orcadvm_idle_timeout seconds\n"
    "                         with no job and no client. What it says once up goes\n"
    "                         to its log, the contact file's name with .log (kept\n"
    "                         when it ends by itself, e.g. with no daemon left)\n"
    "  -H, --host HOSTS       hosts, as orcarun takes them (host, host:N, user@host)\n"
    "  --hostfile FILE        hosts from FILE (slots=N, max_slots=N)\n"
    "  --mca NAME VALUE       set an MCA variable (the daemons get it too)\n"
    "  --tune FILE            read MCA settings from FILE\n"
    "  --timing               print how long each phase of the start took\n"
    "  --report-routes        print how each daemon reached its parent\n"
    "  --report-topology      print each host's processors\n"
    "  --mesh-check           check every host reaches every other on its data plane\n"
    "\n"
    "Options of status and stop:\n"
    "  --dvm-uri FILE|URI     the DVM of this contact file, or of this contact URI\n"
    "                         (status prints both; else $ORCA_DVM, else your one\n"
    "                         running DVM)\n"
    "\n"
    "  -h, --help             print this help and exit\n"
    "  -V, --version          print the version and exit\n"
    "\n"
    "A foreground DVM stops on SIGINT, SIGTERM or SIGHUP. A daemon lost once the\n"
    "DVM is up is dropped and named, and the DVM goes on with the rest. orcadvm\n"
    "exits with 0 when the DVM stopped as asked, 1 when it could not start or\n"
    "every daemon was lost.\n";

using orca::Message;

int start(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> args;
  bool daemonize = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--daemonize") == 0) {
      daemonize = true;
    } else {
      args.emplace_back(argv[i]);
    }
  }
  auto options = orca::orcarun::parse_daemon_options(args);
  if (options && (options->help || options->version)) {
    std::cout << (options->help ? kUsage : "orcadvm (Orca) " PACKAGE_VERSION "\n");
    return 0;
  }
  // Detached before anything is opened: the child makes every descriptor,
  // thread and event base of its own.
  if (options && daemonize && !orca::orcadvm::detach()) {
    std::cerr << "orcadvm: cannot detach (" << std::strerror(errno) << "); start it without --daemonize\n";
    return 1;
  }
  orca::mca::ToolOptions tool = options ? options->tool : orca::mca::ToolOptions{};
  tool.builtin_components = orca::tools::builtin_components();
  auto created = orca::Process::create("orcadvm", ORCA_PROCESS_LAUNCHER, tool, environ);
  if (!created) return 1;
  orca::Process& p = *created.value();
  if (!options) return p.fail(options.error());
  if (orca::Status st = orca::launch::declare_launcher_variables(p.runtime().registry()); !st) return p.fail(st.error());
  const auto idle = orca::launch::launcher_settings(p.runtime().registry()).dvm_idle_timeout;
  const std::string directory =
      orca::launch::dvm_contact_directory([](const char* name) { return std::getenv(name); });
  if (directory.empty()) {
    return p.fail(Message("launch", "dvm-contact-unwritable",
                          {{"file", "(none)"}, {"why", "neither XDG_RUNTIME_DIR nor HOME is an absolute path"}}));
  }
  orca::orcarun::JobPlan plan;
  if (orca::Status st = orca::orcarun::make_daemon_plan(p.runtime(), options.value(), plan); !st) return p.fail(st.error());
  orca::orcadvm::DvmController controller(
      p, options.value(), std::move(plan), started,
      {.detached = daemonize,
       .idle_limit = daemonize ? idle : std::chrono::milliseconds(0),
       .contact_directory = directory,
       .announce = [](const std::string& line, const std::string& log) {
         std::cout << line << std::flush;
         if (!log.empty()) orca::orcadvm::detached_ready(log);
       }});
  return controller.run();
}

int ask(int argc, char** argv, orca::launch::DvmAsk what) {
  orca::mca::ToolOptions tool;
  tool.builtin_components = orca::tools::builtin_components();
  auto created = orca::Process::create("orcadvm", ORCA_PROCESS_LAUNCHER, tool, environ);
  if (!created) return 1;
  orca::Process& p = *created.value();
  std::optional<std::string> named;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--dvm-uri" && i + 1 < argc) {
      named = argv[++i];
    } else if (a.rfind("--dvm-uri=", 0) == 0 && a.size() > 10) {
      named = a.substr(10);
    } else {
      const std::string why = a.rfind("--dvm-uri", 0) == 0 ? "it needs a contact file or URI"
                                                             : "orcadvm " + std::string(argv[1]) + " takes --dvm-uri FILE|URI only";
      return p.fail(Message("orcadvm", "bad-option", {{"option", orca::printable(a)}, {"why", why}}));
    }
  }
  auto file = orca::orcarun::locate_dvm_contact(named);
  if (!file) return p.fail(file.error());
  return orca::orcadvm::ask_dvm(p, what, file.value());
}

}  // namespace

static int orcadvm_main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version" || command == "-V") {
    std::cout << "orcadvm (Orca) " << PACKAGE_VERSION << "\n";
    return 0;
  }
  if (command == "start") return start(argc, argv);
  if (command == "status") return ask(argc, argv, orca::launch::DvmAsk::Status);
  if (command == "stop") return ask(argc, argv, orca::launch::DvmAsk::Stop);
  std::cerr << "orcadvm: " << (command.empty() ? "a command is needed" : "unknown command " + orca::printable(command))
            << ": start, status or stop (orcadvm --help)\n";
  return 1;
}

int main(int argc, char** argv) {
  return orca::tools::guarded_main("orcadvm", [&] { return orcadvm_main(argc, argv); });
}
