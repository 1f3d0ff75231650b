// routed/radix: the component descriptor and its variables. The default
// routed component: a k-ary tree keeps every process's connections and
// relaying at k, and the launcher's fan-out with it.
#include "radix_tree.h"

#include <orca/component_glue.h>
#include <orca/mca_component.h>
#include <orca/mca_context_reader.h>
#include <orca/routed.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>

namespace {

// The fan-out of 64 is Open MPI's default for routed_radix since 4.0
// (older releases used 32): two levels reach 4160 daemons and three
// 266,304, while no process holds more than 64 child connections, far
// below any descriptor limit.
const orca_mca_var_decl kVars[] = {
    {.name = "radix",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "64",
     .level = 5,
     .description = "Fan-out of the routing tree: how many daemons the launcher and each daemon connect to "
                    "directly and relay messages for; 1 makes a chain",
     .min_value = "1",
     .max_value = "65536"},
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "20",
     .level = 6,
     .description = "Selection priority of routed/radix (the highest-priority routed component is used)",
     .min_value = "-1000",
     .max_value = "1000"},
};

struct State {
  int priority_value = 0;
  orca::routed::radix::RadixTree tree{1};
  orca_routed_module module{};
  // For ComponentGlue.
  void* handle() noexcept { return &module; }
  int priority() const noexcept { return priority_value; }
};

orca_mca_rc radix_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc radix_open(const orca_mca_context* context, void** state, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    auto s = std::make_unique<State>();
    const orca::mca::ContextReader reader(*context, "routed_radix_");
    std::uint32_t radix = 0;
    if (orca::mca::all_read({reader.read("priority", s->priority_value), reader.read("radix", radix)}, why) !=
        ORCA_MCA_OK) {
      return ORCA_MCA_FAILED;
    }
    s->tree = orca::routed::radix::RadixTree(radix);
    s->module = s->tree.module();  // points into *s, which the framework keeps where it is
    return orca::mca::ComponentGlue<State>::keep(std::move(s), state);
  });
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_routed_radix_component =
    orca::mca::ComponentGlue<State>::descriptor("routed", ORCA_ROUTED_INTERFACE_VERSION, "radix",
                                                "A k-ary tree over the vpids, fan-out routed_radix_radix",
                                                radix_register, radix_open);
