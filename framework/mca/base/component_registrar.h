// The C registrar handed to a component's register_vars: turns each
// orca_mca_var_decl into a VarSpec of that component (not public API).
#ifndef ORCA_MCA_BASE_COMPONENT_REGISTRAR_H
#define ORCA_MCA_BASE_COMPONENT_REGISTRAR_H

#include <orca/mca_component.h>
#include <orca/mca_var.h>

#include <optional>
#include <string>

namespace orca::mca {

class ComponentRegistrar {
 public:
  ComponentRegistrar(Registry& registry, std::string framework, std::string component);
  ComponentRegistrar(const ComponentRegistrar&) = delete;
  ComponentRegistrar& operator=(const ComponentRegistrar&) = delete;

  orca_mca_registrar* c_handle() noexcept { return &handle_; }
  /* The first declaration that failed, if any: the component is broken. */
  const std::optional<Message>& error() const noexcept { return error_; }
  /* The first variable declared whose setting has a bad value: the
   * component is fine, the user's setting is not, and must hear of it. */
  const std::optional<Message>& value_error() const noexcept { return value_error_; }

 private:
  static orca_mca_rc declare(orca_mca_registrar* self, const orca_mca_var_decl* decl) noexcept;

  orca_mca_registrar handle_;
  Registry& registry_;
  std::string framework_;
  std::string component_;
  std::optional<Message> error_;
  std::optional<Message> value_error_;
};

}  // namespace orca::mca

#endif
