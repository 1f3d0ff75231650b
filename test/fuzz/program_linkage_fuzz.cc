// Program files as inspect_program reads them
// (framework/launch/program_linkage.h): orcarun maps whatever argv[0]
// resolves to, which may be any file a user or a stranger with write
// access to a PATH directory left there.
//
// The input is the program's bytes, in a memfd. Checks: no crash or read
// out of bounds; a refusal says why; a program read whole kept its path;
// only a program read whole with no PMIx library and no launcher import
// goes without the server.
#include <orca/unique_fd.h>

#include "launch/pmix_server_choice.h"
#include "launch/program_linkage.h"

#include "fuzz_input.h"

#include <sys/mman.h>
#include <unistd.h>

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::launch;
  const orca::UniqueFd fd(::memfd_create("program", MFD_CLOEXEC));
  if (!fd.valid()) return 0;
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd.get(), data + done, size - done);
    if (n <= 0) return 0;
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd.get());
  LinkEnvironment env;
  env.ld_so_conf = "/nonexistent/ld.so.conf";  // only the input's own bytes are read
  const ProgramLinkage p = inspect_program(path, env);
  const PmiServerChoice c = choose_pmix_server(PmiServerMode::Auto, p);
  const PmiServerChoice simple = choose_pmi_simple_server(PmiServerMode::Auto, p);
  if (p.kind == ProgramLinkage::Kind::Unknown) {
    orca::fuzz::fuzz_require(!p.unknown_why.empty(), "unknown without a reason");
    orca::fuzz::fuzz_require(c.start && simple.start, "an unreadable program went without a server");
  } else {
    orca::fuzz::fuzz_require(p.path == path, "a program read whole under another path");
    orca::fuzz::fuzz_require(c.start == (!p.pmix_library.empty() || !p.launcher.empty()),
                             "the server's choice disagrees with what was read");
    orca::fuzz::fuzz_require(simple.start == (c.start || !p.pmi_library.empty()),
                             "the PMI-1/2 server's choice disagrees with what was read");
  }
  return 0;
}
