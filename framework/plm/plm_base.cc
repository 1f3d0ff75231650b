// The plm base: choosing the module for a job's hosts, building a daemon's
// command, and finding the daemon program.
#include "plm/plm_base.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string_view>

namespace orca::plm {

namespace {
const orca_mca_var_decl kBaseVars[] = {
    {.name = "daemon",
     .type = ORCA_MCA_VAR_STRING,
     .default_value = "",
     .level = 3,
     .description = "Path of the orcad program on every host (the same path everywhere); empty: the orcad "
                    "installed beside orcarun"},
};
}  // namespace

std::span<const orca_mca_var_decl> base_variable_decls() { return kBaseVars; }

std::vector<std::string> daemon_program(const mca::Registry& registry) {
  const mca::Variable* v = registry.find("plm_base_daemon");
  if (v != nullptr && !v->as_string().empty()) return {v->as_string()};
  return {default_daemon_path()};
}

Result<ChosenModule> choose_module(const mca::Framework& framework, const std::vector<std::string>& hosts) {
  const auto selected = framework.selected();
  if (selected.empty()) return Message("plm", "none-selected", {});
  std::string answers;
  std::string refused_host;
  for (const mca::Framework::Entry* e : selected) {
    const auto* m = mca::Framework::module_as<orca_plm_module>(*e);
    bool all = true;
    for (const auto& h : hosts) {
      orca_mca_reason why{};
      if (m->accepts(m->self, h.c_str(), &why) != ORCA_MCA_OK) {
        answers += "\n  plm/" + std::string(e->component->name()) + ": " + printable(why.text);
        if (refused_host.empty()) refused_host = h;
        all = false;
        break;
      }
    }
    if (all) return ChosenModule{std::string(e->component->name()), m};
  }
  return Message("plm", "no-launcher", {{"host", printable(refused_host)}, {"answers", answers}});
}

namespace {
void add_word(void* context, const char* word) { static_cast<std::vector<std::string>*>(context)->emplace_back(word); }
}  // namespace

Result<std::vector<std::string>> daemon_command(const ChosenModule& chosen, const std::string& host,
                                                const std::vector<std::string>& daemon) {
  std::vector<const char*> words;
  for (const auto& w : daemon) words.push_back(w.c_str());
  std::vector<std::string> out;
  orca_plm_words sink{&out, &add_word};
  orca_mca_reason why{};
  if (chosen.module->command(chosen.module->self, host.c_str(), words.data(), words.size(), &sink, &why) !=
      ORCA_MCA_OK) {
    return Message("plm", "no-command",
                   {{"component", chosen.component}, {"host", printable(host)}, {"why", printable(why.text)}});
  }
  if (out.empty()) {
    return Message("plm", "no-command",
                   {{"component", chosen.component}, {"host", printable(host)}, {"why", "it gave no words"}});
  }
  return out;
}

Result<std::vector<std::string>> all_daemons_command(const ChosenModule& chosen, const std::vector<std::string>& hosts,
                                                     const std::vector<std::string>& daemon) {
  std::vector<const char*> words, names;
  for (const auto& w : daemon) words.push_back(w.c_str());
  for (const auto& h : hosts) names.push_back(h.c_str());
  std::vector<std::string> out;
  orca_plm_words sink{&out, &add_word};
  orca_mca_reason why{};
  const std::string where = hosts.size() == 1 ? printable(hosts.front()) : std::to_string(hosts.size()) + " hosts";
  if (chosen.module->command_all(chosen.module->self, names.data(), names.size(), words.data(), words.size(), &sink,
                                 &why) != ORCA_MCA_OK) {
    return Message("plm", "no-command", {{"component", chosen.component}, {"host", where}, {"why", printable(why.text)}});
  }
  if (out.empty()) return Message("plm", "no-command", {{"component", chosen.component}, {"host", where}, {"why", "it gave no words"}});
  return out;
}

std::string ended_host(const ChosenModule& chosen, const std::string& line) {
  if (chosen.module->ended_host == nullptr) return {};
  char host[256] = {};
  const size_t n = chosen.module->ended_host(chosen.module->self, line.c_str(), host, sizeof host);
  return std::string(host, std::min(n, sizeof host - 1));
}

std::string failure_hint(const ChosenModule& chosen, const std::string& host) {
  if (chosen.module == nullptr || chosen.module->failure_hint == nullptr) {
    return "Check what the daemon printed above (plm/" + printable(chosen.component) + ")";
  }
  char text[1024] = {};
  chosen.module->failure_hint(chosen.module->self, host.c_str(), text, sizeof text);
  text[sizeof text - 1] = '\0';
  return printable(text);
}

std::vector<std::string> rank_environment(const ChosenModule& launcher, const std::vector<std::string>& hosts,
                                          const orca_plm_rank_place& place) {
  std::vector<std::string> out;
  if (launcher.module == nullptr || launcher.module->rank_environment == nullptr) return out;
  std::vector<const char*> names;
  for (const auto& h : hosts) names.push_back(h.c_str());
  orca_plm_words sink{&out, &add_word};
  launcher.module->rank_environment(launcher.module->self, names.data(), names.size(), &place, &sink);
  return out;
}

Result<LauncherPlace> vpid_from_launcher(const mca::Framework& framework, const std::vector<std::string>& hosts) {
  std::vector<const char*> names;
  for (const auto& h : hosts) names.push_back(h.c_str());
  std::string answers;
  for (const mca::Framework::Entry* e : framework.selected()) {
    const auto* m = mca::Framework::module_as<orca_plm_module>(*e);
    if (m->daemon_vpid == nullptr) continue;
    orca_mca_reason why{};
    std::uint32_t vpid = 0;
    const orca_mca_rc rc = m->daemon_vpid(m->self, names.data(), names.size(), &vpid, &why);
    if (rc == ORCA_MCA_OK && vpid >= 1 && vpid <= hosts.size()) {
      return LauncherPlace{.vpid = vpid, .launcher = ChosenModule{std::string(e->component->name()), m}};
    }
    answers += "\n  plm/" + std::string(e->component->name()) + ": " +
               (rc == ORCA_MCA_OK ? "vpid " + std::to_string(vpid) + " is not one of the job's" : printable(why.text));
  }
  if (answers.empty()) answers = "\n  (no selected plm component starts daemons all at once)";
  return Message("plm", "no-identity", {{"answers", answers}});
}

std::string default_daemon_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "orcad";
  std::string dir(buf, static_cast<size_t>(n));
  dir.erase(dir.rfind('/'));
  // Installed, orcad is beside orcarun and orcadvm. In the build tree
  // they are framework/tools/orcarun/orcarun and
  // framework/tools/orcadvm/orcadvm (or, linked against liborca.so,
  // libtool's .libs/ programs behind those wrappers) and orcad is
  // framework/tools/orcad/orcad (the program, or the wrapper that finds
  // liborca).
  if (dir.size() > 6 && dir.compare(dir.size() - 6, 6, "/.libs") == 0) dir.erase(dir.size() - 6);
  std::string beside = dir + "/orcad";
  if (::access(beside.c_str(), X_OK) == 0) return beside;
  for (std::string_view tool : {"/orcarun", "/orcadvm"}) {
    if (dir.size() > tool.size() && dir.compare(dir.size() - tool.size(), tool.size(), tool) == 0) {
      std::string built = dir.substr(0, dir.size() - tool.size()) + "/orcad/orcad";
      if (::access(built.c_str(), X_OK) == 0) return built;
    }
  }
  return beside;
}

}  // namespace orca::plm
