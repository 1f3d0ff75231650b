/*
 * ComponentRepository: finds and loads component files.
 *
 * scan() looks at every mca_*.so in each directory of the component path,
 * in order, dlopens it (RTLD_NOW | RTLD_LOCAL), looks up the descriptor
 * symbol named after the file and checks the ABI version and that the
 * names inside match the file name. A file that fails any check is kept as
 * a Rejected entry with the reason, never loaded further; a later file with
 * the name of one already loaded is rejected as shadowed. Nothing here
 * crashes on a bad file: a garbage file is just rejected.
 *
 * A component the process was told it will not use (LeaveOut: orcarun
 * knows, for instance, that a job's daemons start no PMIx server) is not
 * opened at all: its file costs no dlopen, no relocation and no memory.
 * It is kept as a LeftOut entry, so that a selection naming it still
 * parses.
 *
 * Built-in components (a program linked with them: orcad, by default)
 * come first, checked as a file's descriptor is, with the path
 * kBuiltinPath; a file of the same framework and name is then rejected as
 * shadowed without being opened. LeaveOut applies to them too, so that a
 * job runs the same with either build.
 *
 * Loaded components stay mapped for the repository's lifetime; frameworks
 * that hold modules must be destroyed first.
 */
#ifndef ORCA_MCA_REPOSITORY_H
#define ORCA_MCA_REPOSITORY_H

#include <orca/export.h>
#include <orca/mca_component.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

/* Owns a dlopen handle; dlcloses on destruction. */
class ORCA_EXPORT SharedObject {
 public:
  SharedObject() = default;
  explicit SharedObject(void* handle) : handle_(handle) {}
  ~SharedObject();
  SharedObject(SharedObject&& other) noexcept : handle_(other.release()) {}
  SharedObject& operator=(SharedObject&& other) noexcept;
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  void* get() const noexcept { return handle_; }
  void* release() noexcept {
    void* h = handle_;
    handle_ = nullptr;
    return h;
  }

 private:
  void* handle_ = nullptr;
};

/* The descriptors a program was linked with, in the order they are offered. */
using BuiltinComponents = std::span<const orca_mca_component* const>;

/* LoadedComponent::path of a built-in component. */
inline constexpr std::string_view kBuiltinPath = "(built in)";

struct ORCA_EXPORT LoadedComponent {
  std::string path;  // kBuiltinPath for a built-in one
  const orca_mca_component* descriptor = nullptr;
  SharedObject object;  // empty for a built-in one

  bool is_builtin() const noexcept { return object.get() == nullptr; }
  std::string_view framework() const { return descriptor->framework; }
  std::string_view name() const { return descriptor->name; }
  std::string version() const;  // "1.2.3"
};

struct ORCA_EXPORT RejectedFile {
  std::string path;
  std::string reason;
};

/* Components not to load, as "framework/component", and why (one reason
 * for all: they come from one decision). */
struct ORCA_EXPORT LeaveOut {
  std::vector<std::string> components;
  std::string why;
  bool contains(std::string_view framework, std::string_view component) const;
};

struct ORCA_EXPORT LeftOutComponent {
  std::string framework;
  std::string name;
  std::string path;
  std::string reason;
};

/* Splits "mca_<framework>_<component>.so" (framework names have no '_').
 * Returns false for any other name. */
ORCA_EXPORT bool parse_component_file_name(std::string_view file_name, std::string* framework,
                                           std::string* component);

class ORCA_EXPORT ComponentRepository {
 public:
  /* Receives one line per skipped file and per load, for verbose output. */
  using Log = std::function<void(const std::string&)>;

  ComponentRepository() = default;
  ComponentRepository(ComponentRepository&&) = default;
  ComponentRepository& operator=(ComponentRepository&&) = default;

  /* Takes `builtins`, then scans `dirs` in order. A directory that does
   * not exist is skipped. A built-in descriptor that fails a check is
   * rejected like a file (path "(built in) framework/name"). */
  static ComponentRepository scan(const std::vector<std::string>& dirs, const Log& log = {},
                                  const LeaveOut& leave_out = {}, BuiltinComponents builtins = {});

  const std::vector<LoadedComponent>& loaded() const noexcept { return loaded_; }
  const std::vector<RejectedFile>& rejected() const noexcept { return rejected_; }
  /* Components of `framework` found but not loaded (LeaveOut). */
  std::vector<const LeftOutComponent*> left_out_of(std::string_view framework) const;
  /* Loaded components of one framework, in discovery order. */
  std::vector<const LoadedComponent*> of_framework(std::string_view framework) const;

 private:
  std::vector<LoadedComponent> loaded_;
  std::vector<RejectedFile> rejected_;
  std::vector<LeftOutComponent> left_out_;
};

}  // namespace orca::mca

#endif  // ORCA_MCA_REPOSITORY_H
