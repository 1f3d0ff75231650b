// choose_pmix_server: orcarun_pmix_server against what the program links.
#include <orca/pmix_server_choice.h>

namespace orca::launch {

Result<PmixServerMode> parse_pmix_server_mode(std::string_view word) {
  if (word == "auto") return PmixServerMode::Auto;
  if (word == "always") return PmixServerMode::Always;
  if (word == "never") return PmixServerMode::Never;
  return Message("launch", "bad-pmix-server-mode", {{"value", std::string(word)}});
}

PmixServerChoice choose_pmix_server(PmixServerMode mode, const ProgramLinkage& program) {
  switch (mode) {
    case PmixServerMode::Always: return {true, "a PMIx server for every rank (orcarun_pmix_server=always)"};
    case PmixServerMode::Never:
      return {false, "no PMIx server (orcarun_pmix_server=never): an Open MPI rank runs as a singleton"};
    case PmixServerMode::Auto: break;
  }
  const std::string tail = " (orcarun_pmix_server=auto)";
  if (program.kind == ProgramLinkage::Kind::Unknown) {
    return {true, "a PMIx server, since it cannot be told whether the program uses one: " + program.unknown_why + tail};
  }
  if (!program.pmix_library.empty()) {
    return {true, "a PMIx server: " + program.path + " links " + program.pmix_library + tail};
  }
  if (!program.launcher.empty()) {
    return {true, "a PMIx server: " + program.path + " may run or load another program (" + program.launcher + ")" +
                      tail};
  }
  const std::string mpi = program.pmi_mpi_library.empty()
                              ? std::string()
                              : " but through " + program.pmi_mpi_library + ", an MPI that speaks PMI-1/2";
  return {false, "no PMIx server: " + program.path + " links no PMIx client library and cannot run or load another program" +
                     mpi + tail + "; set orcarun_pmix_server=always if its ranks still look for one"};
}

}  // namespace orca::launch
