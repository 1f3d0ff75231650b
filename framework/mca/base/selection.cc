// The `<framework>` selection variable: "a,b" includes, "^a,b" excludes.
#include <orca/mca_framework.h>

#include "mca/var/text.h"

#include <algorithm>

namespace orca::mca {

bool Selection::allows(std::string_view component) const {
  if (names.empty()) return true;
  const bool listed = std::find(names.begin(), names.end(), component) != names.end();
  return exclude ? !listed : listed;
}

Result<Selection> parse_selection(std::string_view framework, std::string_view text,
                                  const std::vector<std::string>& available, const Source& source) {
  Selection sel;
  std::string_view body = trim(text);
  if (body.empty()) return sel;
  auto error = [&](std::string why) {
    return Message("mca-base", "bad-selection",
                   {{"framework", std::string(framework)},
                    {"value", std::string(text)},
                    {"source", source.describe()},
                    {"why", std::move(why)},
                    {"available", available.empty() ? "(none found)" : join(available, ", ")}});
  };
  if (body.front() == '^') {
    sel.exclude = true;
    body.remove_prefix(1);
  }
  for (const auto& item : split(body, ',')) {
    std::string name(trim(item));
    if (name.empty()) return error("it has an empty entry");
    if (name.find('^') != std::string::npos) return error("'^' may only start the whole list");
    if (std::find(available.begin(), available.end(), name) == available.end())
      return error("there is no component named '" + name + "'");
    sel.names.push_back(std::move(name));
  }
  return sel;
}

}  // namespace orca::mca
