// ProcessName text form.
#include <orca/process_name.h>

#include <charconv>

namespace orca {

std::string ProcessName::to_string() const { return std::to_string(job) + "." + std::to_string(vpid); }

std::optional<ProcessName> ProcessName::parse(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view d, uint32_t* out) {
    auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), *out);
    return !d.empty() && ec == std::errc() && end == d.data() + d.size();
  };
  ProcessName n;
  if (!number(text.substr(0, dot), &n.job) || !number(text.substr(dot + 1), &n.vpid)) return std::nullopt;
  return n;
}

}  // namespace orca
