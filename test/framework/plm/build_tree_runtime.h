// A Runtime that loads components from chosen directories of the build
// tree, reads no settings file and the source tree's help text, with a
// test's own settings added: one process's MCA core, as orcarun would
// have it, without depending on the tester's ~/.orca or environment.
#ifndef ORCA_TEST_FRAMEWORK_PLM_BUILD_TREE_RUNTIME_H
#define ORCA_TEST_FRAMEWORK_PLM_BUILD_TREE_RUNTIME_H

#include "runtime/runtime.h"

#include "lib/build_tree.h"

#include <memory>
#include <string>
#include <vector>

#ifndef ORCA_TEST_HELP_DIR
#error "ORCA_TEST_HELP_DIR must name the source tree's help directory"
#endif

namespace orca::test {

class BuildTreeRuntime {
 public:
  /* `component_dirs` relative to the build tree ("components/plm/local/.libs");
   * `settings` as "name=value" (passed as ORCA_MCA_name). */
  BuildTreeRuntime(const std::vector<std::string>& component_dirs, const std::vector<std::string>& settings) {
    std::string path;
    for (const auto& d : component_dirs) path += (path.empty() ? "" : ":") + build_dir() + "/" + d;
    env_ = {"ORCA_MCA_mca_base_component_path=" + path, "ORCA_MCA_mca_base_param_files=none",
            "ORCA_MCA_mca_base_override_param_file=none",
            std::string("ORCA_MCA_mca_base_help_path=") + ORCA_TEST_HELP_DIR};
    for (const auto& s : settings) env_.push_back("ORCA_MCA_" + s);
    for (const auto& e : env_) envp_.push_back(e.c_str());
    envp_.push_back(nullptr);
    runtime_ = std::make_unique<Runtime>("plm_test", envp_.data());
    runtime_->set_log_sink([this](std::string_view channel, const std::string& text) {
      log.push_back(std::string(channel) + ": " + text);
    });
  }
  Runtime& runtime() { return *runtime_; }
  /* load(), then the framework `decl` opened. */
  Result<mca::Framework*> open(const mca::FrameworkDecl& decl) {
    if (Status st = runtime_->load(mca::ToolOptions{}); !st) return st.error();
    auto fw = runtime_->add_framework(decl);
    if (!fw) return fw;
    if (Status st = fw.value()->open(); !st) return st.error();
    return fw;
  }

  std::vector<std::string> log;

 private:
  std::vector<std::string> env_;
  std::vector<const char*> envp_;
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace orca::test

#endif  // ORCA_TEST_FRAMEWORK_PLM_BUILD_TREE_RUNTIME_H
