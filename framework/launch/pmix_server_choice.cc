// choose_pmix_server, choose_pmi_simple_server, choose_data_plane_round:
// orcarun_pmix_server, orcarun_pmi_simple_server and
// orcarun_data_plane_round against what the program links.
#include "pmix_server_choice.h"

#include <optional>

namespace orca::launch {

Result<PmiServerMode> parse_pmi_server_mode(std::string_view variable, std::string_view word) {
  if (word == "auto") return PmiServerMode::Auto;
  if (word == "always") return PmiServerMode::Always;
  if (word == "never") return PmiServerMode::Never;
  return Message("launch", "bad-pmi-server-mode", {{"variable", std::string(variable)}, {"value", std::string(word)}});
}

namespace {

/* One service's words; the rules every per-job service shares. */
struct Server {
  std::string name;        // "PMIx server"
  std::string variable;    // "orcarun_pmix_server"
  std::string without;     // what never means: "an Open MPI rank runs as a singleton"
  std::string libraries;   // what a program that needs it links: "PMIx client library"
  std::string wanted = "look for one";  // what ranks that still need it do

  std::string tail() const { return " (" + variable + "=auto)"; }
  std::string what() const { return "a " + name; }
  PmiServerChoice start(const std::string& why) const { return {true, what() + ": " + why + tail()}; }

  /* always, never, and a program not read whole. */
  std::optional<PmiServerChoice> by_mode(PmiServerMode mode, const ProgramLinkage& program) const {
    switch (mode) {
      case PmiServerMode::Always: return PmiServerChoice{true, what() + " for every rank (" + variable + "=always)"};
      case PmiServerMode::Never:
        return PmiServerChoice{false, "no " + name + " (" + variable + "=never): " + without};
      case PmiServerMode::Auto: break;
    }
    if (program.kind == ProgramLinkage::Kind::Unknown) {
      return PmiServerChoice{true, what() + ", since it cannot be told whether the program uses one: " + program.unknown_why + tail()};
    }
    return std::nullopt;
  }

  /* After the libraries: a program that may run or load another gets it, the rest not. */
  PmiServerChoice by_launcher(const ProgramLinkage& program, const std::string& aside = {}) const {
    if (!program.launcher.empty()) return start(program.path + " may run or load another program (" + program.launcher + ")");
    return {false, "no " + name + ": " + program.path + " links no " + libraries +
                       " and cannot run or load another program" + aside + tail() + "; set " + variable +
                       "=always if its ranks still " + wanted};
  }
};

}  // namespace

PmiServerChoice choose_data_plane_round(PmiServerMode mode, const ProgramLinkage& program) {
  const Server round{.name = "data-plane round",
                     .variable = "orcarun_data_plane_round",
                     .without = "ranks get no interface variables",
                     .libraries = "MPI, PMI or network library",
                     .wanted = "read the interface variables"};
  if (auto decided = round.by_mode(mode, program)) return *decided;
  for (const std::string* library : {&program.pmix_library, &program.pmi_library, &program.network_library}) {
    if (!library->empty()) return round.start(program.path + " links " + *library);
  }
  return round.by_launcher(program);
}

PmiServerChoice choose_pmix_server(PmiServerMode mode, const ProgramLinkage& program) {
  const Server server{.name = "PMIx server",
                      .variable = "orcarun_pmix_server",
                      .without = "an Open MPI rank runs as a singleton",
                      .libraries = "PMIx client library"};
  if (auto decided = server.by_mode(mode, program)) return *decided;
  if (!program.pmix_library.empty()) return server.start(program.path + " links " + program.pmix_library);
  return server.by_launcher(program, program.pmi_library.empty()
                                         ? std::string()
                                         : " but through " + program.pmi_library + ", a PMI-1/2 client");
}

PmiServerChoice choose_pmi_simple_server(PmiServerMode mode, const ProgramLinkage& program) {
  const Server server{.name = "PMI-1/2 server",
                      .variable = "orcarun_pmi_simple_server",
                      .without = "an MPICH rank runs as a singleton",
                      .libraries = "PMI client library"};
  if (auto decided = server.by_mode(mode, program)) return *decided;
  if (!program.pmi_library.empty()) return server.start(program.path + " links " + program.pmi_library);
  // Not read further than a PMIx library: whatever else it links is unknown.
  if (!program.pmix_library.empty()) return server.start(program.path + " links " + program.pmix_library + ", an MPI library");
  return server.by_launcher(program);
}

Result<ProgramServices> choose_program_services(const ServiceModes& modes,
                                                const std::vector<ProgramLinkage>& programs) {
  auto pmix_mode = parse_pmi_server_mode("orcarun_pmix_server", modes.pmix_server);
  if (!pmix_mode) return pmix_mode.error();
  auto simple_mode = parse_pmi_server_mode("orcarun_pmi_simple_server", modes.pmi_simple_server);
  if (!simple_mode) return simple_mode.error();
  auto round_mode = parse_pmi_server_mode("orcarun_data_plane_round", modes.data_plane_round);
  if (!round_mode) return round_mode.error();
  auto merge = [](PmiServerChoice& into, PmiServerChoice one, bool first) {
    if (first || (one.start && !into.start)) into = std::move(one);
  };
  ProgramServices services;
  for (std::size_t k = 0; k < programs.size(); ++k) {
    merge(services.pmix, choose_pmix_server(pmix_mode.value(), programs[k]), k == 0);
    merge(services.simple, choose_pmi_simple_server(simple_mode.value(), programs[k]), k == 0);
    merge(services.round, choose_data_plane_round(round_mode.value(), programs[k]), k == 0);
  }
  return services;
}

}  // namespace orca::launch
