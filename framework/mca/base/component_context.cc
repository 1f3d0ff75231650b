// ComponentContext: how C components read variable values.
#include "mca/base/component_context.h"

#include <cstring>

namespace orca::mca {

ComponentContext::ComponentContext(const Registry& registry, const std::string& framework, const std::string& component,
                                   int verbosity, orca_process_role role)
    : handle_{this, &ComponentContext::get_text, &ComponentContext::get_int, verbosity, role},
      registry_(registry),
      prefix_(framework + "_" + component + "_") {}

const Variable* ComponentContext::find(const char* name) const {
  if (name == nullptr) return nullptr;
  if (const Variable* own = registry_.find(prefix_ + name)) return own;
  return registry_.find(name);
}

orca_mca_rc ComponentContext::get_text(const orca_mca_context* self, const char* name, char* buffer,
                                       size_t length) noexcept {
  try {
    const Variable* v = static_cast<const ComponentContext*>(self->host)->find(name);
    if (v == nullptr || buffer == nullptr) return ORCA_MCA_FAILED;
    const std::string text = v->text();
    if (text.size() + 1 > length) return ORCA_MCA_FAILED;
    std::memcpy(buffer, text.c_str(), text.size() + 1);
    return ORCA_MCA_OK;
  } catch (...) {
    return ORCA_MCA_FAILED;
  }
}

orca_mca_rc ComponentContext::get_int(const orca_mca_context* self, const char* name, int64_t* value) noexcept {
  // Looking the name up may allocate; nothing may leave through the C ABI.
  try {
    const Variable* v = static_cast<const ComponentContext*>(self->host)->find(name);
    if (v == nullptr || value == nullptr) return ORCA_MCA_FAILED;
    switch (v->spec().type) {
      case VarType::Bool: *value = v->as_bool() ? 1 : 0; return ORCA_MCA_OK;
      case VarType::Int: *value = v->as_int(); return ORCA_MCA_OK;
      case VarType::Unsigned:
      case VarType::Size:
        if (v->as_unsigned() > static_cast<std::uint64_t>(INT64_MAX)) return ORCA_MCA_FAILED;
        *value = static_cast<int64_t>(v->as_unsigned());
        return ORCA_MCA_OK;
      default: return ORCA_MCA_FAILED;
    }
  } catch (...) {
    return ORCA_MCA_FAILED;
  }
}

}  // namespace orca::mca
