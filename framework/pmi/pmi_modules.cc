// PmiModules: the framework declared and opened once a daemon.
#include "pmi_modules.h"

namespace orca::pmi {

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
  for (const mca::Framework::Entry* e : framework_->selected()) {
    modules_.push_back({.component = std::string(e->component->name()),
                        .module = mca::Framework::module_as<orca_pmi_module>(*e)});
  }
  return {};
}

}  // namespace orca::pmi
