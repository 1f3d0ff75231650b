// --host h1:4,node[1-3]:2,h2 and merging repeated hosts.
#include <orca/host_list.h>

#include "launch/hostlist_expand.h"
#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <cstdint>
#include <unordered_map>

namespace orca::launch {

namespace {

constexpr std::string_view kHostOption = "--host";

Message bad_slots(std::string_view source, std::string_view host, std::string_view slots, std::string why) {
  return Message("launch", "host-bad-slots",
                 {{"source", std::string(source)},
                  {"host", excerpt(host)},
                  {"slots", excerpt(slots)},
                  {"why", std::move(why)}});
}

}  // namespace

Result<std::vector<HostSlots>> merge_duplicate_hosts(std::vector<HostSlots> hosts, std::string_view source) {
  // A million hosts are allowed: the index points into `out` (reserved,
  // so it never moves) instead of copying every name, and never rehashes.
  std::vector<HostSlots> out;
  out.reserve(hosts.size());
  std::unordered_map<std::string_view, size_t> index;  // name in out -> its position
  index.reserve(hosts.size());
  for (HostSlots& h : hosts) {
    const auto it = index.find(h.name);
    const bool inserted = it == index.end();
    const std::uint64_t before = inserted ? 0 : out[it->second].slots;
    const std::uint64_t sum = before + h.slots;
    if (sum > kMaxSlotsPerHost) {
      return bad_slots(source, h.name, std::to_string(sum),
                       inserted ? "slots must be " + valid_slots_text()
                                : "the host is listed more than once and its slots add up to more than " +
                                      std::to_string(kMaxSlotsPerHost));
    }
    if (inserted) {
      out.push_back(std::move(h));
      index.emplace(out.back().name, out.size() - 1);
      continue;
    }
    HostSlots& first = out[it->second];
    first.slots = static_cast<unsigned>(sum);
    first.slots_given = first.slots_given || h.slots_given;
  }
  return out;
}

Result<std::vector<HostSlots>> parse_host_option(std::string_view text) {
  const std::string_view list = mca::trim(text);
  if (list.empty()) return Message("launch", "hostlist-empty", {{"source", std::string(kHostOption)}});
  std::vector<HostSlots> hosts;
  std::vector<std::string> names;
  HostlistBudget budget;  // for the hosts of the whole option, not of one item
  for (std::string_view item : split_hostlist_items(list)) {
    // Slots follow the last ':' (a host name has none).
    const size_t colon = item.rfind(':');
    const std::string_view name_part = item.substr(0, colon);
    HostSlots proto;
    if (colon != std::string_view::npos) {
      const std::string_view slots_text = item.substr(colon + 1);
      if (name_part.empty()) {
        return Message("launch", "hostlist-syntax",
                       {{"source", std::string(kHostOption)},
                        {"part", excerpt(item)},
                        {"why", "there is no host before the ':'"}});
      }
      auto slots = parse_whole_number(slots_text, 1, kMaxSlotsPerHost);
      if (!slots) return bad_slots(kHostOption, name_part, slots_text, "slots must be " + valid_slots_text());
      proto.slots = static_cast<unsigned>(*slots);
      proto.slots_given = true;
    }
    names.clear();
    if (Status st = expand_hostlist_item(name_part, kHostOption, names, budget); !st) {
      return st.error();
    }
    for (std::string& n : names) {
      HostSlots h = proto;
      h.name = std::move(n);
      hosts.push_back(std::move(h));
    }
  }
  return merge_duplicate_hosts(std::move(hosts), kHostOption);
}

Result<std::vector<HostSlots>> hosts_with_counts(const std::vector<std::string>& names,
                                                 const std::vector<unsigned>& counts, std::string_view names_source,
                                                 std::string_view counts_source) {
  if (names.size() != counts.size()) {
    return Message("launch", "tasks-per-node-mismatch",
                   {{"names_source", std::string(names_source)},
                    {"names", std::to_string(names.size())},
                    {"counts_source", std::string(counts_source)},
                    {"counts", std::to_string(counts.size())}});
  }
  std::vector<HostSlots> hosts;
  hosts.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) hosts.push_back(HostSlots{names[i], counts[i], true});
  return merge_duplicate_hosts(std::move(hosts), names_source);
}

}  // namespace orca::launch
