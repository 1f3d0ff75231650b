// The environment orcarun forwards to every rank.
#include "forwarded_environment.h"

#include <map>
#include <string_view>

namespace orca::orcarun {

namespace {

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::string kib(std::size_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }

// Where each forwarded name sits in the result, so that a later request
// replaces the value in place.
class Collector {
 public:
  void set(std::string_view name, std::string_view value, const std::string& option) {
    std::string entry;
    entry.reserve(name.size() + 1 + value.size());
    entry.append(name).append("=").append(value);
    auto [it, added] = index_.try_emplace(std::string(name), out_.variables.size());
    if (added) {
      out_.variables.push_back(std::move(entry));
      options_.push_back(option);
    } else {
      out_.variables[it->second] = std::move(entry);
      options_[it->second] = option;
    }
  }
  ForwardedEnvironment& result() { return out_; }
  // The option that set variable i last (for messages).
  const std::string& option_of(std::size_t i) const { return options_[i]; }

 private:
  ForwardedEnvironment out_;
  std::vector<std::string> options_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace

Result<ForwardedEnvironment> resolve_forwarding(std::span<const ForwardRequest> requests,
                                                std::span<const std::string> environment,
                                                ForwardBounds bounds) {
  // orcarun's variables by name, the first entry of a name winning (getenv's
  // reading), in environment order for PREFIX*.
  std::map<std::string_view, std::string_view, std::less<>> own;
  std::vector<std::pair<std::string_view, std::string_view>> own_order;
  for (const std::string& entry : environment) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string_view view(entry);
    if (own.try_emplace(view.substr(0, eq), view.substr(eq + 1)).second) own_order.emplace_back(view.substr(0, eq), view.substr(eq + 1));
  }
  Collector collected;
  for (const ForwardRequest& r : requests) {
    switch (r.kind) {
      case ForwardRequest::Kind::Value:
        collected.set(r.name, r.value, r.option);
        break;
      case ForwardRequest::Kind::FromEnvironment: {
        auto it = own.find(r.name);
        if (it == own.end()) {
          return Message("orcarun", "forwarded-variable-unset", {{"option", printable(r.option)}, {"name", printable(r.name)}});
        }
        collected.set(r.name, it->second, r.option);
        break;
      }
      case ForwardRequest::Kind::Prefix: {
        bool matched = false;
        for (const auto& [name, value] : own_order) {
          if (!name.starts_with(r.name)) continue;
          collected.set(name, value, r.option);
          matched = true;
        }
        if (!matched) {
          collected.result().warnings.emplace_back(
              "orcarun", "forwarded-prefix-unmatched", Message::Args{{"option", printable(r.option)}, {"prefix", printable(r.name)}});
        }
        break;
      }
    }
  }
  // The bounds hold for what reaches a rank: after a later request replaced
  // an earlier one's value.
  std::size_t total = 0;
  const std::vector<std::string>& variables = collected.result().variables;
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const std::size_t size = variables[i].size() + 1;  // and its NUL, as execve counts
    if (size > bounds.per_variable) {
      return Message("orcarun", "forwarded-variable-too-large",
                     {{"option", printable(collected.option_of(i))},
                      {"name", printable(name_of(variables[i]))},
                      {"size", std::to_string(size)},
                      {"limit", std::to_string(bounds.per_variable)},
                      {"limit_kib", kib(bounds.per_variable)}});
    }
    total += size;
  }
  if (total > bounds.total) {
    return Message("orcarun", "forwarded-environment-too-large",
                   {{"count", std::to_string(variables.size())},
                    {"size", std::to_string(total)},
                    {"limit", std::to_string(bounds.total)},
                    {"limit_kib", kib(bounds.total)}});
  }
  return std::move(collected.result());
}

}  // namespace orca::orcarun
