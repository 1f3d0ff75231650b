// SettingsSink: an orca_pmi_environment (orca/pmi.h) that appends what a
// module sets for a rank to a list, in order: the daemon's PmiService and
// the PMI helper process both collect a rank's settings so.
#ifndef ORCA_PMI_SETTINGS_SINK_H
#define ORCA_PMI_SETTINGS_SINK_H

#include <orca/pmi.h>

#include <string>
#include <utility>
#include <vector>

namespace orca::pmi {

class SettingsSink {
 public:
  /* `settings` outlives the sink. */
  explicit SettingsSink(std::vector<std::pair<std::string, std::string>>& settings) : settings_(&settings) {}
  SettingsSink(const SettingsSink&) = delete;  // the environment points at it
  SettingsSink& operator=(const SettingsSink&) = delete;

  const orca_pmi_environment* environment() const noexcept { return &environment_; }

 private:
  static void set(void* context, const char* name, const char* value) {
    static_cast<SettingsSink*>(context)->settings_->emplace_back(name, value);
  }
  std::vector<std::pair<std::string, std::string>>* settings_;
  orca_pmi_environment environment_{.context = this, .set = &SettingsSink::set};
};

}  // namespace orca::pmi

#endif
