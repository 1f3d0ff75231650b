// The pmi base: its variables (the job's bound on collective data), the
// message past that bound, and the entry <-> Kvs conversions every side of
// the C interface uses.
#include <orca/pmi.h>


namespace orca::pmi {

namespace {
// pmi_base_verbose is the framework's own (every framework has one):
// 1 logs each collective, 2 each rank's connection.
const orca_mca_var_decl kBaseVars[] = {
    {.name = "max_job_keys",
     .type = ORCA_MCA_VAR_UNSIGNED,
     .default_value = "1048576",
     .level = 4,
     .description = "Most keys one pmi component's collective data may have over the whole job (pmi/simple: "
                    "every key a rank puts, over all its barriers; pmi/pmix: one per node and fence). Every "
                    "daemon keeps all of them, so the job is ended, naming the rank or host, when they would "
                    "pass this. MPICH puts a few keys a rank: 1048576 leaves room for jobs of 100,000 ranks and "
                    "more, and bounds what each key costs a daemon (about 100 bytes besides its text)",
     .min_value = "1"},
    {.name = "max_job_bytes",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "64M",
     .level = 4,
     .description = "Most bytes (keys and values) one pmi component's collective data may have over the whole "
                    "job: pmi/simple's key-value space; pmi/pmix's fence data, every fence counted (libpmix sends "
                    "each node's data so far at each), and at each daemon the direct modex bytes relayed to it. "
                    "Every daemon keeps that data or hands it to its PMIx library, so the job is ended, naming "
                    "the rank or host, when it would pass this. An MPICH business card is about 100 bytes a rank "
                    "and Open MPI's modex (one fence, in MPI_Init) a few hundred: a 100,000-rank job has tens of "
                    "MB, and one collective's data must fit an oob message anyway (oob_tcp_max_msg_size, 64M): "
                    "raise both together",
     .min_value = "1k"},
    {.name = "helper",
     .type = ORCA_MCA_VAR_STRING_LIST,
     .default_value = "pmix",
     .level = 4,
     .description = "The pmi components (a comma list) that a persistent DVM's daemons run in a helper process "
                    "of their own (orcad-pmi), replaced by a fresh one whenever no job uses it and it grew past "
                    "pmi_base_helper_growth. libpmix 4.2.2 keeps some 5 kB of every rank it served, Open MPI's "
                    "included, until its own end, and cannot be restarted inside a process: a DVM that runs "
                    "thousands of Open MPI jobs would grow by that much. Empty: every module in the daemon "
                    "itself. A standalone orcarun's daemons run one job and never use a helper. pmi/simple "
                    "gives its ranks a descriptor and cannot be listed"},
    {.name = "helper_growth",
     .type = ORCA_MCA_VAR_SIZE,
     .default_value = "256k",
     .level = 4,
     .description = "How much a DVM daemon's PMI helper process (pmi_base_helper) may grow, measured after its "
                    "first job, before it is replaced by a fresh one when no job uses it (some 2-5 ms of CPU "
                    "to start libpmix's server again). 256k is some 50 Open MPI ranks"},
};

std::string unit_of(orca_pmi_bound which) { return which == ORCA_PMI_BOUND_KEYS ? "keys" : "bytes"; }
}  // namespace

std::span<const orca_mca_var_decl> base_variable_decls() { return kBaseVars; }

DataSize DataSize::of(const Kvs& kvs) noexcept {
  DataSize size;
  for (const auto& [key, value] : kvs) size.add(key, value);
  return size;
}

Result<DataBound> job_data_bound(const mca::Registry& registry) {
  const mca::Variable* keys = registry.find("pmi_base_max_job_keys");
  const mca::Variable* bytes = registry.find("pmi_base_max_job_bytes");
  if (keys == nullptr || bytes == nullptr) return Message("mca-base", "not-registered", {{"framework", "pmi"}});
  return DataBound{.keys = keys->as_unsigned(), .bytes = bytes->as_size()};
}

Message over_bound(std::string_view component, std::string_view source, orca_pmi_bound which, const DataBound& bound,
                   DataSize total) {
  const bool keys = which == ORCA_PMI_BOUND_KEYS;
  const std::uint64_t limit = keys ? bound.keys : bound.bytes;
  return Message("pmi", "job-data-bound",
                 {{"component", std::string(component)},
                  {"source", std::string(source)},
                  {"total", std::to_string(keys ? total.keys : total.bytes)},
                  {"bound", std::to_string(limit)},
                  {"unit", unit_of(which)},
                  {"variable", keys ? "pmi_base_max_job_keys" : "pmi_base_max_job_bytes"},
                  {"larger", std::to_string(limit > UINT64_MAX / 4 ? limit : limit * 4)}});
}

std::string part_source(std::string_view host, bool relayed) {
  return "the data from the daemon on " + std::string(host) + (relayed ? " and the daemons below it" : "");
}

std::vector<orca_pmi_entry> entries_of(const Kvs& kvs) {
  std::vector<orca_pmi_entry> out;
  out.reserve(kvs.size());
  for (const auto& [key, value] : kvs) {
    out.push_back({.key = key.data(),
                   .key_length = key.size(),
                   .value = reinterpret_cast<const std::uint8_t*>(value.data()),
                   .value_length = value.size()});
  }
  return out;
}

Kvs kvs_of(const orca_pmi_entry* entries, size_t count) {
  Kvs out;
  for (size_t i = 0; i < count; ++i) {
    const orca_pmi_entry& e = entries[i];
    out.emplace(std::string(e.key, e.key_length),
                std::string(reinterpret_cast<const char*>(e.value), e.value_length));
  }
  return out;
}

}  // namespace orca::pmi
