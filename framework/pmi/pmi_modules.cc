// PmiModules: the framework declared and opened once a daemon.
#include "pmi_modules.h"

#include "pmi_helper.h"

#include <algorithm>

namespace orca::pmi {

PmiModules::PmiModules(Process& process, bool dvm) : process_(process), dvm_(dvm) {}

PmiModules::~PmiModules() = default;

const PmiHelper* PmiModules::helper(const std::string& component) const {
  for (const auto& [name, h] : helpers_) {
    if (name == component) return h.get();
  }
  return nullptr;
}

Status PmiModules::declare() {
  if (declared_) return {};
  // Declared on every daemon: the job's bound holds for what a daemon
  // without ranks relays too. Opened only where ranks run, or warmed up.
  auto fw = process_.runtime().add_framework(kFramework);
  if (!fw) return fw.error();
  auto bound = job_data_bound(process_.runtime().registry());
  if (!bound) return bound.error();
  framework_ = fw.value();
  bound_ = bound.value();
  declared_ = true;
  return {};
}

Status PmiModules::open() {
  if (opened_) return {};
  if (Status st = declare(); !st) return st;
  if (Status st = framework_->open(); !st) return st;
  opened_ = true;
  const mca::Registry& registry = process_.runtime().registry();
  const mca::Variable* listed = registry.find("pmi_base_helper");
  const mca::Variable* growth = registry.find("pmi_base_helper_growth");
  const mca::Variable* verbose = registry.find("pmi_base_verbose");
  for (const mca::Framework::Entry* e : framework_->selected()) {
    Module m{.component = std::string(e->component->name()), .module = mca::Framework::module_as<orca_pmi_module>(*e)};
    const bool in_helper = dvm_ && listed != nullptr && m.module->many_jobs != 0 &&
                           std::ranges::find(listed->as_list(), m.component) != listed->as_list().end();
    if (in_helper) {
      Process* p = &process_;
      auto helper = std::make_unique<PmiHelper>(
          process_.loop(), *m.module,
          PmiHelper::Settings{.component = m.component,
                              .growth_bytes = growth != nullptr ? growth->as_size() : 0,
                              .log = [p, verbose](int level, const std::string& text) {
                                if (verbose != nullptr && verbose->as_int() >= level) p->runtime().log("pmi", text);
                              }});
      m.module = helper->module();
      helpers_.emplace_back(m.component, std::move(helper));
    }
    modules_.push_back(std::move(m));
  }
  return {};
}

}  // namespace orca::pmi
