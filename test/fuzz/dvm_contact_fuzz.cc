// A DVM's contact file (framework/launch/dvm_contact.h): text a user's
// directory holds, read by orcarun --dvm and orcadvm status|stop; whoever
// could write it there could hand them any bytes.
//
// Checks: a text that parses is encoded again by encode_dvm_contact() to
// text that parses to the same contact; the values stay within their
// bounds (a positive pid, a uri without blanks or control bytes). The size
// bound is read_dvm_contact's, before any parsing.
#include "launch/dvm_contact.h"

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using orca::fuzz::fuzz_require;
  orca::fuzz::FuzzInput in(data, size);
  const std::string_view text = in.rest_text();
  auto contact = orca::launch::parse_dvm_contact(text, "fuzz");
  if (!contact) return 0;
  fuzz_require(contact->pid > 0, "a contact with a pid of 0 or less parsed");
  for (char c : contact->uri) {
    fuzz_require(static_cast<unsigned char>(c) > ' ' && c != 0x7f, "a uri with a blank or control byte parsed");
  }
  const std::string again = orca::launch::encode_dvm_contact(contact.value());
  auto back = orca::launch::parse_dvm_contact(again, "fuzz");
  fuzz_require(back.ok(), "an encoded contact does not parse");
  fuzz_require(back.value() == contact.value(), "an encoded contact parses to another value");
  return 0;
}
