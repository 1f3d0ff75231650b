// The C context handed to a component's open(): variable lookup by the
// component's short names or by full names (not public API).
#ifndef ORCA_MCA_BASE_COMPONENT_CONTEXT_H
#define ORCA_MCA_BASE_COMPONENT_CONTEXT_H

#include <orca/mca_component.h>
#include <orca/mca_var.h>

#include <string>

namespace orca::mca {

class ComponentContext {
 public:
  ComponentContext(const Registry& registry, const std::string& framework, const std::string& component, int verbosity,
                   orca_process_role role);
  ComponentContext(const ComponentContext&) = delete;
  ComponentContext& operator=(const ComponentContext&) = delete;

  const orca_mca_context* c_handle() const noexcept { return &handle_; }
  /* The component's own variable first, then a full name. */
  const Variable* find(const char* name) const;

 private:
  static orca_mca_rc get_text(const orca_mca_context* self, const char* name, char* buffer, size_t length) noexcept;
  static orca_mca_rc get_int(const orca_mca_context* self, const char* name, int64_t* value) noexcept;

  orca_mca_context handle_;
  const Registry& registry_;
  std::string prefix_;  // "<framework>_<component>_"
};

}  // namespace orca::mca

#endif
