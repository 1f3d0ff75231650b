// Process: the role, Runtime, EventLoop and Oob of one Orca process.
#include "process.h"

#include <cstdlib>
#include <iostream>

namespace orca {

Result<std::unique_ptr<Process>> Process::create(std::string program, orca_process_role role, int argc,
                                                 const char* const* argv, const char* const* envp,
                                                 std::vector<mca::Setting> inherited, mca::LeaveOut leave_out,
                                                 mca::BuiltinComponents builtins) {
  auto options = mca::parse_tool_options(argc, argv);
  if (!options) {
    // The message still needs a help catalog: a bare Runtime has one.
    Runtime bare(program, envp);
    bare.help().show(options.error(), std::cerr, true);
    return options.error();
  }
  options->inherited = std::move(inherited);
  options->leave_out = std::move(leave_out);
  options->builtin_components = builtins;
  return create(std::move(program), role, std::move(options.value()), envp);
}

Result<std::unique_ptr<Process>> Process::create(std::string program, orca_process_role role,
                                                 mca::ToolOptions options, const char* const* envp) {
  std::unique_ptr<Process> p(new Process());
  p->loop_ = std::make_unique<EventLoop>();
  p->runtime_ = std::make_unique<Runtime>(std::move(program), envp);
  p->runtime_->set_role(role);
  // An exception escaping a callback is a bug; say so where the rest goes.
  Runtime* runtime = p->runtime_.get();
  p->loop_->set_error_handler([runtime](const std::string& text) { runtime->log("event", text); });
  if (Status st = p->runtime_->load(options); !st) {
    p->fail(st.error());
    return st.error();
  }
  p->arguments_ = std::move(options.rest);
  return p;
}

Process::~Process() {
  // Members go in reverse order anyway; spelled out because it matters.
  oob_.reset();
  runtime_.reset();
  loop_.reset();
}

Result<oob::Oob*> Process::open_oob(ProcessName self, std::vector<std::uint8_t> secret) {
  if (oob_) return oob_.get();
  auto opened = oob::Oob::open(*runtime_, *loop_, self, std::move(secret));
  if (!opened) return opened.error();
  oob_ = std::move(opened.value());
  return oob_.get();
}

int Process::fail(const Message& message) {
  runtime_->help().show(message, std::cerr, true);
  return EXIT_FAILURE;
}

}  // namespace orca
