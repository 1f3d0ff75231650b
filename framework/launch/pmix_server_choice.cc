// choose_pmix_server: orcarun_pmix_server against what the program links.
#include <orca/pmix_server_choice.h>

namespace orca::launch {

Result<PmiServerMode> parse_pmi_server_mode(std::string_view variable, std::string_view word) {
  if (word == "auto") return PmiServerMode::Auto;
  if (word == "always") return PmiServerMode::Always;
  if (word == "never") return PmiServerMode::Never;
  return Message("launch", "bad-pmi-server-mode", {{"variable", std::string(variable)}, {"value", std::string(word)}});
}

PmiServerChoice choose_pmix_server(PmiServerMode mode, const ProgramLinkage& program) {
  switch (mode) {
    case PmiServerMode::Always: return {true, "a PMIx server for every rank (orcarun_pmix_server=always)"};
    case PmiServerMode::Never:
      return {false, "no PMIx server (orcarun_pmix_server=never): an Open MPI rank runs as a singleton"};
    case PmiServerMode::Auto: break;
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
  const std::string mpi = program.pmi_library.empty()
                              ? std::string()
                              : " but through " + program.pmi_library + ", a PMI-1/2 client";
  return {false, "no PMIx server: " + program.path + " links no PMIx client library and cannot run or load another program" +
                     mpi + tail + "; set orcarun_pmix_server=always if its ranks still look for one"};
}

PmiServerChoice choose_pmi_simple_server(PmiServerMode mode, const ProgramLinkage& program) {
  switch (mode) {
    case PmiServerMode::Always: return {true, "a PMI-1/2 server for every rank (orcarun_pmi_simple_server=always)"};
    case PmiServerMode::Never:
      return {false, "no PMI-1/2 server (orcarun_pmi_simple_server=never): an MPICH rank runs as a singleton"};
    case PmiServerMode::Auto: break;
  }
  const std::string tail = " (orcarun_pmi_simple_server=auto)";
  if (program.kind == ProgramLinkage::Kind::Unknown) {
    return {true, "a PMI-1/2 server, since it cannot be told whether the program uses one: " + program.unknown_why + tail};
  }
  if (!program.pmi_library.empty()) {
    return {true, "a PMI-1/2 server: " + program.path + " links " + program.pmi_library + tail};
  }
  if (!program.pmix_library.empty()) {
    // Not read further than the PMIx library: whatever else it links is unknown.
    return {true, "a PMI-1/2 server: " + program.path + " links " + program.pmix_library + ", an MPI library" + tail};
  }
  if (!program.launcher.empty()) {
    return {true, "a PMI-1/2 server: " + program.path + " may run or load another program (" + program.launcher + ")" +
                      tail};
  }
  return {false, "no PMI-1/2 server: " + program.path + " links no PMI client library and cannot run or load another program" +
                     tail + "; set orcarun_pmi_simple_server=always if its ranks still look for one"};
}

}  // namespace orca::launch
