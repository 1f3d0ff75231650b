// The pmi base: its variables and the entry <-> Kvs conversions every
// side of the C interface uses.
#include <orca/pmi.h>

namespace orca::pmi {

// pmi_base_verbose is the framework's own (every framework has one):
// 1 logs each collective, 2 each rank's connection.
std::span<const orca_mca_var_decl> base_variable_decls() { return {}; }

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
