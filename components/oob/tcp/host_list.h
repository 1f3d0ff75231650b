// fill_from_host: a list the oob host writes into a buffer of the caller's
// (select_local, rank), asked with little room first.
//
// Those host calls write at most the room they are given and say how many
// they wrote; they cannot say how many there were. Asking with room for
// the most there could ever be (4096 local addresses) zeroed some 300 KB
// on every call: about 70 page faults of fresh memory, in every daemon's
// start. Here the first call gets `first` entries of room, and a call that
// fills all of it (so may have been cut short) is made again with four
// times the room, up to `most`.
#ifndef ORCA_COMPONENTS_OOB_TCP_HOST_LIST_H
#define ORCA_COMPONENTS_OOB_TCP_HOST_LIST_H

#include <orca/mca_component.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace orca::oob::tcp {

/* `fill(buffer, &n)` writes at most n entries into buffer and sets n to
 * the number written. On OK, `out` holds what the last call wrote; on
 * any other result, `out` is empty and the result is returned. */
template <typename T, typename Fill>
orca_mca_rc fill_from_host(std::vector<T>& out, std::size_t first, std::size_t most, Fill&& fill) {
  for (std::size_t room = std::max<std::size_t>(1, std::min(first, most));; room = std::min(room * 4, most)) {
    out.assign(room, T{});
    std::size_t n = room;
    const orca_mca_rc rc = fill(out.data(), &n);
    if (rc != ORCA_MCA_OK) {
      out.clear();
      return rc;
    }
    if (n < room || room == most) {
      out.resize(std::min(n, room));
      return ORCA_MCA_OK;
    }
  }
}

}  // namespace orca::oob::tcp

#endif
