// Built by `make installcheck` against the *installed* headers and liborca,
// with nothing but `pkg-config --cflags --libs orca`: proves that an
// out-of-tree program can use the public API.
#include <orca/mca_component.h>
#include <orca/mca_var.h>

#include <iostream>

int main() {
  orca::mca::Registry registry;
  orca::mca::VarSpec spec;
  spec.framework = "demo";
  spec.component = "base";
  spec.name = "size";
  spec.type = orca::mca::VarType::Size;
  spec.default_text = "4k";
  spec.description = "a size";
  if (auto st = registry.add_setting({"demo_base_size", "2M", {orca::mca::SourceKind::CommandLine}}); !st) return 1;
  auto var = registry.declare(spec);
  if (!var) {
    std::cerr << var.error().summary() << "\n";
    return 1;
  }
  std::cout << "abi " << ORCA_MCA_COMPONENT_ABI_VERSION << ": " << var.value()->name() << " = "
            << var.value()->as_size() << " from " << var.value()->source().describe() << "\n";
  return var.value()->as_size() == 2u << 20 ? 0 : 1;
}
