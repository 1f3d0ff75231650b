// ras/hostfile: the hosts the user named, --host values then --hostfile
// files, in order, duplicates merged with their slots added.
#include <orca/component_glue.h>
#include <orca/host_list.h>
#include <orca/mca_component.h>
#include <orca/ras.h>

#include <cstdio>
#include <iterator>

namespace {

const orca_mca_var_decl kVars[] = {
    {.name = "priority",
     .type = ORCA_MCA_VAR_INT,
     .default_value = "10",
     .level = 6,
     .description = "Selection priority of ras/hostfile (it offers nodes only when --host or --hostfile names "
                    "some; below ras/slurm, which offers them only when none is named)",
     .min_value = "-1000",
     .max_value = "1000"},
};

using Glue = orca::mca::PriorityOnly<orca_ras_module>;

orca_mca_rc hostfile_allocate(void*, const orca_ras_request* request, const orca_ras_nodes* out, orca_mca_reason* why) {
  return orca::mca::guarded(why, [&] {
    if (request->host_count == 0 && request->hostfile_count == 0) {
      std::snprintf(why->text, sizeof why->text, "no --host or --hostfile names a host");
      return ORCA_MCA_DECLINED;
    }
    std::vector<orca::launch::HostSlots> all;
    for (size_t i = 0; i < request->host_count; ++i) {
      auto hosts = orca::launch::parse_host_option(request->hosts[i]);
      if (!hosts) return orca::ras::report_failure(*out, hosts.error());
      all.insert(all.end(), hosts->begin(), hosts->end());
    }
    for (size_t i = 0; i < request->hostfile_count; ++i) {
      auto hosts = orca::launch::read_hostfile(request->hostfiles[i]);
      if (!hosts) return orca::ras::report_failure(*out, hosts.error());
      all.insert(all.end(), hosts->begin(), hosts->end());
    }
    for (const auto& h : all) out->add(out->context, h.name.c_str(), h.slots, h.slots_given ? 1 : 0, h.max_slots);
    return ORCA_MCA_OK;
  });
}

orca_mca_rc hostfile_register(orca_mca_registrar* registrar) {
  return orca_mca_declare_vars(registrar, kVars, std::size(kVars));
}

orca_mca_rc hostfile_open(const orca_mca_context* context, void** out, orca_mca_reason* why) {
  return Glue::open(context, out, why, "ras_hostfile_", orca_ras_module{.self = nullptr, .allocate = &hostfile_allocate});
}

}  // namespace

extern "C" ORCA_COMPONENT_EXPORT const orca_mca_component mca_ras_hostfile_component =
    orca::mca::ComponentGlue<Glue::State>::descriptor("ras", ORCA_RAS_INTERFACE_VERSION, "hostfile",
                                                "The hosts named with --host (hostlist syntax, :SLOTS) and "
                                                "--hostfile (slots=N)",
                                                hostfile_register, hostfile_open);
