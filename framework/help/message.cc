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
    out += k + "=" + printable(v);
    sep = "; ";
  }
  return out;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace orca
