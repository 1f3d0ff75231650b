// ContactUri: "<job>.<vpid>;host=<identity>;<component>=<part>;..."
#include <orca/oob.h>

namespace orca::oob {

Result<ContactUri> ContactUri::parse(std::string_view text) {
  auto bad = [&](std::string why) {
    return Message("oob", "bad-uri", {{"uri", std::string(text.substr(0, 200))}, {"why", std::move(why)}});
  };
  ContactUri uri;
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (first) {
      auto name = ProcessName::parse(item);
      if (!name) return bad("it does not start with a process name <job>.<vpid>");
      uri.name = *name;
      first = false;
      continue;
    }
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) return bad("\"" + std::string(item) + "\" is not <component>=<part>");
    std::string key(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    if (key == "host") {
      if (!uri.host_identity.empty()) return bad("host= appears twice");
      uri.host_identity = std::move(value);
    } else if (!uri.parts.emplace(std::move(key), std::move(value)).second) {
      return bad("a component appears twice");
    }
  }
  if (uri.host_identity.empty()) return bad("there is no host=<identity>");
  return uri;
}

}  // namespace orca::oob
