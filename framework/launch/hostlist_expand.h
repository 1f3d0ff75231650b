// The hostlist expander's building blocks, shared by the --host, hostfile
// and Slurm parsers (not part of the public API; see orca/host_list.h).
#ifndef ORCA_LAUNCH_HOSTLIST_EXPAND_H
#define ORCA_LAUNCH_HOSTLIST_EXPAND_H

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

/* Appends the names of one item (no comma outside brackets) to `out`,
 * refusing to let `out` grow beyond `limit` names. On an error `out` is
 * unchanged. */
Status expand_hostlist_item(std::string_view item, std::string_view source, std::vector<std::string>& out,
                            std::size_t limit);

/* Appends the names of a whole list, as expand_hostlist() describes, with
 * the same limit on the size of `out`. */
Status expand_hostlist_into(std::string_view text, std::string_view source, std::vector<std::string>& out,
                            std::size_t limit);

}  // namespace orca::launch

#endif
