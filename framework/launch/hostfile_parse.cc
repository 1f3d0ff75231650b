// The text of a hostfile: "node[1-4] slots=8", comments, blank lines.
#include <orca/host_list.h>

#include "launch/host_word.h"
#include "launch/hostlist_expand.h"
#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <optional>

namespace orca::launch {

namespace {

// One line's problem, named by file and line.
struct LineContext {
  std::string_view file;
  size_t line = 0;
  std::string_view text;

  Message error(std::string why) const {
    return Message("launch", "hostfile-syntax",
                   {{"file", std::string(file)},
                    {"line", std::to_string(line)},
                    {"text", excerpt(text)},
                    {"why", std::move(why)}});
  }
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// A line's settings: slots=N and max_slots=M, each at most once.
struct HostSettings {
  std::optional<unsigned> slots;
  unsigned max_slots = 0;  // 0: not given
};

// One setting's value, from 1 to kMaxSlotsPerHost.
Result<unsigned> setting_number(std::string_view key, std::string_view value, const LineContext& at) {
  auto n = parse_whole_number(value, 1, kMaxSlotsPerHost);
  if (!n) return at.error(std::string(key) + "=" + excerpt(value) + " is invalid: " + std::string(key) + " must be " +
                          valid_slots_text());
  return static_cast<unsigned>(*n);
}

// The settings after the host: slots=N, max_slots=M (or max-slots), with
// spaces around '=' allowed.
Result<HostSettings> parse_settings(std::string_view rest, const LineContext& at) {
  HostSettings settings;
  size_t i = 0;
  auto skip_blanks = [&] {
    while (i < rest.size() && is_blank(rest[i])) ++i;
  };
  auto word = [&] {
    const size_t start = i;
    while (i < rest.size() && !is_blank(rest[i]) && rest[i] != '=') ++i;
    return rest.substr(start, i - start);
  };
  while (true) {
    skip_blanks();
    if (i == rest.size()) break;
    const std::string_view key = word();
    const bool is_max = key == "max_slots" || key == "max-slots";
    skip_blanks();
    if ((key == "slots" || is_max) && (i == rest.size() || rest[i] != '=')) {
      return at.error("\"" + std::string(key) + "\" needs a value; write " + std::string(key) + "=4");
    }
    if (key.empty() || i == rest.size() || rest[i] != '=') {
      return at.error("after the host, \"" + excerpt(key.empty() ? rest.substr(i) : key) +
                      "\" is not a setting such as slots=4; put one host per line, or separate hosts with commas");
    }
    ++i;  // '='
    skip_blanks();
    const std::string_view value = word();
    if (value.empty()) return at.error("\"" + std::string(key) + "=\" has no value; write " + std::string(key) + "=4");
    if (key != "slots" && !is_max) {
      return at.error("the setting \"" + excerpt(key) + "\" is unknown; a host takes only slots=N and max_slots=M");
    }
    if (is_max ? settings.max_slots != 0 : settings.slots.has_value()) {
      return at.error(std::string(is_max ? "max_slots" : "slots") + "= is given twice");
    }
    auto n = setting_number(key, value, at);
    if (!n) return n.error();
    if (is_max) {
      settings.max_slots = n.value();
    } else {
      settings.slots = n.value();
    }
  }
  return settings;
}

}  // namespace

Result<std::vector<HostSlots>> parse_hostfile_text(std::string_view text, std::string_view file_name) {
  std::vector<HostSlots> hosts;
  std::vector<std::string> names;
  HostlistBudget budget;  // for the whole file
  size_t line_no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line_no;

    const std::string_view line = mca::trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    const LineContext at{file_name, line_no, line};
    size_t host_end = 0;
    while (host_end < line.size() && !is_blank(line[host_end])) ++host_end;
    const std::string_view host = line.substr(0, host_end);
    if (host.find('=') != std::string_view::npos) {
      return at.error("the line begins with a setting; put the host first, as in: node1 slots=4");
    }
    auto settings = parse_settings(line.substr(host_end), at);
    if (!settings) return settings.error();
    std::optional<unsigned>& slots = settings.value().slots;

    const std::string source = "hostfile " + std::string(file_name) + ":" + std::to_string(line_no);
    // Hydra's "host:N" is slots too.
    auto word = split_host_word(host, source);
    if (!word) return word.error();
    if (word->slots) {
      if (slots.has_value()) return at.error("the slots are given twice, as host:N and as slots=N");
      auto n = parse_whole_number(*word->slots, 1, kMaxSlotsPerHost);
      if (!n) return at.error("\"" + excerpt(host) + "\" has invalid slots: slots must be " + valid_slots_text());
      slots = static_cast<unsigned>(*n);
    }
    const unsigned max_slots = settings.value().max_slots;
    if (max_slots != 0 && max_slots < slots.value_or(1u)) {
      return at.error("max_slots=" + std::to_string(max_slots) + " is below the host's " +
                      std::to_string(slots.value_or(1u)) + " slots; max_slots is the most processes it may run");
    }
    names.clear();
    if (Status st = host_word_names(word.value(), source, names, budget); !st) return st.error();
    // USER@ stays with the name: the agent (ssh) is given both.
    if (Status st = add_user(word->user, names, host, source, budget); !st) return st.error();
    for (std::string& n : names) {
      hosts.push_back(HostSlots{std::move(n), slots.value_or(1u), slots.has_value(), max_slots});
    }
  }
  if (hosts.empty()) return Message("launch", "hostfile-empty", {{"file", std::string(file_name)}});
  return merge_duplicate_hosts(std::move(hosts), "hostfile " + std::string(file_name));
}

}  // namespace orca::launch
