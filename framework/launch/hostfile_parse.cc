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

// The settings after the host: slots=N, with spaces around '=' allowed.
// Returns the slots, or nothing when not given.
Result<std::optional<unsigned>> parse_settings(std::string_view rest, const LineContext& at) {
  std::optional<unsigned> slots;
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
    skip_blanks();
    if ((key == "slots" || key == "max_slots" || key == "max-slots") && (i == rest.size() || rest[i] != '=')) {
      return at.error("\"" + std::string(key) + "\" needs a value; write slots=4");
    }
    if (key.empty() || i == rest.size() || rest[i] != '=') {
      return at.error("after the host, \"" + excerpt(key.empty() ? rest.substr(i) : key) +
                      "\" is not a setting such as slots=4; put one host per line, or separate hosts with commas");
    }
    ++i;  // '='
    skip_blanks();
    const std::string_view value = word();
    if (value.empty()) return at.error("\"" + std::string(key) + "=\" has no value; write " + std::string(key) + "=4");
    if (key == "max_slots" || key == "max-slots") {
      return Message("launch", "hostfile-max-slots",
                     {{"file", std::string(at.file)}, {"line", std::to_string(at.line)}, {"text", excerpt(at.text)}});
    }
    if (key != "slots") {
      return at.error("the setting \"" + excerpt(key) + "\" is unknown; a host takes only slots=N");
    }
    if (slots) return at.error("slots= is given twice");
    auto n = parse_whole_number(value, 1, kMaxSlotsPerHost);
    if (!n) return at.error("slots=" + excerpt(value) + " is invalid: slots must be " + valid_slots_text());
    slots = static_cast<unsigned>(*n);
  }
  return slots;
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
    auto slots = parse_settings(line.substr(host_end), at);
    if (!slots) return slots.error();

    const std::string source = "hostfile " + std::string(file_name) + ":" + std::to_string(line_no);
    // Hydra's "host:N" is slots too.
    auto word = split_host_word(host, source);
    if (!word) return word.error();
    if (word->slots) {
      if (slots->has_value()) return at.error("the slots are given twice, as host:N and as slots=N");
      auto n = parse_whole_number(*word->slots, 1, kMaxSlotsPerHost);
      if (!n) return at.error("\"" + excerpt(host) + "\" has invalid slots: slots must be " + valid_slots_text());
      slots.value() = static_cast<unsigned>(*n);
    }
    names.clear();
    if (Status st = host_word_names(word.value(), source, names, budget); !st) return st.error();
    // USER@ stays with the name: the agent (ssh) is given both.
    if (Status st = add_user(word->user, names, host, source, budget); !st) return st.error();
    for (std::string& n : names) {
      hosts.push_back(HostSlots{std::move(n), slots->value_or(1u), slots->has_value()});
    }
  }
  if (hosts.empty()) return Message("launch", "hostfile-empty", {{"file", std::string(file_name)}});
  return merge_duplicate_hosts(std::move(hosts), "hostfile " + std::string(file_name));
}

}  // namespace orca::launch
