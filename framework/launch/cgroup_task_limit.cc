// The tightest pids.max of this process's cgroups and their ancestors.
#include "cgroup_task_limit.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace orca::launch {

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool has_word(std::string_view list, std::string_view word) {
  for (auto w : split(list, ',')) {
    if (w == word) return true;
  }
  return false;
}

// A mount of a cgroup hierarchy: where it is, and which cgroup path its
// root is (a container sees its own cgroup as the root of the mount).
struct HierarchyMount {
  std::string point;
  std::string root;
};

// The mount of the v2 hierarchy (`v2`) or of the v1 hierarchy holding the
// pids controller, from /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT
// POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER_OPTIONS".
std::optional<HierarchyMount> find_mount(std::string_view mountinfo, bool v2) {
  for (auto line : split(mountinfo, '\n')) {
    const size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const auto before = split(line.substr(0, dash), ' ');
    const auto after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    const bool match = v2 ? after[0] == "cgroup2" : after[0] == "cgroup" && has_word(after[2], "pids");
    if (match) return HierarchyMount{std::string(before[4]), std::string(before[3])};
  }
  return std::nullopt;
}

std::optional<std::uint64_t> number_in(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;  // "max", or unreadable
  return v;
}

}  // namespace

std::optional<CgroupTaskLimit> tightest_cgroup_task_limit(std::string_view proc_self_cgroup, std::string_view mountinfo,
                                                          const FileReader& read) {
  std::optional<CgroupTaskLimit> tightest;
  for (auto line : split(proc_self_cgroup, '\n')) {
    // "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const bool v2 = line.substr(0, first) == "0" && controllers.empty();
    if (!v2 && !has_word(controllers, "pids")) continue;
    const auto mount = find_mount(mountinfo, v2);
    if (!mount) continue;
    std::string path(line.substr(second + 1));
    // The part of the path below the mount's root is what is under its point.
    if (mount->root != "/" && path.compare(0, mount->root.size(), mount->root) == 0) path.erase(0, mount->root.size());
    while (!path.empty() && path.back() == '/') path.pop_back();
    for (;;) {
      const std::string dir = mount->point + path;
      const auto max = number_in(read(dir + "/pids.max"));
      const auto current = number_in(read(dir + "/pids.current"));
      if (max && current) {
        CgroupTaskLimit here{dir, *max, *current};
        if (!tightest || here.left() < tightest->left()) tightest = std::move(here);
      }
      if (path.empty()) break;
      const size_t slash = path.rfind('/');
      path.erase(slash == std::string::npos ? 0 : slash);
    }
  }
  return tightest;
}

std::optional<CgroupTaskLimit> read_cgroup_task_limit() {
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const auto cgroup = read("/proc/self/cgroup");
  const auto mountinfo = read("/proc/self/mountinfo");
  if (!cgroup || !mountinfo) return std::nullopt;
  return tightest_cgroup_task_limit(*cgroup, *mountinfo, read);
}

}  // namespace orca::launch
