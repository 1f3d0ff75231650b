// ComponentRepository: discovery and checked loading of component files.
#include <orca/mca_repository.h>

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace orca::mca {

SharedObject::~SharedObject() {
  if (handle_ != nullptr) dlclose(handle_);
}

SharedObject& SharedObject::operator=(SharedObject&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = other.release();
  }
  return *this;
}

std::string LoadedComponent::version() const {
  return std::to_string(descriptor->version_major) + "." + std::to_string(descriptor->version_minor) +
         "." + std::to_string(descriptor->version_patch);
}

bool parse_component_file_name(std::string_view file_name, std::string* framework,
                               std::string* component) {
  constexpr std::string_view prefix = "mca_";
  constexpr std::string_view suffix = ".so";
  if (file_name.size() <= prefix.size() + suffix.size() || file_name.substr(0, prefix.size()) != prefix ||
      file_name.substr(file_name.size() - suffix.size()) != suffix)
    return false;
  std::string_view stem = file_name.substr(prefix.size(), file_name.size() - prefix.size() - suffix.size());
  size_t us = stem.find('_');
  if (us == std::string_view::npos || us == 0 || us + 1 == stem.size()) return false;
  *framework = std::string(stem.substr(0, us));
  *component = std::string(stem.substr(us + 1));
  return true;
}

namespace {

std::vector<std::string> component_files(const std::string& dir) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) return names;
  while (dirent* e = readdir(d.get())) {
    std::string fw, comp;
    if (parse_component_file_name(e->d_name, &fw, &comp)) names.emplace_back(e->d_name);
  }
  std::sort(names.begin(), names.end());  // readdir order is arbitrary; keep runs repeatable
  return names;
}

// The checks every descriptor passes, from a file or built in: "" when it
// may be used, else the reason (completing "it ...").
std::string check_descriptor(const orca_mca_component* desc, const std::string& framework,
                             const std::string& component, std::string_view named_by) {
  if (desc->abi_version != ORCA_MCA_COMPONENT_ABI_VERSION) {
    return "was built for component ABI version " + std::to_string(desc->abi_version) +
           ", this Orca uses version " + std::to_string(ORCA_MCA_COMPONENT_ABI_VERSION) + "; rebuild it";
  }
  if (desc->framework == nullptr || framework != desc->framework) {
    return "declares framework '" + std::string(desc->framework ? desc->framework : "(null)") + "' but its " +
           std::string(named_by) + " says '" + framework + "'";
  }
  if (desc->name == nullptr || component != desc->name) {
    return "declares component '" + std::string(desc->name ? desc->name : "(null)") + "' but its " +
           std::string(named_by) + " says '" + component + "'";
  }
  if (desc->query == nullptr) return "has no query function";
  return {};
}

// Loads one file; returns the reason it cannot be used, or "" on success.
std::string load_one(const std::string& path, const std::string& framework, const std::string& component,
                     LoadedComponent* out) {
  dlerror();
  SharedObject so(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (so.get() == nullptr) {
    const char* err = dlerror();
    return std::string("cannot be loaded: ") + (err ? err : "unknown dlopen error");
  }
  const std::string symbol = "mca_" + framework + "_" + component + "_component";
  dlerror();
  void* sym = dlsym(so.get(), symbol.c_str());
  if (sym == nullptr) return "does not export the descriptor symbol " + symbol;
  const auto* desc = static_cast<const orca_mca_component*>(sym);
  if (std::string why = check_descriptor(desc, framework, component, "file name"); !why.empty()) return why;
  out->path = path;
  out->descriptor = desc;
  out->object = std::move(so);
  return {};
}

// A built-in descriptor names itself (no file name to agree with): its
// names need only be usable; the rest is checked as a file's is.
std::string check_builtin(const orca_mca_component* desc, std::string* framework, std::string* component) {
  *framework = desc->framework != nullptr ? desc->framework : "";
  *component = desc->name != nullptr ? desc->name : "";
  if (framework->empty() || component->empty() || framework->find('_') != std::string::npos) {
    return "has no valid framework and component name";
  }
  return check_descriptor(desc, *framework, *component, "descriptor");
}

}  // namespace

bool LeaveOut::contains(std::string_view framework, std::string_view component) const {
  return std::any_of(components.begin(), components.end(), [&](const std::string& c) {
    return c.size() == framework.size() + 1 + component.size() && c.starts_with(framework) &&
           c[framework.size()] == '/' && c.ends_with(component);
  });
}

ComponentRepository ComponentRepository::scan(const std::vector<std::string>& dirs, const Log& log,
                                              const LeaveOut& leave_out, BuiltinComponents builtins) {
  ComponentRepository repo;
  // True when (fw, comp) is left out; notes it once.
  auto left_out = [&](const std::string& fw, const std::string& comp, const std::string& path) {
    if (!leave_out.contains(fw, comp)) return false;
    const bool first = std::none_of(repo.left_out_.begin(), repo.left_out_.end(),
                                    [&](const LeftOutComponent& l) { return l.framework == fw && l.name == comp; });
    if (first) {
      if (log) log("did not load " + path + ": " + leave_out.why);
      repo.left_out_.push_back(LeftOutComponent{fw, comp, path, leave_out.why});
    }
    return true;
  };
  auto loaded_as = [&](const std::string& fw, const std::string& comp) {
    return std::find_if(repo.loaded_.begin(), repo.loaded_.end(),
                        [&](const LoadedComponent& c) { return c.framework() == fw && c.name() == comp; });
  };
  auto keep = [&](LoadedComponent loaded, const std::string& where, const std::string& reason) {
    if (reason.empty()) {
      if (log) log("loaded component " + std::string(loaded.framework()) + "/" + std::string(loaded.name()) + " " +
                   loaded.version() + " from " + where);
      repo.loaded_.push_back(std::move(loaded));
    } else {
      if (log) log("skipped " + where + ": it " + reason);
      repo.rejected_.push_back(RejectedFile{where, "it " + reason});
    }
  };
  for (const orca_mca_component* desc : builtins) {
    std::string fw, comp;
    std::string reason = check_builtin(desc, &fw, &comp);
    const std::string where = std::string(kBuiltinPath) + " " + fw + "/" + comp;
    if (reason.empty() && left_out(fw, comp, where)) continue;
    if (reason.empty() && loaded_as(fw, comp) != repo.loaded_.end()) reason = "is built in twice";
    LoadedComponent loaded;
    if (reason.empty()) {
      loaded.path = std::string(kBuiltinPath);
      loaded.descriptor = desc;
    }
    keep(std::move(loaded), where, reason);
  }
  for (const auto& dir : dirs) {
    if (dir.empty()) continue;
    for (const auto& name : component_files(dir)) {
      const std::string path = dir + "/" + name;
      std::string fw, comp;
      parse_component_file_name(name, &fw, &comp);
      if (left_out(fw, comp, path)) continue;
      std::string reason;
      LoadedComponent loaded;
      if (auto it = loaded_as(fw, comp); it != repo.loaded_.end()) {
        reason = it->is_builtin()
                     ? "is shadowed by the component built into this program"
                     : "is shadowed by " + it->path + ", found earlier on mca_base_component_path";
      } else {
        reason = load_one(path, fw, comp, &loaded);
      }
      keep(std::move(loaded), path, reason);
    }
  }
  return repo;
}

std::vector<const LeftOutComponent*> ComponentRepository::left_out_of(std::string_view framework) const {
  std::vector<const LeftOutComponent*> out;
  for (const auto& l : left_out_) {
    if (l.framework == framework) out.push_back(&l);
  }
  return out;
}

std::vector<const LoadedComponent*> ComponentRepository::of_framework(std::string_view framework) const {
  std::vector<const LoadedComponent*> out;
  for (const auto& c : loaded_) {
    if (c.framework() == framework) out.push_back(&c);
  }
  return out;
}

}  // namespace orca::mca
