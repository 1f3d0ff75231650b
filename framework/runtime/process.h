/*
 * Process: everything one Orca process owns, so that a program's main is
 * thin: its role (tool, launcher, daemon, application), its Runtime
 * (settings, components, help, log sink), its EventLoop, and, once
 * opened, its Oob.
 *
 *   auto p = Process::create("orcad", ORCA_PROCESS_DAEMON, argc, argv, environ);
 *   if (!p) return EXIT_FAILURE;  // create() showed the message
 *   auto oob = p.value()->open_oob(name, secret);
 *
 * Destruction order is fixed: the Oob (stopping its modules), then the
 * Runtime (closing components, unloading them), then the EventLoop, so no
 * component's event outlives the loop it was made on.
 * Everything runs on the thread that created the Process.
 */
#ifndef ORCA_RUNTIME_PROCESS_H
#define ORCA_RUNTIME_PROCESS_H

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/mca_component.h>
#include "mca/var/mca_sources.h"
#include "oob/oob_host.h"
#include <orca/result.h>
#include "runtime/runtime.h"

#include <memory>
#include <string>
#include <vector>

namespace orca {

class ORCA_EXPORT Process {
 public:
  /* Parses the options every Orca program shares (--mca NAME VALUE,
   * --tune FILE), loads every source of settings and the components, and
   * makes the event loop. The other arguments are left for the program
   * (arguments()). Errors: a malformed option, a bad setting or file;
   * the message has been shown on standard error through the help texts
   * when this returns. `inherited`: settings a launcher handed down
   * (ToolOptions::inherited); `builtins`: the components the program was
   * linked with (ToolOptions::builtin_components). */
  static Result<std::unique_ptr<Process>> create(std::string program, orca_process_role role, int argc,
                                                 const char* const* argv, const char* const* envp,
                                                 std::vector<mca::Setting> inherited = {}, mca::LeaveOut leave_out = {},
                                                 mca::BuiltinComponents builtins = {});
  /* The same with options a program parsed itself (orcarun, whose
   * command words must not be searched for --mca). */
  static Result<std::unique_ptr<Process>> create(std::string program, orca_process_role role,
                                                 mca::ToolOptions options, const char* const* envp);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  orca_process_role role() const noexcept { return runtime_->role(); }
  Runtime& runtime() noexcept { return *runtime_; }
  EventLoop& loop() noexcept { return *loop_; }
  /* The command-line words that were not common options, in order. */
  const std::vector<std::string>& arguments() const noexcept { return arguments_; }

  /* Opens the oob as `self` with the job secret (once: a second call
   * returns the Oob already open, whatever it is given). Errors: those of
   * oob::Oob::open. */
  Result<oob::Oob*> open_oob(ProcessName self, std::vector<std::uint8_t> secret);
  /* The open Oob, or null before open_oob. */
  oob::Oob* oob() noexcept { return oob_.get(); }
  /* Closes the Oob now (what its connections still hold is written if the
   * sockets take it, then they shut down), as the destructor would first. */
  void close_oob() noexcept { oob_.reset(); }

  /* Shows `message` on standard error through this process's help texts
   * (always, even if shown before) and returns a failing exit status. */
  int fail(const Message& message);

 private:
  Process() = default;
  // Declared in the order they are made; destroyed in reverse.
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<oob::Oob> oob_;
  std::vector<std::string> arguments_;
};

}  // namespace orca

#endif  // ORCA_RUNTIME_PROCESS_H
