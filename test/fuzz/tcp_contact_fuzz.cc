// oob/tcp's part of a contact URI (components/oob/tcp/tcp_contact.h):
// "10.0.0.1/24/physical/5000,[fe80::1%2]/64/veth/5001", from a peer.
//
// Checks: a part that parses is encoded again by encode_contact() to text
// that parses to the same endpoints (the encoder writes "tcp=" first).
#include "oob/tcp/tcp_contact.h"

#include "fuzz_input.h"

namespace orca::oob::tcp {
namespace {

bool same(const Endpoint& a, const Endpoint& b) {
  return a.address == b.address && a.prefix_length == b.prefix_length && a.kind == b.kind && a.port == b.port;
}

}  // namespace
}  // namespace orca::oob::tcp

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::oob::tcp;
  using orca::fuzz::fuzz_require;
  orca::fuzz::FuzzInput in(data, size);
  auto endpoints = parse_contact(in.rest_text());
  if (!endpoints) return 0;
  for (const Endpoint& e : endpoints.value()) (void)e.socket_text();
  const std::string text = encode_contact(endpoints.value());
  fuzz_require(text.rfind("tcp=", 0) == 0, "encode_contact() does not start with tcp=");
  auto again = parse_contact(std::string_view(text).substr(4));
  fuzz_require(again.ok(), "encoded endpoints do not parse");
  fuzz_require(again->size() == endpoints->size(), "encoded endpoints parse to another count");
  for (size_t i = 0; i < again->size(); ++i) {
    fuzz_require(same(again.value()[i], endpoints.value()[i]), "an encoded endpoint parses to another value");
  }
  return 0;
}
