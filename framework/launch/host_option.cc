// --host h1:4,node[1-3]:2,h2 and merging repeated hosts.
#include <orca/host_list.h>

#include "launch/host_word.h"
#include "launch/hostlist_expand.h"
#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

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
  // A million hosts are allowed: positions sorted by name (stably, so each
  // name's in list order) find the repeats without a hash node and a
  // pointer chase per host (orcarun's refusal of a million-name --host:
  // 3.0 s with a hash index, 1.8 s with this).
  std::vector<std::uint32_t> order(hosts.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return hosts[a].name < hosts[b].name; });
  std::vector<bool> repeat(hosts.size(), false);
  // The first place, in list order, where a host's slots add up past the
  // bound is the one reported.
  std::size_t bad = hosts.size();
  std::uint64_t bad_sum = 0;
  for (std::size_t i = 0; i < order.size();) {
    const std::uint32_t first = order[i];
    std::uint64_t sum = 0;
    std::uint64_t cap = 0;
    bool given = false;
    bool capped = true;
    std::size_t j = i;
    for (; j < order.size() && hosts[order[j]].name == hosts[first].name; ++j) {
      const std::uint32_t at = order[j];
      sum += hosts[at].slots;
      given = given || hosts[at].slots_given;
      cap += hosts[at].max_slots;
      capped = capped && hosts[at].max_slots != 0;
      if (sum > kMaxSlotsPerHost && at < bad) {
        bad = at;
        bad_sum = sum;
      }
      if (j > i) repeat[at] = true;
    }
    if (sum <= kMaxSlotsPerHost) {
      hosts[first].slots = static_cast<unsigned>(sum);
      hosts[first].slots_given = given;
      // A cap beyond the bound caps nothing the bound does not.
      hosts[first].max_slots = capped ? static_cast<unsigned>(std::min<std::uint64_t>(cap, kMaxSlotsPerHost)) : 0;
    }
    i = j;
  }
  if (bad < hosts.size()) {
    const bool alone = !repeat[bad];
    return bad_slots(source, hosts[bad].name, std::to_string(bad_sum),
                     alone ? "slots must be " + valid_slots_text()
                           : "the host is listed more than once and its slots add up to more than " +
                                 std::to_string(kMaxSlotsPerHost));
  }
  std::vector<HostSlots> out;
  out.reserve(hosts.size());
  for (std::size_t k = 0; k < hosts.size(); ++k) {
    if (!repeat[k]) out.push_back(std::move(hosts[k]));
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
    auto word = split_host_word(item, kHostOption);
    if (!word) return word.error();
    const HostWord& w = word.value();
    HostSlots proto;
    if (w.slots) {
      auto slots = parse_whole_number(*w.slots, 1, kMaxSlotsPerHost);
      if (!slots) {
        return bad_slots(kHostOption, w.address.empty() ? w.hostlist : std::string_view(w.address), *w.slots,
                         "slots must be " + valid_slots_text());
      }
      proto.slots = static_cast<unsigned>(*slots);
      proto.slots_given = true;
    }
    names.clear();
    if (Status st = host_word_names(w, kHostOption, names, budget); !st) return st.error();
    if (Status st = add_user(w.user, names, item, kHostOption, budget); !st) return st.error();
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
