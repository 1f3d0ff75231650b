// PmiModules: the pmi framework in one orcad: declared once (its
// variables and the job-wide bound on collective data, on every daemon)
// and opened once (where a rank runs), whatever number of jobs the daemon
// serves. Each job's PmiService serves its ranks through these modules,
// each job with its own handle (orca/pmi.h, interface 5).
#ifndef ORCA_PMI_PMI_MODULES_H
#define ORCA_PMI_PMI_MODULES_H

#include "runtime/process.h"

#include <orca/pmi.h>

#include <memory>
#include <string>
#include <vector>

namespace orca::pmi {

class PmiHelper;

class ORCA_EXPORT PmiModules {
 public:
  struct Module {
    std::string component;
    const orca_pmi_module* module = nullptr;
  };

  /* `dvm`: a persistent DVM's daemon (many jobs): the modules that
   * pmi_base_helper lists run in a helper process (pmi_helper.h). */
  PmiModules(Process& process, bool dvm);
  ~PmiModules();
  PmiModules(const PmiModules&) = delete;
  PmiModules& operator=(const PmiModules&) = delete;

  /* The framework and the bound, once. Errors: the framework cannot be
   * added, a bound variable is unreadable. */
  Status declare();
  /* declare(), then the framework opened and its modules listed, once.
   * Errors: the framework does not open. */
  Status open();
  bool opened() const noexcept { return opened_; }
  const std::vector<Module>& modules() const noexcept { return modules_; }
  /* The helper of `component`'s module, if it runs in one. */
  const PmiHelper* helper(const std::string& component) const;
  const DataBound& bound() const noexcept { return bound_; }

 private:
  Process& process_;
  bool dvm_;
  mca::Framework* framework_ = nullptr;
  bool declared_ = false;
  bool opened_ = false;
  DataBound bound_;
  std::vector<Module> modules_;
  std::vector<std::pair<std::string, std::unique_ptr<PmiHelper>>> helpers_;
};

}  // namespace orca::pmi

#endif
