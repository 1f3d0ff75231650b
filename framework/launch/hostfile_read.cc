// Reading a hostfile: a regular file of at most kMaxHostfileSize bytes.
#include <orca/bounded_file.h>
#include <orca/host_list.h>

namespace orca::launch {

Result<std::vector<HostSlots>> read_hostfile(const std::string& path) {
  const BoundedFile file = read_bounded_file(path, kMaxHostfileSize, "a hostfile");
  if (!file.ok()) return Message("launch", "hostfile-unreadable", {{"file", path}, {"why", file.error}});
  return parse_hostfile_text(file.text, path);
}

}  // namespace orca::launch
