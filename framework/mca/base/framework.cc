// Framework: variables, selection and the component lifecycle, shared by
// every framework.
#include <orca/mca_framework.h>

#include "mca/base/component_context.h"
#include "mca/base/component_registrar.h"
#include "mca/var/text.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <iostream>

namespace orca::mca {

std::string_view Framework::state_name(State state) {
  switch (state) {
    case State::Registered: return "registered";
    case State::Excluded: return "excluded";
    case State::Failed: return "failed";
    case State::Declined: return "declined";
    case State::Available: return "available";
    case State::Selected: return "selected";
  }
  return "unknown";
}

Framework::Framework(const FrameworkDecl& decl, Registry& registry,
                     const ComponentRepository& repository, Log log, orca_process_role role)
    : decl_(decl), registry_(registry), repository_(repository), log_(std::move(log)), role_(role) {
  if (!log_) {
    log_ = [name = std::string(decl_.name)](const std::string& text) {
      std::cerr << name << ": " << text << std::endl;
    };
  }
}

Framework::~Framework() { close_all(); }

int Framework::verbosity() const {
  const Variable* v = registry_.find(std::string(decl_.name) + "_base_verbose");
  return v == nullptr ? 0 : static_cast<int>(v->as_int());
}

void Framework::verbose(int level, const std::string& text) const {
  if (verbosity() >= level) log_(text);
}

Status Framework::register_vars() {
  const std::string fw(decl_.name);
  const VarSpec select{
      .framework = fw,
      .type = VarType::String,
      .level = 2,
      .description = "Which " + fw + " components may be used: \"a,b\" only these, \"^a,b\" all but these; empty: all (" +
                     std::string(decl_.description) + ")",
  };
  // A bad user value still declares the variable (with its default): go
  // on, so that every component registers, and report the first at the end.
  std::optional<Message> value_error;
  auto declare = [&](const VarSpec& spec) -> Status {
    auto r = registry_.declare(spec);
    if (r) return {};
    if (!r.failed_with(ErrorKind::BadValue)) return r.error();
    if (!value_error) value_error = r.error();
    return {};
  };
  if (Status st = declare(select); !st) return st;

  const VarSpec verbose_spec{
      .framework = fw,
      .component = "base",
      .name = "verbose",
      .type = VarType::Int,
      .default_text = "0",
      .level = 8,
      .description = "Verbosity of the " + fw + " framework: 0 quiet, 10 selection, 20 every component call, 100 everything",
      .min_text = "0",
      .max_text = "100",
  };
  if (Status st = declare(verbose_spec); !st) return st;
  if (!decl_.base_vars.empty()) {
    ComponentRegistrar registrar(registry_, fw, "base");
    (void)orca_mca_declare_vars(registrar.c_handle(), decl_.base_vars.data(), decl_.base_vars.size());
    if (registrar.error()) return *registrar.error();
    if (registrar.value_error() && !value_error) value_error = registrar.value_error();
  }

  for (const LoadedComponent* c : repository_.of_framework(fw)) {
    Entry e;
    e.component = c;
    const orca_mca_component* d = c->descriptor;
    if (d->framework_version != decl_.interface_version) {
      e.state = State::Failed;
      e.reason = "implements " + fw + " interface version " + std::to_string(d->framework_version) +
                 ", this Orca has version " + std::to_string(decl_.interface_version) + "; rebuild the component";
    } else if (d->register_vars != nullptr) {
      ComponentRegistrar registrar(registry_, fw, d->name);
      const orca_mca_rc rc = d->register_vars(registrar.c_handle());
      if (registrar.value_error() && !value_error) value_error = registrar.value_error();
      if (rc != ORCA_MCA_OK || registrar.error()) {
        e.state = State::Failed;
        e.reason = "could not declare its variables" +
                   (registrar.error() ? ": " + registrar.error()->summary() : std::string());
      }
    }
    if (e.state == State::Failed) verbose(10, "component " + std::string(d->name) + " " + e.reason);
    entries_.push_back(std::move(e));
  }
  if (value_error) return *value_error;
  return {};
}

Status Framework::open() {
  if (!open_result_) open_result_ = open_components();
  return *open_result_;
}

Status Framework::open_components() {
  const std::string fw(decl_.name);
  std::vector<std::string> names;
  for (const auto& e : entries_) names.emplace_back(e.component->name());
  // Left out unloaded: still a name a selection may use.
  for (const LeftOutComponent* l : repository_.left_out_of(fw)) {
    names.push_back(l->name);
    verbose(10, "component " + l->name + " is not loaded: " + l->reason);
  }
  const Variable* select_var = registry_.find(fw);
  if (select_var == nullptr) return Message("mca-base", "not-registered", {{"framework", fw}});
  Result<Selection> sel = parse_selection(fw, select_var->as_string(), names, select_var->source());
  if (!sel) return sel.error();

  std::vector<Entry*> candidates;
  for (auto& e : entries_) {
    const orca_mca_component* d = e.component->descriptor;
    if (e.state != State::Registered) continue;
    if (!sel->allows(d->name)) {
      e.state = State::Excluded;
      e.reason = "left out by " + fw + "=" + select_var->as_string() + " (" + select_var->source().describe() + ")";
      verbose(10, "component " + std::string(d->name) + " " + e.reason);
      continue;
    }
    orca_mca_reason why{};
    orca_mca_rc rc = ORCA_MCA_OK;
    if (d->open != nullptr) {
      verbose(20, "opening component " + std::string(d->name));
      ComponentContext context(registry_, fw, d->name, verbosity(), role_);
      rc = d->open(context.c_handle(), &e.open_state, &why);
    }
    if (rc == ORCA_MCA_OK) {
      e.opened = true;
      verbose(20, "querying component " + std::string(d->name));
      rc = d->query(e.open_state, &e.module, &e.priority, &why);
    }
    if (rc == ORCA_MCA_OK && e.module == nullptr) {
      rc = ORCA_MCA_FAILED;
      std::snprintf(why.text, sizeof why.text, "query returned no module");
    }
    if (rc != ORCA_MCA_OK) {
      e.state = rc == ORCA_MCA_DECLINED ? State::Declined : State::Failed;
      why.text[sizeof why.text - 1] = '\0';
      e.reason = why.text[0] ? why.text : (rc == ORCA_MCA_DECLINED ? "declined" : "failed without a reason");
      verbose(10, "component " + std::string(d->name) + " " + std::string(state_name(e.state)) + ": " + e.reason);
      if (e.opened && d->close != nullptr) d->close(e.open_state);
      e.opened = false;
      e.module = nullptr;
      continue;
    }
    candidates.push_back(&e);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Entry* a, const Entry* b) { return a->priority > b->priority; });
  for (size_t i = 0; i < candidates.size(); ++i) {
    Entry& e = *candidates[i];
    if (decl_.mode == SelectMode::All || i == 0) {
      e.state = State::Selected;
      verbose(10, "selected component " + std::string(e.component->name()) + " (priority " + std::to_string(e.priority) + ")");
      continue;
    }
    // Only one module is used: release the others now.
    e.state = State::Available;
    e.reason = "priority " + std::to_string(e.priority) + " is below " +
               std::string(candidates[0]->component->name()) + "'s " + std::to_string(candidates[0]->priority);
    const orca_mca_component* d = e.component->descriptor;
    if (d->close != nullptr) d->close(e.open_state);
    e.opened = false;
    e.module = nullptr;
  }
  if (candidates.empty() && decl_.mode == SelectMode::One) {
    std::string tried;
    for (const auto& e : entries_)
      tried += "\n  " + std::string(e.component->name()) + ": " + std::string(state_name(e.state)) + ", " + e.reason;
    return Message("mca-base", "no-component",
                   {{"framework", fw}, {"tried", tried.empty() ? "\n  (no component of this framework was found)" : tried}});
  }
  return {};
}

std::vector<const Framework::Entry*> Framework::selected() const {
  std::vector<const Entry*> out;
  for (const auto& e : entries_) {
    if (e.state == State::Selected) out.push_back(&e);
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) { return a->priority > b->priority; });
  return out;
}

void Framework::close_all() {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (!it->opened) continue;
    const orca_mca_component* d = it->component->descriptor;
    if (d->close != nullptr) d->close(it->open_state);
    it->opened = false;
    it->module = nullptr;
  }
}

}  // namespace orca::mca
