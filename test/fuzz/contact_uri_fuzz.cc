// The contact-URI parser (ContactUri::parse, orca/oob.h) and the host
// identity it carries (HostIdentity::parse, orca/interfaces.h): a peer's
// URI arrives in its wire-up report and is parsed by every process that
// adds it as a peer.
//
// Checks: a URI that parses, written back in the form oob_base.cc writes
// ("<job>.<vpid>;host=<identity>;<component>=<part>..."), parses to the
// same value; so does a host identity that parses.
#include <orca/interfaces.h>
#include <orca/oob.h>

#include "fuzz_input.h"

namespace orca::oob {
namespace {

using fuzz::fuzz_require;

std::string write_uri(const ContactUri& uri) {
  std::string out = uri.name.to_string() + ";host=" + uri.host_identity;
  for (const auto& [component, part] : uri.parts) out += ";" + component + "=" + part;
  return out;
}

void check_host_identity(std::string_view text) {
  auto id = net::HostIdentity::parse(text);
  if (!id) return;
  auto again = net::HostIdentity::parse(id->to_string());
  fuzz_require(again.has_value() && *again == *id, "a host identity does not survive being written back");
}

}  // namespace
}  // namespace orca::oob

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::oob;
  orca::fuzz::FuzzInput in(data, size);
  const std::string_view text = in.rest_text();
  check_host_identity(text);
  auto uri = ContactUri::parse(text);
  if (!uri) {
    orca::fuzz::fuzz_require(!uri.error().summary().empty(), "a refusal without a reason");
    return 0;
  }
  check_host_identity(uri->host_identity);
  auto again = ContactUri::parse(write_uri(uri.value()));
  orca::fuzz::fuzz_require(again.ok(), "a parsed URI written back does not parse");
  orca::fuzz::fuzz_require(again->name == uri->name && again->host_identity == uri->host_identity &&
                               again->parts == uri->parts,
                           "a parsed URI written back parses to another value");
  return 0;
}
