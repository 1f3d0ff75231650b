// The hostlist expander's building blocks, shared by the --host, hostfile
// and Slurm parsers (not part of the public API; see orca/host_list.h).
#ifndef ORCA_LAUNCH_HOSTLIST_EXPAND_H
#define ORCA_LAUNCH_HOSTLIST_EXPAND_H

#include <orca/host_list.h>
#include <orca/result.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace orca::launch {

/* A character a host name may contain: A-Z a-z 0-9 . - _ */
bool is_host_char(char c);

/* `text` cut at the commas outside brackets ("a[1,2],b" -> "a[1,2]", "b").
 * Always at least one item; items may be empty. */
std::vector<std::string_view> split_hostlist_items(std::string_view text);

/* What one list (one --host, one hostfile, one SLURM_JOB_NODELIST) may
 * still add, in names and in characters of names. The caller keeps one
 * for the whole list; the expanders take what they add from it. */
struct HostlistBudget {
  std::size_t names = kMaxHostNames;
  std::size_t chars = kMaxHostListChars;
};

/* Appends the names of one item (no comma outside brackets) to `out`,
 * refusing to spend more than `budget` (launch/hostlist-too-large,
 * launch/hostlist-too-long). On an error `out` and `budget` are
 * unchanged. */
Status expand_hostlist_item(std::string_view item, std::string_view source, std::vector<std::string>& out,
                            HostlistBudget& budget);

/* Appends the names of a whole list, as expand_hostlist() describes,
 * from the same budget. On an error `out` and `budget` are unchanged. */
Status expand_hostlist_into(std::string_view text, std::string_view source, std::vector<std::string>& out,
                            HostlistBudget& budget);

}  // namespace orca::launch

#endif
