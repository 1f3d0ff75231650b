// ComponentRegistrar: the C entry point components declare variables through.
#include "mca/base/component_registrar.h"

namespace orca::mca {

namespace {

std::vector<std::string> words(const char* const* list) {
  std::vector<std::string> out;
  for (; list != nullptr && *list != nullptr; ++list) out.emplace_back(*list);
  return out;
}

}  // namespace

ComponentRegistrar::ComponentRegistrar(Registry& registry, std::string framework, std::string component)
    : handle_{this, &ComponentRegistrar::declare},
      registry_(registry),
      framework_(std::move(framework)),
      component_(std::move(component)) {}

orca_mca_rc ComponentRegistrar::declare(orca_mca_registrar* self, const orca_mca_var_decl* decl) noexcept {
  // Nothing may unwind into component code: every failure becomes a code.
  auto* host = static_cast<ComponentRegistrar*>(self->host);
  try {
    if (decl == nullptr || decl->name == nullptr) {
      if (!host->error_) {
        host->error_ = Message("mca-var", "bad-declaration",
                               {{"name", host->framework_ + "_" + host->component_ + "_?"},
                                {"why", "a declaration without a name"}});
      }
      return ORCA_MCA_FAILED;
    }
    VarSpec spec;
    spec.framework = host->framework_;
    spec.component = host->component_;
    spec.name = decl->name;
    spec.type = static_cast<VarType>(decl->type);
    spec.default_text = decl->default_value ? decl->default_value : "";
    spec.level = decl->level;
    spec.description = decl->description ? decl->description : "";
    spec.enum_words = words(decl->enum_words);
    spec.synonyms = words(decl->synonyms);
    spec.flags = decl->flags;
    spec.min_text = decl->min_value ? decl->min_value : "";
    spec.max_text = decl->max_value ? decl->max_value : "";
    Result<const Variable*> r = host->registry_.declare(std::move(spec));
    if (!r) {
      // A bad user value leaves the variable declared with its default.
      const bool user_value = r.failed_with(ErrorKind::BadValue);
      auto& slot = user_value ? host->value_error_ : host->error_;
      if (!slot) slot = r.error();
      return user_value ? ORCA_MCA_OK : ORCA_MCA_FAILED;
    }
    return ORCA_MCA_OK;
  } catch (...) {
    return ORCA_MCA_FAILED;
  }
}

}  // namespace orca::mca
