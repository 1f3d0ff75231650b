// inspect_program and choose_pmix_server on this machine's real programs:
// hostname (nothing to serve), sh and python3 (they may run an MPI
// program), a program linking libpmix (the test's own pmix_flood), and the
// files that cannot be read whole (scripts, garbage, a library not found,
// LD_PRELOAD), which must always get the server.
#include "launch/pmix_server_choice.h"
#include "launch/program_linkage.h"

#include "test/lib/temp_dir.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace orca::launch {
namespace {

LinkEnvironment system_environment() {
  LinkEnvironment env;
  env.path = "/usr/local/bin:/usr/bin:/bin";
  return env;
}

TEST(ProgramLinkage, HostnameLinksNoPmixAndRunsNothingElse) {
  const ProgramLinkage p = inspect_program("hostname", system_environment());
  ASSERT_EQ(p.kind, ProgramLinkage::Kind::Read) << p.unknown_why;
  EXPECT_TRUE(p.path.ends_with("/hostname")) << p.path;
  EXPECT_EQ(p.pmix_library, "");
  EXPECT_EQ(p.launcher, "");
  const PmiServerChoice c = choose_pmix_server(PmiServerMode::Auto, p);
  EXPECT_FALSE(c.start);
  EXPECT_NE(c.why.find("links no PMIx client library"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("orcarun_pmix_server=always"), std::string::npos) << c.why;
  const PmiServerChoice simple = choose_pmi_simple_server(PmiServerMode::Auto, p);
  EXPECT_FALSE(simple.start);
  EXPECT_NE(simple.why.find("links no PMI client library"), std::string::npos) << simple.why;
  EXPECT_NE(simple.why.find("orcarun_pmi_simple_server=always"), std::string::npos) << simple.why;
}

TEST(ProgramLinkage, AShellAndPythonMayRunAnMpiProgram) {
  const ProgramLinkage sh = inspect_program("/bin/sh", system_environment());
  ASSERT_EQ(sh.kind, ProgramLinkage::Kind::Read) << sh.unknown_why;
  EXPECT_TRUE(sh.launcher.find(" imports exec") != std::string::npos) << sh.launcher;
  EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, sh).start);
  EXPECT_TRUE(choose_pmi_simple_server(PmiServerMode::Auto, sh).start);
  const ProgramLinkage py = inspect_program("/usr/bin/python3", system_environment());
  if (py.kind == ProgramLinkage::Kind::Read) {
    EXPECT_NE(py.launcher, "");
  }
  EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, py).start) << py.unknown_why;
}

TEST(ProgramLinkage, AProgramLinkingLibpmixIsAPmixClient) {
  const std::string program = ORCA_TEST_PMIX_PROGRAM;
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) GTEST_SKIP() << program << " is not built (make check builds it)";
  const ProgramLinkage p = inspect_program(program, system_environment());
  ASSERT_EQ(p.kind, ProgramLinkage::Kind::Read) << p.unknown_why;
  EXPECT_TRUE(p.pmix_library.starts_with("libpmix.so")) << p.pmix_library;
  const PmiServerChoice c = choose_pmix_server(PmiServerMode::Auto, p);
  EXPECT_TRUE(c.start);
  EXPECT_NE(c.why.find("links libpmix.so"), std::string::npos) << c.why;
  // Read no further than its PMIx library: PMI-1/2 served too.
  EXPECT_TRUE(choose_pmi_simple_server(PmiServerMode::Auto, p).start);
}

/* Runs a compiler command line; false (with its output) when it fails. */
::testing::AssertionResult compiled(const std::string& command) {
  const std::string line = command + " 2>&1";
  if (std::system(line.c_str()) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "failed: " << command;
}

bool have(const char* tool) {
  const std::string probe = std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(probe.c_str()) == 0;
}

TEST(ProgramLinkage, AnMpichProgramGetsNoServerForWhatLibmpichImports) {
  // Debian's libmpich imports execvp and the ucx libraries under it dlopen:
  // MPICH's own, which never make the rank a PMIx client. The program's own
  // execvp still counts.
  if (!have("mpicc.mpich")) GTEST_SKIP() << "mpicc.mpich is not installed (Debian libmpich-dev)";
  const test::TempDir dir;
  const std::string plain = dir.write("plain.c", "#include <mpi.h>\nint main(int c, char** v) { MPI_Init(&c, &v); MPI_Finalize(); }\n");
  const std::string runs = dir.write(
      "runs.c", "#include <mpi.h>\n#include <unistd.h>\nint main(int c, char** v) { MPI_Init(&c, &v); MPI_Finalize(); execvp(v[1], v + 1); }\n");
  const std::string d = dir.path().string();
  ASSERT_TRUE(compiled("mpicc.mpich -o " + d + "/plain " + plain));
  ASSERT_TRUE(compiled("mpicc.mpich -o " + d + "/runs " + runs));
  const ProgramLinkage p = inspect_program(d + "/plain", system_environment());
  ASSERT_EQ(p.kind, ProgramLinkage::Kind::Read) << p.unknown_why;
  EXPECT_TRUE(p.pmi_library.starts_with("libmpich.so")) << p.pmi_library;
  EXPECT_EQ(p.launcher, "");
  const PmiServerChoice c = choose_pmix_server(PmiServerMode::Auto, p);
  EXPECT_FALSE(c.start) << c.why;
  EXPECT_NE(c.why.find("a PMI-1/2 client"), std::string::npos) << c.why;
  const PmiServerChoice simple = choose_pmi_simple_server(PmiServerMode::Auto, p);
  EXPECT_TRUE(simple.start);
  EXPECT_NE(simple.why.find("links libmpich.so"), std::string::npos) << simple.why;
  const ProgramLinkage r = inspect_program(d + "/runs", system_environment());
  EXPECT_EQ(r.launcher, "runs imports execvp");
  EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, r).start);
}

TEST(ProgramLinkage, ALibraryAlsoNeededOutsideThePmiMpiLibraryStillCounts) {
  // libspawn imports popen. Needed only by a library named like MPICH's it
  // does not count; needed by the program, or by another library of it
  // (found through the MPI library first, breadth first), it does.
  if (!have("cc")) GTEST_SKIP() << "no C compiler";
  const test::TempDir dir;
  const std::string d = dir.path().string();
  const std::string spawn = dir.write("spawn.c", "#include <stdio.h>\nvoid spawn(void) { pclose(popen(\"true\", \"r\")); }\n");
  const std::string mpich = dir.write("mpich.c", "void spawn(void);\nvoid mpi_init(void) { spawn(); }\n");
  const std::string other = dir.write("other.c", "void spawn(void);\nvoid other(void) { spawn(); }\n");
  const std::string main1 = dir.write("only_mpi.c", "void mpi_init(void);\nint main(void) { mpi_init(); }\n");
  const std::string main2 = dir.write("also.c", "void mpi_init(void); void spawn(void);\nint main(void) { mpi_init(); spawn(); }\n");
  const std::string main3 = dir.write("through.c", "void mpi_init(void); void other(void);\nint main(void) { mpi_init(); other(); }\n");
  const std::string rpath = " -Wl,--no-as-needed -Wl,-rpath,'$ORIGIN' -L" + d;
  ASSERT_TRUE(compiled("cc -shared -fPIC -o " + d + "/libspawn.so " + spawn));
  ASSERT_TRUE(compiled("cc -shared -fPIC -Wl,-soname,libmpich.so.77 -o " + d + "/libmpich.so.77 " + mpich + rpath + " -lspawn"));
  ASSERT_TRUE(compiled("cc -shared -fPIC -o " + d + "/libother.so " + other + rpath + " -lspawn"));
  ASSERT_TRUE(compiled("cc -o " + d + "/only_mpi " + main1 + rpath + " " + d + "/libmpich.so.77"));
  ASSERT_TRUE(compiled("cc -o " + d + "/also " + main2 + rpath + " " + d + "/libmpich.so.77 -lspawn"));
  ASSERT_TRUE(compiled("cc -o " + d + "/through " + main3 + rpath + " " + d + "/libmpich.so.77 -lother"));

  const ProgramLinkage only = inspect_program(d + "/only_mpi", system_environment());
  ASSERT_EQ(only.kind, ProgramLinkage::Kind::Read) << only.unknown_why;
  EXPECT_EQ(only.pmi_library, "libmpich.so.77");
  EXPECT_EQ(only.launcher, "");
  EXPECT_FALSE(choose_pmix_server(PmiServerMode::Auto, only).start);
  EXPECT_TRUE(choose_pmi_simple_server(PmiServerMode::Auto, only).start);
  for (const char* program : {"also", "through"}) {
    const ProgramLinkage p = inspect_program(d + "/" + program, system_environment());
    ASSERT_EQ(p.kind, ProgramLinkage::Kind::Read) << p.unknown_why;
    EXPECT_EQ(p.launcher, "libspawn.so imports popen") << program;
    EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, p).start) << program;
  }
}

TEST(ProgramLinkage, LibrariesAreFoundAsLdSoFindsThem) {
  // Without ld.so.conf, glibc's multiarch directory is known only through
  // LD_LIBRARY_PATH.
  LinkEnvironment env = system_environment();
  env.ld_so_conf = "/nonexistent/ld.so.conf";
  const ProgramLinkage lost = inspect_program("hostname", env);
  ASSERT_EQ(lost.kind, ProgramLinkage::Kind::Unknown);
  EXPECT_NE(lost.unknown_why.find("needs libc.so.6, which is not found here"), std::string::npos) << lost.unknown_why;
  EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, lost).start);
  env.ld_library_path = "/nonexistent:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu";
  const ProgramLinkage found = inspect_program("hostname", env);
  if (found.kind == ProgramLinkage::Kind::Unknown && !std::filesystem::exists("/lib/x86_64-linux-gnu/libc.so.6")) {
    GTEST_SKIP() << "not a Debian x86_64 layout: " << found.unknown_why;
  }
  EXPECT_EQ(found.kind, ProgramLinkage::Kind::Read) << found.unknown_why;
}

// An MPMD job (or an --app file) naming one program many times reads it
// once; distinct programs keep their order, the first decides the words.
TEST(ProgramLinkage, EachDistinctProgramOfAJobIsReadOnce) {
  const std::vector<std::string> names{"hostname", "/bin/sh", "hostname", "hostname", "/bin/sh"};
  const std::vector<ProgramLinkage> read = inspect_programs(names, system_environment());
  ASSERT_EQ(read.size(), 2U);
  EXPECT_TRUE(read[0].path.ends_with("/hostname")) << read[0].path;
  EXPECT_EQ(read[1].path, "/bin/sh");
  EXPECT_TRUE(inspect_programs({}, system_environment()).empty());
}

// The object that needs the missing library is named after the closure
// grew: a program path short enough to live inside its std::string (7
// bytes, "/bin/ls") once moved with the vector and left the name read from
// freed memory (AddressSanitizer: heap-use-after-free).
TEST(ProgramLinkage, TheObjectMissingALibraryIsNamedAfterTheClosureGrew) {
  if (!std::filesystem::exists("/bin/ls") || !std::filesystem::exists("/lib/x86_64-linux-gnu/libselinux.so.1")) {
    GTEST_SKIP() << "not a Debian x86_64 layout (/bin/ls linking libselinux.so.1)";
  }
  const orca::test::TempDir dir;
  std::filesystem::create_symlink("/lib/x86_64-linux-gnu/libselinux.so.1", dir.path() / "libselinux.so.1");
  LinkEnvironment env = system_environment();
  env.ld_so_conf = "/nonexistent/ld.so.conf";
  env.ld_library_path = dir.path().string();  // libselinux found first, libc.so.6 then missing
  const ProgramLinkage p = inspect_program("/bin/ls", env);
  ASSERT_EQ(p.kind, ProgramLinkage::Kind::Unknown);
  EXPECT_NE(p.unknown_why.find("ls needs libc.so.6, which is not found here"), std::string::npos) << p.unknown_why;
}

TEST(ProgramLinkage, WhatCannotBeReadWholeIsUnknownAndGetsTheServer) {
  const test::TempDir dir;
  const std::string script = dir.write("job.sh", "#!/bin/sh\nexec ./mpi_app\n");
  ::chmod(script.c_str(), 0755);
  const std::string garbage = dir.write("garbage", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(100, '\xff'));
  const std::string empty = dir.write("empty", "");
  const struct {
    std::string program;
    std::string why;
  } cases[] = {
      {script, "is a script"},
      {garbage, "garbage"},
      {empty, "is not a regular file of an ELF's size"},
      {"no-such-program-anywhere", "is not found in PATH here"},
      {"", "no program"},
  };
  for (const auto& c : cases) {
    const ProgramLinkage p = inspect_program(c.program, system_environment());
    EXPECT_EQ(p.kind, ProgramLinkage::Kind::Unknown) << c.program;
    EXPECT_NE(p.unknown_why.find(c.why), std::string::npos) << c.program << ": " << p.unknown_why;
    EXPECT_TRUE(choose_pmix_server(PmiServerMode::Auto, p).start) << c.program;
    EXPECT_TRUE(choose_pmi_simple_server(PmiServerMode::Auto, p).start) << c.program;
  }
  LinkEnvironment preload = system_environment();
  preload.ld_preload = "/usr/lib/libsomething.so";
  const ProgramLinkage p = inspect_program("hostname", preload);
  EXPECT_EQ(p.kind, ProgramLinkage::Kind::Unknown);
  EXPECT_NE(p.unknown_why.find("LD_PRELOAD"), std::string::npos) << p.unknown_why;
}

TEST(PmiServerChoice, AlwaysAndNeverOverrideWhatWasRead) {
  const ProgramLinkage hostname = inspect_program("hostname", system_environment());
  EXPECT_TRUE(choose_pmix_server(PmiServerMode::Always, hostname).start);
  EXPECT_TRUE(choose_pmi_simple_server(PmiServerMode::Always, hostname).start);
  const ProgramLinkage sh = inspect_program("sh", system_environment());
  const PmiServerChoice never = choose_pmix_server(PmiServerMode::Never, sh);
  EXPECT_FALSE(never.start);
  EXPECT_NE(never.why.find("singleton"), std::string::npos) << never.why;
  EXPECT_FALSE(choose_pmi_simple_server(PmiServerMode::Never, sh).start);
  EXPECT_EQ(parse_pmi_server_mode("orcarun_pmix_server", "auto").value(), PmiServerMode::Auto);
  EXPECT_EQ(parse_pmi_server_mode("orcarun_pmi_simple_server", "never").value(), PmiServerMode::Never);
  const auto bad = parse_pmi_server_mode("orcarun_pmi_simple_server", "sometimes");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().arg("variable"), "orcarun_pmi_simple_server");
}

// MPMD: a job's servers and round follow every program, not the first:
// `hostname : sh` gets both servers and the round, with sh's words.
TEST(PmiServerChoice, EveryProgramOfAJobCounts) {
  const ProgramLinkage hostname = inspect_program("hostname", system_environment());
  const ProgramLinkage sh = inspect_program("/bin/sh", system_environment());
  const ServiceModes automatic{.pmix_server = "auto", .pmi_simple_server = "auto", .data_plane_round = "auto"};
  const auto alone = choose_program_services(automatic, {hostname});
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE(alone->pmix.start);
  EXPECT_FALSE(alone->simple.start);
  EXPECT_FALSE(alone->round.start);
  EXPECT_EQ(alone->pmix.why, choose_pmix_server(PmiServerMode::Auto, hostname).why);
  for (const auto& programs : {std::vector<ProgramLinkage>{hostname, sh}, std::vector<ProgramLinkage>{sh, hostname}}) {
    const auto both = choose_program_services(automatic, programs);
    ASSERT_TRUE(both.ok());
    EXPECT_TRUE(both->pmix.start);
    EXPECT_TRUE(both->simple.start);
    EXPECT_TRUE(both->round.start);
    EXPECT_EQ(both->simple.why, choose_pmi_simple_server(PmiServerMode::Auto, sh).why);
  }
  const auto never = choose_program_services({.pmix_server = "never", .pmi_simple_server = "auto", .data_plane_round = "auto"},
                                             {hostname, sh});
  ASSERT_TRUE(never.ok());
  EXPECT_FALSE(never->pmix.start);
  EXPECT_TRUE(never->simple.start);
  const auto bad = choose_program_services({.pmix_server = "auto", .pmi_simple_server = "auto", .data_plane_round = "often"},
                                           {hostname});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().arg("variable"), "orcarun_data_plane_round");
}

// --- the data-plane round ---------------------------------------------------------

TEST(DataPlaneRound, NoneForAProgramThatCannotReadItsVariables) {
  const ProgramLinkage hostname = inspect_program("hostname", system_environment());
  ASSERT_EQ(hostname.kind, ProgramLinkage::Kind::Read) << hostname.unknown_why;
  EXPECT_EQ(hostname.network_library, "");
  const PmiServerChoice c = choose_data_plane_round(PmiServerMode::Auto, hostname);
  EXPECT_FALSE(c.start);
  EXPECT_NE(c.why.find("links no MPI, PMI or network library and cannot run or load another program"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("orcarun_data_plane_round=always"), std::string::npos) << c.why;
  EXPECT_TRUE(choose_data_plane_round(PmiServerMode::Always, hostname).start);
  const PmiServerChoice never = choose_data_plane_round(PmiServerMode::Never, inspect_program("sh", system_environment()));
  EXPECT_FALSE(never.start);
  EXPECT_NE(never.why.find("orcarun_data_plane_round=never"), std::string::npos) << never.why;
}

TEST(DataPlaneRound, HeldForWhatMayRunOrLoadAnotherAndWhatIsNotReadWhole) {
  const ProgramLinkage sh = inspect_program("/bin/sh", system_environment());
  const PmiServerChoice c = choose_data_plane_round(PmiServerMode::Auto, sh);
  EXPECT_TRUE(c.start);
  EXPECT_NE(c.why.find("may run or load another program"), std::string::npos) << c.why;
  EXPECT_TRUE(choose_data_plane_round(PmiServerMode::Auto, inspect_program("/usr/bin/python3", system_environment())).start);
  const test::TempDir dir;
  const std::string script = dir.write("job.sh", "#!/bin/sh\nexec hostname\n");
  ::chmod(script.c_str(), 0755);
  const ProgramLinkage unknown = inspect_program(script, system_environment());
  ASSERT_EQ(unknown.kind, ProgramLinkage::Kind::Unknown);
  EXPECT_TRUE(choose_data_plane_round(PmiServerMode::Auto, unknown).start);
}

TEST(DataPlaneRound, HeldForAProgramLinkingANetworkOrMpiLibrary) {
  // Stand-ins named as UCX, NCCL, libfabric, PyTorch and MPICH name their
  // libraries, linked by programs that run nothing else; and one named
  // like none of them, which gets no round.
  if (!have("cc")) GTEST_SKIP() << "no C compiler";
  const test::TempDir dir;
  const std::string d = dir.path().string();
  const std::string lib = dir.write("lib.c", "int lib_call(void) { return 0; }\n");
  const std::string main = dir.write("main.c", "int lib_call(void);\nint main(void) { return lib_call(); }\n");
  const std::pair<const char*, bool> cases[] = {{"libucp.so.0", true},     {"libnccl.so.2", true},
                                                {"libfabric.so.1", true},  {"libtorch_cpu.so", true},
                                                {"libc10.so", true},       {"libmpich.so.12", true},
                                                {"libmylib.so.1", false}};
  for (const auto& [soname, held] : cases) {
    const std::string sub = d + "/" + soname + ".dir";
    ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
    ASSERT_TRUE(compiled("cc -shared -fPIC -Wl,-soname," + std::string(soname) + " -o " + sub + "/" + soname + " " + lib));
    ASSERT_TRUE(compiled("cc -o " + sub + "/prog " + main + " -Wl,--no-as-needed -Wl,-rpath,'$ORIGIN' " + sub + "/" + soname));
    const ProgramLinkage p = inspect_program(sub + "/prog", system_environment());
    ASSERT_EQ(p.kind, ProgramLinkage::Kind::Read) << soname << ": " << p.unknown_why;
    ASSERT_EQ(p.launcher, "") << soname;
    const PmiServerChoice c = choose_data_plane_round(PmiServerMode::Auto, p);
    EXPECT_EQ(c.start, held) << soname << ": " << c.why;
    if (held) EXPECT_NE(c.why.find(std::string("links ") + soname), std::string::npos) << c.why;
  }
}

}  // namespace
}  // namespace orca::launch
