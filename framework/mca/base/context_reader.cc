// ContextReader: checked reads of a component's variables.
#include <orca/mca_context_reader.h>

namespace orca::mca {

Message ContextReader::unusable(const char* name, std::string why) const {
  const std::string full = prefix_ + name;
  return Message("mca-var", "unusable-var", {{"name", full}, {"why", full + " " + std::move(why)}});
}

Status ContextReader::read(const char* name, bool& target) const {
  int v = 0;
  if (Status st = read(name, v); !st) return st;
  target = v != 0;
  return {};
}

Status ContextReader::read(const char* name, std::chrono::milliseconds& target) const {
  std::chrono::milliseconds::rep v = 0;
  if (Status st = read(name, v); !st) return st;
  target = std::chrono::milliseconds(v);
  return {};
}

Result<std::string> ContextReader::text(const char* name) const {
  // The buffer grows until the value fits (port lists can be long).
  for (size_t size = 1024; size <= (1u << 20); size *= 4) {
    std::string buf(size, '\0');
    if (context_.get_text(&context_, name, buf.data(), buf.size()) == ORCA_MCA_OK) return std::string(buf.c_str());
  }
  return unusable(name, "cannot be read as text (no such variable, or longer than 1 MiB)");
}

}  // namespace orca::mca
