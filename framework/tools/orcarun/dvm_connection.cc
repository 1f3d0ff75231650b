// A client's way to a running DVM.
#include "dvm_connection.h"

#include "oob/oob_host.h"

#include <orca/interfaces.h>
#include <orca/mca_var.h>
#include <orca/oob.h>
#include <orca/oob_random.h>

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace orca::orcarun {
namespace {

// Clients take vpids from here up; daemons have 1..hosts.
constexpr std::uint32_t kFirstClientVpid = 0x40000000u;

std::uint32_t client_vpid() {
  std::uint32_t r = 0;
  std::span<std::uint8_t> bytes(reinterpret_cast<std::uint8_t*>(&r), sizeof r);
  if (!oob::random_bytes(bytes)) r = static_cast<std::uint32_t>(::getpid());
  return kFirstClientVpid | (r & 0x3fffffffu);
}

}  // namespace

bool process_runs(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie (ended, not yet reaped by whoever started it) runs no more.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

Result<std::string> locate_dvm_contact(const std::optional<std::string>& named) {
  const std::string directory = launch::dvm_contact_directory([](const char* name) { return std::getenv(name); });
  if (named) return launch::resolve_dvm_name(*named, directory, process_runs);
  if (const char* env = std::getenv("ORCA_DVM"); env != nullptr && *env != '\0') {
    return launch::resolve_dvm_name(env, directory, process_runs);
  }
  if (directory.empty()) {
    return Message("launch", "dvm-contact-unwritable",
                   {{"file", "(none)"}, {"why", "neither XDG_RUNTIME_DIR nor HOME is an absolute path"}});
  }
  return launch::find_running_dvm(directory, process_runs);
}

Message dvm_unreachable(const std::string& file, std::uint32_t pid, const std::string& why) {
  return Message("orcadvm", "unreachable", {{"file", file}, {"pid", std::to_string(pid)}, {"why", why}});
}

Result<DvmConnection> connect_dvm(Process& process, const std::string& contact_file) {
  auto contact = launch::read_dvm_contact(contact_file);
  if (!contact) return contact.error();
  DvmConnection c{.file = contact_file, .contact = std::move(contact.value())};
  auto secret = oob::parse_job_secret(c.contact.secret_hex, c.file);
  if (!secret) return secret.error();
  auto uri = oob::ContactUri::parse(c.contact.uri);
  if (!uri) return dvm_unreachable(c.file, c.contact.pid, uri.error().summary());
  c.controller = uri->name;
  // A controller on this very host (and network namespace) is reached by
  // its local socket: this client then opens no TCP listener, which would
  // read every interface of the host first. A user's own oob selection
  // still wins (a default-level setting loses to any other).
  auto here = net::HostIdentity::current();
  if (here && here->to_string() == uri->host_identity && uri->parts.count("usock") > 0) {
    (void)process.runtime().registry().add_setting(mca::Setting{"oob", "usock", mca::Source{}});
  }
  auto oob = process.open_oob(ProcessName{c.controller.job, client_vpid()}, std::move(secret.value()));
  if (!oob) return oob.error();
  c.oob = oob.value();
  if (Status st = c.oob->add_peer(c.controller, c.contact.uri); !st) {
    return dvm_unreachable(c.file, c.contact.pid, st.error().summary());
  }
  return c;
}

}  // namespace orca::orcarun
