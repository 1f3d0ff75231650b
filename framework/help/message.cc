// Message: accessors and the one-line summary used when no help text exists.
#include <orca/message.h>

namespace orca {

std::string Message::arg(std::string_view key) const {
  for (const auto& [k, v] : args_) {
    if (k == key) return v;
  }
  return {};
}

std::string Message::summary() const {
  std::string out = area_ + "/" + topic_;
  const char* sep = ": ";
  for (const auto& [k, v] : args_) {
    out += sep;
    out += k + "=" + v;
    sep = "; ";
  }
  return out;
}

}  // namespace orca
