// inspect_program: a program's ELF closure, read for PMIx client libraries
// and for imports that run or load other code.
#include "program_linkage.h"

#include <orca/program_path.h>
#include <orca/unique_fd.h>

#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

namespace orca::launch {
namespace {

// More objects than any real closure (a PyTorch rank maps about 150).
constexpr size_t kMaxObjects = 1024;

constexpr std::array<std::string_view, 6> kPmixLibraryPrefixes = {
    "libmpi.so", "libmpi_", "libopen-pal.so", "libopen-rte.so", "libpmix.so", "libprrte.so"};

// PMI-1/2 client libraries: MPICH's MPI and the PMI libraries themselves
// (an MPICH built with PMIx links libpmix, found above).
constexpr std::array<std::string_view, 3> kPmiLibraryPrefixes = {"libmpich.so", "libpmi.so", "libpmi2.so"};

// Libraries that pick their interfaces by a data-plane variable
// (rank_network_env.h): UCX, NCCL, libfabric, gloo, PyTorch (libc10 and
// libtorch carry gloo and read MASTER_ADDR). MPI libraries are the two
// lists above.
constexpr std::array<std::string_view, 8> kNetworkLibraryPrefixes = {
    "libucp.so", "libucs.so", "libuct.so", "libnccl.so", "libfabric.so", "libgloo", "libtorch", "libc10"};

constexpr std::array<std::string_view, 15> kLauncherSymbols = {
    "execve", "execv",   "execvp",      "execvpe", "execl", "execlp", "execle", "fexecve",
    "execveat", "posix_spawn", "posix_spawnp", "system", "popen", "dlopen", "dlmopen"};

std::string_view basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Whether a library's file name starts with one of `prefixes` (a soname
// with or without its version).
template <size_t N>
bool named_like(std::string_view name, const std::array<std::string_view, N>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view prefix) { return name.starts_with(prefix); });
}

std::string directory_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(sep, start), text.size());
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/* A file mapped read-only for as long as this lives. */
class MappedFile {
 public:
  static std::optional<MappedFile> open(const std::string& path, std::string& why) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
      why = path + ": " + std::strerror(errno);
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(EI_NIDENT)) {
      why = path + " is not a regular file of an ELF's size";
      return std::nullopt;
    }
    void* at = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (at == MAP_FAILED) {
      why = path + ": mmap: " + std::strerror(errno);
      return std::nullopt;
    }
    return MappedFile(static_cast<const std::uint8_t*>(at), static_cast<size_t>(st.st_size));
  }
  MappedFile(MappedFile&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  MappedFile& operator=(MappedFile&&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }
  const std::uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile(const std::uint8_t* d, size_t n) : data_(d), size_(n) {}
  const std::uint8_t* data_;
  size_t size_;
};

/* What one ELF object says of itself. */
struct ElfObject {
  unsigned char elf_class = 0;  // ELFCLASS32 / ELFCLASS64
  bool dynamic = false;         // has a dynamic section
  std::vector<std::string> needed;
  std::vector<std::string> rpath, runpath;
  std::string launcher_symbol;  // the first imported symbol that runs or loads code
};

/* Reads `file` as the ELF of this machine's byte order; nullopt with `why`
 * for anything else or anything out of bounds. */
template <class Ehdr, class Shdr, class Dyn, class Sym>
std::optional<ElfObject> read_elf(const MappedFile& file, std::string& why) {
  const std::uint8_t* base = file.data();
  const size_t size = file.size();
  auto in_bounds = [size](std::uint64_t off, std::uint64_t len) { return off <= size && len <= size - off; };
  if (!in_bounds(0, sizeof(Ehdr))) {
    why = "truncated ELF header";
    return std::nullopt;
  }
  Ehdr eh;
  std::memcpy(&eh, base, sizeof eh);
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    why = "not an executable or shared object";
    return std::nullopt;
  }
  if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Shdr) ||
      !in_bounds(eh.e_shoff, static_cast<std::uint64_t>(eh.e_shnum) * sizeof(Shdr))) {
    why = "no readable section headers";
    return std::nullopt;
  }
  std::vector<Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), base + eh.e_shoff, sections.size() * sizeof(Shdr));
  auto string_table = [&](std::uint32_t index) -> std::optional<std::string_view> {
    if (index >= sections.size() || sections[index].sh_type != SHT_STRTAB) return std::nullopt;
    const Shdr& s = sections[index];
    if (!in_bounds(s.sh_offset, s.sh_size)) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(base + s.sh_offset), s.sh_size);
  };
  auto string_at = [](std::string_view table, std::uint64_t off) -> std::optional<std::string> {
    if (off >= table.size()) return std::nullopt;
    const size_t end = table.find('\0', off);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(table.substr(off, end - off));
  };

  ElfObject out;
  out.elf_class = base[EI_CLASS];
  for (const Shdr& s : sections) {
    if (s.sh_type != SHT_DYNAMIC && s.sh_type != SHT_DYNSYM) continue;
    const auto strings = string_table(s.sh_link);
    if (!strings || !in_bounds(s.sh_offset, s.sh_size)) {
      why = "a dynamic section out of bounds";
      return std::nullopt;
    }
    if (s.sh_type == SHT_DYNAMIC) {
      out.dynamic = true;
      for (std::uint64_t off = 0; off + sizeof(Dyn) <= s.sh_size; off += sizeof(Dyn)) {
        Dyn d;
        std::memcpy(&d, base + s.sh_offset + off, sizeof d);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag != DT_NEEDED && d.d_tag != DT_RPATH && d.d_tag != DT_RUNPATH) continue;
        auto text = string_at(*strings, d.d_un.d_val);
        if (!text) {
          why = "a dynamic entry names no string";
          return std::nullopt;
        }
        if (d.d_tag == DT_NEEDED) out.needed.push_back(*text);
        if (d.d_tag == DT_RPATH) out.rpath = split(*text, ':');
        if (d.d_tag == DT_RUNPATH) out.runpath = split(*text, ':');
      }
    } else if (out.launcher_symbol.empty()) {
      for (std::uint64_t off = sizeof(Sym); off + sizeof(Sym) <= s.sh_size; off += sizeof(Sym)) {
        Sym sym;
        std::memcpy(&sym, base + s.sh_offset + off, sizeof sym);
        if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0) continue;
        auto name = string_at(*strings, sym.st_name);
        if (!name) continue;
        if (std::find(kLauncherSymbols.begin(), kLauncherSymbols.end(), *name) != kLauncherSymbols.end()) {
          out.launcher_symbol = *name;
          break;
        }
      }
    }
  }
  return out;
}

std::optional<ElfObject> read_object(const std::string& path, std::string& why) {
  auto file = MappedFile::open(path, why);
  if (!file) return std::nullopt;
  const std::uint8_t* id = file->data();
  if (std::memcmp(id, ELFMAG, SELFMAG) != 0) {
    why = id[0] == '#' && id[1] == '!' ? path + " is a script" : path + " is not an ELF file";
    return std::nullopt;
  }
  constexpr unsigned char kNativeData = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (id[EI_DATA] != kNativeData) {
    why = path + " is an ELF of the other byte order";
    return std::nullopt;
  }
  std::optional<ElfObject> object;
  std::string detail;
  if (id[EI_CLASS] == ELFCLASS64) {
    object = read_elf<Elf64_Ehdr, Elf64_Shdr, Elf64_Dyn, Elf64_Sym>(*file, detail);
  } else if (id[EI_CLASS] == ELFCLASS32) {
    object = read_elf<Elf32_Ehdr, Elf32_Shdr, Elf32_Dyn, Elf32_Sym>(*file, detail);
  } else {
    detail = "an unknown ELF class";
  }
  if (!object) why = path + ": " + detail;
  return object;
}

/* The directories of /etc/ld.so.conf and the files it includes. */
void read_ld_so_conf(const std::string& file, std::vector<std::string>& dirs, int depth) {
  if (depth > 8) return;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::replace(line.begin(), line.end(), '\t', ' ');
    const auto words = split(line, ' ');
    if (words.empty()) continue;
    if (words[0] == "include") {
      for (size_t i = 1; i < words.size(); ++i) {
        std::string pattern = words[i];
        if (!pattern.starts_with('/')) pattern = directory_of(file) + "/" + pattern;
        glob_t g{};
        if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
          for (size_t k = 0; k < g.gl_pathc; ++k) read_ld_so_conf(g.gl_pathv[k], dirs, depth + 1);
        }
        ::globfree(&g);
      }
    } else if (words[0].starts_with('/')) {
      dirs.push_back(words[0]);
    }
  }
}

/* `dir` with $ORIGIN / ${ORIGIN} replaced; nullopt for the tokens ld.so
 * expands by platform ($LIB, $PLATFORM), which are not guessed. */
std::optional<std::string> expand_origin(std::string dir, const std::string& origin) {
  for (std::string_view token : {"${ORIGIN}", "$ORIGIN"}) {
    for (size_t at; (at = dir.find(token)) != std::string::npos;) dir.replace(at, token.size(), origin);
  }
  if (dir.find('$') != std::string::npos) return std::nullopt;
  return dir;
}

// The closure as a graph: one node a DT_NEEDED name (ld.so resolves each
// name once), edges to what it needs.
struct Node {
  std::string path;
  ElfObject object;
  std::vector<size_t> needs;
};

struct Closure {
  std::vector<Node> nodes;                              // nodes[0]: the program
  std::map<std::string, size_t, std::less<>> index_of;  // a DT_NEEDED name's node
};

/* Where ld.so looks for a library besides an object's own DT_RPATH and
 * DT_RUNPATH. */
struct LibraryDirs {
  std::vector<std::string> library_path;  // LD_LIBRARY_PATH
  std::vector<std::string> system;        // /etc/ld.so.conf's, then the defaults
};

LibraryDirs library_dirs(const LinkEnvironment& environment) {
  LibraryDirs dirs;
  read_ld_so_conf(environment.ld_so_conf, dirs.system, 0);
  for (const char* d : {"/lib", "/usr/lib", "/lib64", "/usr/lib64"}) dirs.system.emplace_back(d);
  dirs.library_path = split(environment.ld_library_path, ':');
  return dirs;
}

/* The directories ld.so searches, in its order, for what `object` needs. */
std::vector<std::string> search_order(const ElfObject& object, const LibraryDirs& library) {
  std::vector<std::string> dirs;
  if (object.runpath.empty()) dirs = object.rpath;
  dirs.insert(dirs.end(), library.library_path.begin(), library.library_path.end());
  dirs.insert(dirs.end(), object.runpath.begin(), object.runpath.end());
  dirs.insert(dirs.end(), library.system.begin(), library.system.end());
  return dirs;
}

/* `need` found as ld.so finds it: a path as it is, a name in the first of
 * `dirs` that holds an object of `elf_class`. nullopt when none is found,
 * with `last_why` the last object that could not be read. */
std::optional<Node> find_needed(const std::string& need, const std::vector<std::string>& dirs,
                                const std::string& origin, unsigned char elf_class, std::string& last_why) {
  if (need.find('/') != std::string::npos) {
    if (auto o = read_object(need, last_why); o && o->elf_class == elf_class) return Node{need, std::move(*o), {}};
    return std::nullopt;
  }
  for (const auto& raw : dirs) {
    const auto dir = expand_origin(raw, origin);
    if (!dir) continue;
    const std::string candidate = *dir + "/" + need;
    if (::access(candidate.c_str(), F_OK) != 0) continue;
    // ld.so passes over a library of the other class.
    if (auto o = read_object(candidate, last_why); o && o->elf_class == elf_class) {
      return Node{candidate, std::move(*o), {}};
    }
  }
  return std::nullopt;
}

/* Links node `at` to what it needs, reading each name not read yet into a
 * new node that `queue` gets. Why the closure cannot be read, or nullopt. */
std::optional<std::string> link_needs(Closure& closure, size_t at, const LibraryDirs& library,
                                      std::deque<size_t>& queue) {
  std::vector<Node>& nodes = closure.nodes;
  const unsigned char elf_class = nodes[0].object.elf_class;
  const std::string origin = directory_of(nodes[at].path);
  const std::vector<std::string> dirs = search_order(nodes[at].object, library);
  const std::vector<std::string> needed = nodes[at].object.needed;  // a copy: `nodes` grows below
  for (const auto& need : needed) {
    if (auto it = closure.index_of.find(need); it != closure.index_of.end()) {
      nodes[at].needs.push_back(it->second);
      continue;
    }
    std::string last_why;
    std::optional<Node> found = find_needed(need, dirs, origin, elf_class, last_why);
    if (!found) {
      return std::string(basename_of(nodes[at].path)) + " needs " + need + ", which is not found here" +
             (last_why.empty() ? std::string() : " (" + last_why + ")");
    }
    if (nodes.size() >= kMaxObjects) {
      return nodes[0].path + " links more than " + std::to_string(kMaxObjects) + " objects";
    }
    closure.index_of.emplace(need, nodes.size());
    nodes[at].needs.push_back(nodes.size());
    queue.push_back(nodes.size());
    nodes.push_back(std::move(*found));
  }
  return std::nullopt;
}

/* Reads the closure of the program, nodes[0], breadth first. Stops at the
 * first PMIx client library, named in `pmix_library`. Why the closure
 * cannot be read, or nullopt. */
std::optional<std::string> read_closure(Closure& closure, const LibraryDirs& library, std::string& pmix_library) {
  std::deque<size_t> queue{0};
  while (!queue.empty()) {
    const size_t at = queue.front();
    queue.pop_front();
    const std::string_view name = basename_of(closure.nodes[at].path);
    if (named_like(name, kPmixLibraryPrefixes)) {
      pmix_library = std::string(name);  // decides for the server: the rest is not needed
      return std::nullopt;
    }
    // The program itself running other code decides too.
    if (at == 0 && !closure.nodes[0].object.launcher_symbol.empty()) break;
    if (auto why = link_needs(closure, at, library, queue)) return why;
  }
  return std::nullopt;
}

/* The first library of the closure that a data-plane variable steers. */
std::string first_network_library(const std::vector<Node>& nodes) {
  for (const auto& n : nodes) {
    if (named_like(basename_of(n.path), kNetworkLibraryPrefixes)) return std::string(basename_of(n.path));
  }
  return std::string();
}

// What can run or load code, breadth first from the program, not looking
// into a PMI-1/2 client library: a process holding one is an MPICH-family
// rank and never becomes a PMIx client through what that library and the
// libraries only it needs import (libmpich's execvp starts a process
// manager for a singleton; ucx and hwloc load their own plugins). A
// library also needed from elsewhere still counts.
void find_launcher(const std::vector<Node>& nodes, ProgramLinkage& out) {
  std::vector<bool> visited(nodes.size(), false);
  std::deque<size_t> walk{0};
  visited[0] = true;
  while (!walk.empty()) {
    const size_t at = walk.front();
    walk.pop_front();
    const Node& n = nodes[at];
    const std::string_view name = basename_of(n.path);
    if (named_like(name, kPmiLibraryPrefixes)) {
      if (out.pmi_library.empty()) out.pmi_library = std::string(name);
      continue;
    }
    if (!n.object.launcher_symbol.empty()) {
      out.launcher = std::string(name) + " imports " + n.object.launcher_symbol;
      break;
    }
    for (size_t next : n.needs) {
      if (!visited[next]) {
        visited[next] = true;
        walk.push_back(next);
      }
    }
  }
}

}  // namespace

ProgramLinkage inspect_program(std::string_view program, const LinkEnvironment& environment) {
  ProgramLinkage out;
  auto unknown = [&out](std::string why) {
    out.kind = ProgramLinkage::Kind::Unknown;
    out.unknown_why = std::move(why);
    return out;
  };
  if (program.empty()) return unknown("no program");
  if (!environment.ld_preload.empty()) return unknown("LD_PRELOAD or LD_AUDIT loads libraries not in its closure");

  auto program_path = find_program(program, environment.path.c_str());
  if (!program_path) return unknown(std::string(program) + " is not found in PATH here");
  out.path = std::move(*program_path);

  std::string why;
  auto main_object = read_object(out.path, why);
  if (!main_object) return unknown(why);
  if (!main_object->dynamic) return unknown(out.path + " is statically linked");

  const LibraryDirs library = library_dirs(environment);
  Closure closure;
  closure.nodes.push_back({out.path, std::move(*main_object), {}});
  if (auto unread = read_closure(closure, library, out.pmix_library)) return unknown(std::move(*unread));
  if (!out.pmix_library.empty()) {
    out.kind = ProgramLinkage::Kind::Read;
    return out;
  }
  out.network_library = first_network_library(closure.nodes);
  find_launcher(closure.nodes, out);
  out.kind = ProgramLinkage::Kind::Read;
  return out;
}

std::vector<ProgramLinkage> inspect_programs(const std::vector<std::string>& programs,
                                             const LinkEnvironment& environment) {
  std::vector<ProgramLinkage> read;
  std::vector<std::string_view> seen;
  for (const auto& program : programs) {
    if (std::ranges::find(seen, program) != seen.end()) continue;
    seen.push_back(program);
    read.push_back(inspect_program(program, environment));
  }
  return read;
}

}  // namespace orca::launch
