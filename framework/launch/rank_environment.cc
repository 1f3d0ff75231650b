// The environment a rank starts with (rank_environment.h).
#include "rank_environment.h"

#include <orca/child_process.h>

#include <string>

namespace orca::launch {

std::vector<std::string> rank_environment(const RankEnvironmentInput& in) {
  std::vector<std::string> env = in.inherited;
  for (const auto& e : in.forwarded) {
    const auto eq = e.find('=');
    if (eq != std::string::npos) plm::set_environment(env, e.substr(0, eq), e.substr(eq + 1));
  }
  const RankIdentity& id = in.identity;
  plm::set_environment(env, "ORCA_RANK", std::to_string(id.rank));
  plm::set_environment(env, "ORCA_SIZE", std::to_string(id.size));
  plm::set_environment(env, "ORCA_LOCAL_RANK", std::to_string(id.local_rank));
  plm::set_environment(env, "ORCA_LOCAL_SIZE", std::to_string(id.local_size));
  plm::set_environment(env, "ORCA_NODE", std::to_string(id.node));
  plm::set_environment(env, "ORCA_APPNUM", std::to_string(id.app));
  for (const auto& [key, value] : rank_identity_variables(id)) plm::set_environment(env, key, value);
  // Judged on the environment so far: a family the user set is left alone.
  for (const auto& [key, value] : network_variables(in.link, in.master, in.families, env).set) {
    plm::set_environment(env, key, value);
  }
  plm::apply_environment(env, in.launcher);
  std::erase_if(env, [](const std::string& e) {
    return e.starts_with("PMI_") || (e.starts_with("PMIX_") && !e.starts_with("PMIX_MCA_"));
  });
  for (const auto& [key, value] : in.pmi) plm::set_environment(env, key, value);
  return env;
}

}  // namespace orca::launch
