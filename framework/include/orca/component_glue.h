/*
 * ComponentGlue: the parts of a component descriptor every C++ component
 * writes the same way, so that each component file holds only what is its
 * own (variables, open, the module).
 *
 * State is what open() makes: one object per open, owned by the framework
 * until close(). It provides
 *   void* handle();          the module query() hands out
 *   int priority() const;    its selection priority
 * Nothing may unwind across the C boundary: guarded() turns an exception
 * into ORCA_MCA_FAILED with its text as the reason.
 */
#ifndef ORCA_COMPONENT_GLUE_H
#define ORCA_COMPONENT_GLUE_H

#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>

#include <cstdio>
#include <exception>
#include <memory>

namespace orca::mca {

/* Runs `f` (returning orca_mca_rc); an exception becomes FAILED with its text. */
template <typename F>
orca_mca_rc guarded(orca_mca_reason* why, F&& f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    if (why != nullptr) std::snprintf(why->text, sizeof why->text, "%s", e.what());
  } catch (...) {
    if (why != nullptr) std::snprintf(why->text, sizeof why->text, "unknown error");
  }
  return ORCA_MCA_FAILED;
}

template <typename State>
struct ComponentGlue {
  /* A whole descriptor (version 1.0.0) whose query and close are these. */
  static constexpr orca_mca_component descriptor(const char* framework, uint32_t framework_version,
                                                 const char* name, const char* description,
                                                 orca_mca_rc (*register_vars)(orca_mca_registrar*),
                                                 orca_mca_rc (*open)(const orca_mca_context*, void**,
                                                                     orca_mca_reason*)) {
    return orca_mca_component{.abi_version = ORCA_MCA_COMPONENT_ABI_VERSION,
                              .framework = framework,
                              .framework_version = framework_version,
                              .name = name,
                              .version_major = 1,
                              .version_minor = 0,
                              .version_patch = 0,
                              .description = description,
                              .register_vars = register_vars,
                              .open = open,
                              .query = &query,
                              .close = &close};
  }
  /* Hands an opened state to the framework (open's *state). */
  static orca_mca_rc keep(std::unique_ptr<State> s, void** state) noexcept {
    *state = s.release();
    return ORCA_MCA_OK;
  }
  static orca_mca_rc query(void* state, void** module, int* priority, orca_mca_reason* /*why*/) noexcept {
    auto* s = static_cast<State*>(state);
    *module = s->handle();
    *priority = s->priority();
    return ORCA_MCA_OK;
  }
  static void close(void* state) noexcept { std::unique_ptr<State>(static_cast<State*>(state)); }
};

/*
 * PriorityOnly: a component whose one setting is PREFIX"priority" and
 * whose module is a fixed table (its functions need no state of the
 * component's). Its State and open() are these; the component keeps its
 * variables (register) and its descriptor:
 *   orca_mca_rc x_open(const orca_mca_context* c, void** s, orca_mca_reason* why) {
 *     return PriorityOnly<orca_ras_module>::open(c, s, why, "ras_x_", orca_ras_module{...});
 *   }
 *   ... ComponentGlue<PriorityOnly<orca_ras_module>::State>::descriptor(...)
 */
template <typename Module>
struct PriorityOnly {
  struct State {
    int priority_value = 0;
    Module module{};
    void* handle() noexcept { return &module; }
    int priority() const noexcept { return priority_value; }
  };
  static orca_mca_rc open(const orca_mca_context* context, void** state, orca_mca_reason* why, const char* prefix,
                          const Module& module) noexcept {
    return guarded(why, [&] {
      auto s = std::make_unique<State>();
      const ContextReader reader(*context, prefix);
      if (all_read({reader.read("priority", s->priority_value)}, why) != ORCA_MCA_OK) return ORCA_MCA_FAILED;
      s->module = module;
      return ComponentGlue<State>::keep(std::move(s), state);
    });
  }
};

}  // namespace orca::mca

#endif  // ORCA_COMPONENT_GLUE_H
