// Slurm's SLURM_TASKS_PER_NODE: "2(x3),5" is 2, 2, 2, 5.
#include <orca/host_list.h>

#include "launch/launch_text.h"
#include "mca/var/text.h"

namespace orca::launch {

Result<std::vector<unsigned>> parse_tasks_per_node(std::string_view text, std::string_view source) {
  auto error = [&](std::string_view item, std::string why) {
    return Message("launch", "tasks-per-node-syntax",
                   {{"source", std::string(source)},
                    {"text", excerpt(text)},
                    {"item", excerpt(item)},
                    {"why", std::move(why)}});
  };
  const std::string_view list = mca::trim(text);
  if (list.empty()) return error(list, "it is empty");
  std::vector<unsigned> out;
  for (const std::string& piece : mca::split(list, ',')) {
    const std::string_view item = piece;
    if (item.empty()) return error(item, "an item is empty: two commas in a row, or a comma at the start or end");
    const size_t paren = item.find('(');
    const std::string_view count_text = item.substr(0, paren);
    auto count = parse_whole_number(count_text, 1, kMaxSlotsPerHost);
    if (!count) return error(item, "the task count must be " + valid_slots_text());
    std::uint64_t repeat = 1;
    if (paren != std::string_view::npos) {
      // "(xR)" and nothing after it.
      const std::string_view tail = item.substr(paren);
      if (tail.size() < 4 || tail[1] != 'x' || tail.back() != ')') {
        return error(item, "a repeat is written N(xR), as in 2(x3) for three nodes of 2 tasks");
      }
      auto r = parse_whole_number(tail.substr(2, tail.size() - 3), 1, kMaxHostNames);
      if (!r) return error(item, "the repeat R of N(xR) must be a whole number from 1 to " + std::to_string(kMaxHostNames));
      repeat = *r;
    }
    if (repeat > kMaxHostNames - out.size()) {
      return error(item, "the list names more than " + std::to_string(kMaxHostNames) + " nodes");
    }
    out.insert(out.end(), static_cast<size_t>(repeat), static_cast<unsigned>(*count));
  }
  return out;
}

}  // namespace orca::launch
