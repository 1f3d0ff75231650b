/*
 * Frameworks: the base code every framework shares.
 *
 * Adding a framework is one FrameworkDecl (name, description, interface
 * version, selection mode) handed to Runtime::add_framework. The base then
 * declares the framework's variables
 *   <framework>               which components may run: "a,b" (only these)
 *                             or "^a,b" (all but these); "" means all
 *   <framework>_base_verbose  0 (quiet) .. 100
 * and, in order, runs the component lifecycle of mca_component.h:
 * register_vars for every component of the framework; then, on open(),
 * open and query for each component the selection allows, in discovery
 * order, keeping modules by priority (the highest one for SelectMode::One,
 * every one for SelectMode::All). Closing happens in reverse on
 * destruction.
 *
 * A component that fails or declines is kept with its reason, for
 * orca_info and verbose output; it never stops the others.
 */
#ifndef ORCA_MCA_FRAMEWORK_H
#define ORCA_MCA_FRAMEWORK_H

#include <orca/export.h>
#include <orca/mca_component.h>
#include <orca/mca_repository.h>
#include <orca/mca_var.h>
#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orca::mca {

enum class SelectMode {
  One,  // the highest-priority module only (e.g. reachable)
  All,  // every module that opens, highest priority first (e.g. oob)
};

struct FrameworkDecl {
  std::string_view name;         // [a-z0-9]+, no '_'
  std::string_view description;  // one line
  std::uint32_t interface_version;
  SelectMode mode;
  /* The framework's own variables, declared as <framework>_base_<name>
   * beside base_verbose (written like a component's table). */
  std::span<const orca_mca_var_decl> base_vars{};
};

/* A parsed selection variable. */
struct ORCA_EXPORT Selection {
  bool exclude = false;            // "^a,b"
  std::vector<std::string> names;  // empty: everything allowed
  bool allows(std::string_view component) const;
};

/* Parses the value of the `<framework>` variable against the components
 * that exist. Errors: '^' anywhere but first, an empty entry, a component
 * that does not exist (the message lists the available ones). */
ORCA_EXPORT Result<Selection> parse_selection(std::string_view framework, std::string_view text,
                                              const std::vector<std::string>& available,
                                              const Source& source);

class ORCA_EXPORT Framework {
 public:
  enum class State {
    Registered,  // variables declared, not opened yet
    Excluded,    // the selection variable leaves it out
    Failed,      // register, open or query failed, or a version mismatch
    Declined,    // open or query declined
    Available,   // opened and queried, but another module won (SelectMode::One)
    Selected,    // its module is in use
  };

  struct Entry {
    const LoadedComponent* component = nullptr;
    State state = State::Registered;
    std::string reason;  // for Excluded, Failed, Declined
    int priority = 0;
    void* module = nullptr;
    void* open_state = nullptr;
    bool opened = false;
  };

  /* Verbose lines go to `log` (default: standard error). */
  using Log = std::function<void(const std::string&)>;

  /* `role` is what the process is, told to every component it opens. */
  Framework(const FrameworkDecl& decl, Registry& registry, const ComponentRepository& repository,
            Log log = {}, orca_process_role role = ORCA_PROCESS_TOOL);
  ~Framework();
  Framework(const Framework&) = delete;
  Framework& operator=(const Framework&) = delete;

  /* Declares the framework's variables and calls every component's
   * register_vars. A component that fails here is marked Failed. Errors:
   * a bad setting of any of these variables (the first one found). */
  Status register_vars();

  /* Applies the selection variable, then opens and queries components.
   * Fails on a bad selection value, or (SelectMode::One) when no component
   * is left; the message says which were tried and why each was not used.
   * Opening again is harmless: it opens nothing more and returns the first
   * outcome, so the same modules stay selected. */
  Status open();
  bool opened() const noexcept { return open_result_.has_value(); }

  const FrameworkDecl& decl() const noexcept { return decl_; }
  const std::vector<Entry>& entries() const noexcept { return entries_; }
  /* Selected modules, highest priority first. */
  std::vector<const Entry*> selected() const;
  /* The same, as the framework's module type (orca_oob_module,
   * orca_reachable_module, ...): the one place the cast is written. */
  template <typename Module>
  std::vector<const Module*> selected_modules() const {
    std::vector<const Module*> out;
    for (const Entry* e : selected()) out.push_back(module_as<Module>(*e));
    return out;
  }
  template <typename Module>
  static const Module* module_as(const Entry& entry) {
    return static_cast<const Module*>(entry.module);
  }
  /* The highest-priority selected module, or null when none. */
  template <typename Module>
  const Module* selected_module() const {
    auto all = selected_modules<Module>();
    return all.empty() ? nullptr : all.front();
  }
  int verbosity() const;

  static std::string_view state_name(State state);

 private:
  void verbose(int level, const std::string& text) const;
  Status open_components();
  void close_all();

  FrameworkDecl decl_;
  Registry& registry_;
  const ComponentRepository& repository_;
  Log log_;
  orca_process_role role_;
  std::vector<Entry> entries_;
  std::optional<Status> open_result_;
};

}  // namespace orca::mca

#endif  // ORCA_MCA_FRAMEWORK_H
