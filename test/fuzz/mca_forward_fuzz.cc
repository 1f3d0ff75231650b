// The settings orcarun forwards to its daemons (decode_settings,
// framework/mca/var/mca_forward.h), carried in the bootstrap:
// "orca-settings 1" and one escaped "<name> <kind> <order> <line> <file>
// <value>" per line.
//
// Checks: decoded settings, encoded again, decode to the same settings.
#include "mca/var/mca_forward.h"

#include "fuzz_input.h"

namespace orca::mca {
namespace {

bool same(const Setting& a, const Setting& b) {
  return a.name == b.name && a.text == b.text && a.source.kind == b.source.kind && a.source.file == b.source.file &&
         a.source.line == b.source.line && a.source.order == b.source.order;
}

}  // namespace
}  // namespace orca::mca

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::mca;
  using orca::fuzz::fuzz_require;
  orca::fuzz::FuzzInput in(data, size);
  auto settings = decode_settings(in.rest_text());
  if (!settings) return 0;
  const std::string text = encode_settings(settings.value());
  auto again = decode_settings(text);
  fuzz_require(again.ok(), "encoded settings do not decode");
  fuzz_require(again->size() == settings->size(), "encoded settings decode to another count");
  for (size_t i = 0; i < again->size(); ++i) {
    fuzz_require(same(again.value()[i], settings.value()[i]), "an encoded setting decodes to another value");
  }
  fuzz_require(encode_settings(again.value()) == text, "encoding is not stable");
  return 0;
}
