// orcarun's command line: options end at the first non-option word, every
// bad value names the option and says what it takes.
#include "orcarun/orcarun_options.h"
#include "orcarun/map_policy.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace orca::orcarun {
namespace {

Result<Options> parse(const std::vector<std::string>& args) { return parse_options(args); }

TEST(OrcarunOptions, OptionsThenTheCommandUntouched) {
  auto o = parse({"--host", "h1:2,node[1-3]", "-n", "4", "--map-by", "node", "--tag-output", "--timing",
                  "--report-routes", "--mca", "oob_tcp_if_include", "eth0", "--tune", "job.conf", "sh", "-c",
                  "echo -n hi --host", "--timing"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_EQ(o->hosts, std::vector<std::string>{"h1:2,node[1-3]"});
  EXPECT_EQ(o->processes, 4u);
  EXPECT_EQ(o->map_by, MapBy::Node);
  EXPECT_TRUE(o->tag_output);
  EXPECT_TRUE(o->timing);
  EXPECT_TRUE(o->report_routes);
  EXPECT_FALSE(o->report_topology);
  ASSERT_EQ(o->tool.mca.size(), 1u);
  EXPECT_EQ(o->tool.mca[0].name, "oob_tcp_if_include");
  EXPECT_EQ(o->tool.mca[0].text, "eth0");
  EXPECT_EQ(o->tool.tune_files, std::vector<std::string>{"job.conf"});
  // The command keeps its own options, even ones orcarun also has.
  EXPECT_EQ(o->command, (std::vector<std::string>{"sh", "-c", "echo -n hi --host", "--timing"}));
}

TEST(OrcarunOptions, DoubleDashEndsTheOptionsAndValuesMayBeInline) {
  auto o = parse({"--np=3", "--stdin=all", "--timeout=1.5", "--", "-weird-program", "x"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_EQ(o->processes, 3u);
  EXPECT_EQ(o->stdin_target, StdinTarget::All);
  EXPECT_DOUBLE_EQ(*o->timeout_seconds, 1.5);
  EXPECT_EQ(o->command, (std::vector<std::string>{"-weird-program", "x"}));
}

TEST(OrcarunOptions, TheMeshCheckIsAFlag) {
  auto o = parse({"--mesh-check", "true"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_TRUE(o->mesh_check);
  EXPECT_FALSE(parse({"--mesh-check=1", "true"}).ok()) << "a flag takes no value";
}

TEST(OrcarunOptions, DefaultsRunOnePerSlotWithStdinToRankZero) {
  auto o = parse({"hostname"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->mesh_check);
  EXPECT_FALSE(o->processes.has_value());
  EXPECT_TRUE(o->hosts.empty());
  EXPECT_EQ(o->map_by, MapBy::Slot);
  EXPECT_EQ(o->stdin_target, StdinTarget::Rank);
  EXPECT_EQ(o->stdin_rank, 0u);
}

TEST(OrcarunOptions, ForwardedVariablesInOrderWithValuesUntouched) {
  auto o = parse({"-x", "A=1 2 'three'\n=four", "-x", "HOME", "-x", "OMP_*", "-genv", "B", "x y=z", "-x", "E=",
                  "-genvlist", "C,D", "--genvlist=F", "--genv", "G", "", "-x", "*", "prog", "-x", "Z=1"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  using K = ForwardRequest::Kind;
  struct Want {
    K kind;
    std::string name, value;
  };
  const std::vector<Want> want = {{K::Value, "A", "1 2 'three'\n=four"}, {K::FromEnvironment, "HOME", ""},
                                  {K::Prefix, "OMP_", ""}, {K::Value, "B", "x y=z"}, {K::Value, "E", ""},
                                  {K::FromEnvironment, "C", ""}, {K::FromEnvironment, "D", ""},
                                  {K::FromEnvironment, "F", ""}, {K::Value, "G", ""}, {K::Prefix, "", ""}};
  ASSERT_EQ(o->forwards.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(o->forwards[i].kind, want[i].kind) << i;
    EXPECT_EQ(o->forwards[i].name, want[i].name) << i;
    EXPECT_EQ(o->forwards[i].value, want[i].value) << i;
  }
  // Messages name the option without a value that may be long.
  EXPECT_EQ(o->forwards[0].option, "-x A=...");
  EXPECT_EQ(o->forwards[1].option, "-x HOME");
  EXPECT_EQ(o->forwards[3].option, "-genv B ...");
  EXPECT_EQ(o->forwards[5].option, "-genvlist C,D");
  // The command's own -x is its own.
  EXPECT_EQ(o->command, (std::vector<std::string>{"prog", "-x", "Z=1"}));
}

TEST(OrcarunOptions, HelpAndVersionNeedNoCommand) {
  EXPECT_TRUE(parse({"--help"})->help);
  EXPECT_TRUE(parse({"--version"})->version);
}

TEST(OrcarunOptions, BadInputNamesTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option;
    std::string why;
  };
  const Case cases[] = {
      {{"-n", "0", "x"}, "-n", "0 processes"},
      {{"-n", "four", "x"}, "-n", "not a whole number"},
      {{"-n"}, "-n", "needs a value"},
      {{"--map-by", "board", "x"}, "--map-by", "none of slot, node, hwthread, core, numa, package and ppr:N:RESOURCE"},
      {{"--map-by", "ppr:2:board", "x"}, "--map-by ppr:2:board", "none of node, hwthread, core, numa and package"},
      {{"--map-by", "ppr:2", "x"}, "--map-by ppr:2", "ppr takes a count and a resource"},
      {{"--map-by", "ppr:x:core", "x"}, "--map-by ppr:x:core", "is not a number of ranks from 1 to"},
      {{"--map-by", "ppr:2:core", "-n", "1", "a", ":", "-n", "1", "b"}, "--map-by ppr", "ranks per object and several"},
      {{"--map-by", "ppr:2:core:span", "x"}, "--map-by ppr", "are two mappings"},
      {{"--map-by", "core:pe=0", "x"}, "--map-by core:pe=0", "not a number of CPUs per rank from 1 to 4096"},
      {{"--map-by", "core:pe=4097", "x"}, "--map-by core:pe=4097", "from 1 to 4096"},
      {{"--map-by", "numa:pe=two", "x"}, "--map-by numa:pe=two", "not a number of CPUs"},
      {{"--map-by", "core:spread", "x"}, "--map-by core:spread", "none of the modifiers pe=N, span and oversubscribe"},
      {{"--cpus-per-rank", "2", "--map-by", "core:pe=3", "x"}, "--map-by core:pe=3", "given as 2 already"},
      {{"--cpus-per-rank", "0", "x"}, "--cpus-per-rank", "from 1 to 4096"},
      {{"-N", "2", "--map-by", "core:span", "x"}, "-N", "two mappings"},
      {{"--map-by", "ppr:0:node", "x"}, "--map-by ppr:0:node", "not a number of ranks above 0"},
      {{"-N", "0", "x"}, "-N", "not a number of ranks above 0"},
      {{"-ppn", "two", "x"}, "-ppn", "not a number of ranks above 0"},
      {{"-N", "2", "--map-by", "node", "x"}, "-N", "two mappings"},
      {{"--timeout", "-1", "x"}, "--timeout", "above 0"},
      {{"--timeout", "nan", "x"}, "--timeout", "above 0"},
      {{"--stdin", "some", "x"}, "--stdin", "none, all or a rank"},
      {{"--mca", "oob"}, "--mca", "a variable name and a value"},
      {{"--mca=routed", "direct", "x", "y"}, "--mca=routed", "not --mca=NAME"},
      {{"--oversubscribe=0", "x"}, "--oversubscribe=0", "takes no value"},
      {{"--timing=yes", "x"}, "--timing=yes", "takes no value"},
      {{"--bogus", "x"}, "--bogus", "not an orcarun option"},
      {{"-x"}, "-x", "needs a value"},
      {{"-x", "=v", "x"}, "-x", "name is empty"},
      {{"-x", "", "x"}, "-x", "name is empty"},
      {{"-x", std::string("A\0B", 3), "x"}, "-x", "NUL"},
      {{"-x", std::string("A=\0", 3), "x"}, "-x", "NUL"},
      {{"-x", std::string("A\0*", 3), "x"}, "-x", "NUL"},
      {{"-genv", "A"}, "-genv", "a variable name and a value"},
      {{"-genv", "A=1", "2", "x"}, "-genv", "cannot hold '='"},
      {{"-genv", "", "2", "x"}, "-genv", "name is empty"},
      {{"--genv=A", "1", "x"}, "--genv=A", "two words"},
      {{"-genvlist"}, "-genvlist", "needs a value"},
      {{"-genvlist", "A,,B", "x"}, "-genvlist", "name is empty in \"A,,B\""},
      {{"-genvlist", "A,", "x"}, "-genvlist", "name is empty"},
      {{"-genvlist", "A,B=1", "x"}, "-genvlist", "cannot hold '='"},
      {{"--wdir", "", "x"}, "--wdir", "the path is empty"},
      {{"--app", "", "x"}, "--app", "the path is empty"},
      {{"-wdir"}, "-wdir", "needs a value"},
      {{"--bind-to", "board", "x"}, "--bind-to board", "it takes none, hwthread, core, numa or package (socket)"},
      {{"-bind-to", "core:overload-allowed", "x"}, "-bind-to core:overload-allowed", "without modifiers"},
      {{"-l=1", "x"}, "-l=1", "not an orcarun option"},
      {{"--prepend-rank=yes", "x"}, "--prepend-rank=yes", "takes no value"},
      // Typos name the option that was meant; other launchers' options we
      // lack are said to be theirs, not taken for a typo of ours.
      {{"--oversubcribe", "x"}, "--oversubcribe", "did you mean --oversubscribe?"},
      {{"--tag-ouput", "x"}, "--tag-ouput", "did you mean --tag-output?"},
      {{"-wdr", "/tmp", "x"}, "-wdr", "did you mean --wdir?"},
      {{"--hostfil", "f", "x"}, "--hostfil", "did you mean --hostfile?"},
      {{"--report-bindings=1", "x"}, "--report-bindings=1", "takes no value"},
      {{"--cpu-set", "0", "x"}, "--cpu-set", "option of mpirun and mpiexec"},
      {{"--rank-by", "core", "x"}, "--rank-by core", "within a host, ranks already go over its core objects"},
      {{"-rank-by", "fill", "x"}, "-rank-by fill", "it takes slot (each host's ranks consecutive) or node"},
      // MPMD: each program needs its -n and a command, and takes only its own options.
      {{"-n", "1", "a", ":", "./b"}, ":", "needs its own -n; program 2 (./b) has none"},
      {{"-n", "1", "a", ":", "-n", "1"}, ":", "has no command"},
      {{"-n", "1", "a", ":", "-n", "1", "--host", "h", "./b"}, "--host", "takes only -n, -x, -env and --wdir"},
      {{":", "-n", "1", "./b"}, ":", "the first program has no command"},
      {{"-N", "2", "-n", "1", "a", ":", "-n", "1", "b"}, "-N", "give each program its -n"},
      {{"-n", "1", "a", ":", "-n", "1", "-env", "A"}, "-env", "a variable name and a value"},
      {{"--app", "f", "./x"}, "--app f", "give no command after it"},
  };
  for (const auto& c : cases) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_EQ(o.error().topic(), "bad-option");
    EXPECT_EQ(o.error().arg("option"), c.option);
    EXPECT_NE(o.error().arg("why").find(c.why), std::string::npos) << o.error().arg("why");
  }
  // Nothing far from every option is "meant" as one.
  for (const char* word : {"--bogus", "-q", "--frobnicate-everything"}) {
    auto o = parse({word, "x"});
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().arg("why").find("did you mean"), std::string::npos) << word << ": " << o.error().arg("why");
  }
  auto none = parse({"--tag-output"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().topic(), "no-command");
}

TEST(OrcarunOptions, RanksPerNodeInEverySpelling) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-N", "3", "x"}, {"--npernode", "3", "x"}, {"-npernode", "3", "x"}, {"-ppn", "3", "x"},
           {"--map-by", "ppr:3:node", "x"}, {"--map-by=ppr:3:node", "x"}}) {
    auto o = parse(args);
    ASSERT_TRUE(o.ok()) << args[0] << ": " << o.error().summary();
    EXPECT_EQ(o->per_node, 3u) << args[0];
  }
  auto shown = parse({"--display-map", "x"});
  ASSERT_TRUE(shown.ok());
  EXPECT_TRUE(shown->display_map);
  EXPECT_FALSE(parse({"x"})->per_node.has_value());
}

TEST(OrcarunOptions, RanksPerObjectMapByThatResource) {
  auto o = parse({"--map-by", "ppr:2:SOCKET:pe=2", "x"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_EQ(o->cpu.per_object, 2u);
  EXPECT_EQ(o->cpu.map_by, launch::Resource::Package);
  EXPECT_EQ(o->cpu.pe, 2u);
  EXPECT_FALSE(o->per_node.has_value());
  EXPECT_TRUE(places_cpus(o.value()));
  EXPECT_EQ(map_policy(o.value()), "--map-by ppr:2:package");
  // A later --map-by replaces it.
  auto later = parse({"--map-by", "ppr:2:core", "--map-by", "numa", "x"});
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->cpu.per_object, 0u);
  EXPECT_EQ(map_policy(later.value()), "--map-by slot, then by numa");
  EXPECT_EQ(map_policy(parse({"-N", "2", "--rank-by", "node", "x"}).value()), "-N 2, --rank-by node");
}

TEST(OrcarunOptions, RankByIsTheMapsOrderUnlessGiven) {
  EXPECT_FALSE(parse({"x"})->rank_by.has_value());
  EXPECT_EQ(parse({"--rank-by", "node", "x"})->rank_by, launch::RankBy::Node);
  EXPECT_EQ(parse({"--rank-by=SLOT", "x"})->rank_by, launch::RankBy::Slot);
}

TEST(OrcarunOptions, OtherLaunchersSpellingsMeanOurOptions) {
  auto o = parse({"-hosts", "a,b:2", "-f", "hf", "--machinefile", "mf", "-np", "3", "-l", "-wdir", "run", "--bind-to",
                  "none", "prog"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_EQ(o->hosts, (std::vector<std::string>{"a,b:2"}));
  EXPECT_EQ(o->hostfiles, (std::vector<std::string>{"hf", "mf"}));
  EXPECT_EQ(o->processes, 3u);
  EXPECT_TRUE(o->tag_output);
  EXPECT_EQ(o->working_directory, "run");
  EXPECT_EQ(o->command, (std::vector<std::string>{"prog"}));
  auto prepend = parse({"-prepend-rank", "prog"});
  ASSERT_TRUE(prepend.ok());
  EXPECT_TRUE(prepend->tag_output);
  auto inline_wdir = parse({"--wdir=/data/run", "prog"});
  ASSERT_TRUE(inline_wdir.ok());
  EXPECT_EQ(inline_wdir->working_directory, "/data/run");
}

TEST(OrcarunOptions, MappingByResourceWithItsModifiers) {
  auto o = parse({"--map-by", "numa:pe=4:oversubscribe", "x"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_EQ(o->cpu.map_by, launch::Resource::Numa);
  EXPECT_EQ(o->cpu.pe, 4u);
  EXPECT_TRUE(o->oversubscribe);
  EXPECT_EQ(o->map_by, MapBy::Slot);
  EXPECT_FALSE(o->cpu.bind.has_value());
  auto span = parse({"-map-by", "socket:span", "--bind-to", "core", "--report-bindings", "x"});
  ASSERT_TRUE(span.ok()) << span.error().summary();
  EXPECT_EQ(span->cpu.map_by, launch::Resource::Package);
  EXPECT_EQ(span->map_by, MapBy::Node);  // span: ranks go round-robin over the hosts
  EXPECT_EQ(span->cpu.bind, launch::BindTo::Core);
  EXPECT_TRUE(span->report_bindings);
  for (const char* r : {"hwthread", "core", "numa", "package"}) {
    auto m = parse({"--map-by", r, "x"});
    ASSERT_TRUE(m.ok()) << r;
    EXPECT_STREQ(launch::resource_name(*m->cpu.map_by), r);
  }
  auto pe = parse({"--cpus-per-proc", "3", "--map-by", "core:pe=3", "x"});
  ASSERT_TRUE(pe.ok()) << pe.error().summary();
  EXPECT_EQ(pe->cpu.pe, 3u);
  auto slot = parse({"--map-by", "slot:pe=2", "x"});
  ASSERT_TRUE(slot.ok());
  EXPECT_FALSE(slot->cpu.map_by.has_value());
  EXPECT_EQ(slot->cpu.pe, 2u);
  EXPECT_TRUE(places_cpus(slot.value()));
  EXPECT_FALSE(places_cpus(parse({"--bind-to", "none", "x"}).value()));
  EXPECT_TRUE(places_cpus(parse({"--report-bindings", "x"}).value()));
}

TEST(OrcarunOptions, SeveralProgramsAreNumberedInOrderEachWithItsOwnOptions) {
  auto o = parse({"-x", "ALL=1", "--wdir", "/job", "-n", "2", "./a", "x", ":", "-np", "3", "-x", "B=2", "-env", "C", "3",
                  "--wdir=/b", "./b", ":", "-n", "1", "--", "-weird", "y"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  ASSERT_EQ(o->apps.size(), 3u);
  EXPECT_EQ(o->processes, 6u);  // the job's: every program's
  EXPECT_EQ(o->command, (std::vector<std::string>{"./a", "x"}));
  EXPECT_EQ(o->apps[0].processes, 2u);
  EXPECT_TRUE(o->apps[0].forwards.empty());  // the first segment's -x is the job's
  EXPECT_EQ(o->forwards.size(), 1u);
  EXPECT_EQ(o->working_directory, "/job");
  EXPECT_EQ(o->apps[1].processes, 3u);
  ASSERT_EQ(o->apps[1].forwards.size(), 2u);
  EXPECT_EQ(o->apps[1].forwards[1].name, "C");
  EXPECT_EQ(o->apps[1].forwards[1].value, "3");
  EXPECT_EQ(o->apps[1].working_directory, "/b");
  EXPECT_EQ(o->apps[1].command, (std::vector<std::string>{"./b"}));
  EXPECT_EQ(o->apps[2].command, (std::vector<std::string>{"-weird", "y"}));
  EXPECT_EQ(app_first_ranks(o->apps), (std::vector<std::uint32_t>{0, 2, 5, 6}));
  auto single = parse({"./a"});
  ASSERT_TRUE(single.ok());
  ASSERT_EQ(single->apps.size(), 1u);
  EXPECT_FALSE(single->processes.has_value());
  auto app = parse({"--app", "jobs.txt"});
  ASSERT_TRUE(app.ok()) << app.error().summary();
  EXPECT_EQ(app->app_file, "jobs.txt");
  EXPECT_TRUE(app->apps.empty());
}

TEST(OrcarunOptions, AppFilesGiveOneProgramALineOrSeveralBetweenColons) {
  auto apps = parse_app_file("# master and workers\n-n 1 ./master --role 'the boss'\n\n  -np 4 -x W=1 ./worker \"a b\" # four\n"
                             "-n 1 ./c : -n 2 ./d\n",
                             "jobs.txt");
  ASSERT_TRUE(apps.ok()) << apps.error().summary();
  ASSERT_EQ(apps->size(), 4u);
  EXPECT_EQ(apps.value()[0].command, (std::vector<std::string>{"./master", "--role", "the boss"}));
  EXPECT_EQ(apps.value()[1].processes, 4u);
  EXPECT_EQ(apps.value()[1].command, (std::vector<std::string>{"./worker", "a b"}));
  EXPECT_EQ(apps.value()[1].forwards[0].name, "W");
  EXPECT_EQ(apps.value()[3].command, (std::vector<std::string>{"./d"}));
  struct Bad {
    const char* text;
    const char* why;
  };
  for (const Bad& b : {Bad{"", "names no program"}, Bad{"# only\n", "names no program"},
                       Bad{"-n 1 ./a\n-n 1 'open\n", "a ' is not closed"}, Bad{"-n 1 ./a\n--map-by core ./b\n", "--map-by"},
                       Bad{"-n 1\n", "has no command"}}) {
    auto r = parse_app_file(b.text, "f");
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.error().topic(), "app-file-syntax");
    EXPECT_NE(r.error().arg("why").find(b.why), std::string::npos) << r.error().arg("why");
  }
  auto second_line = parse_app_file("-n 1 ./a\n-n 1 'open\n", "f");
  EXPECT_EQ(second_line.error().arg("line"), "2");
}

TEST(OrcarunOptions, HydrasEnvBeforeTheFirstProgramIsThatProgramsOwn) {
  auto o = parse({"-env", "A", "1", "-genv", "G", "2", "-n", "1", "./a", ":", "-n", "1", "./b"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  ASSERT_EQ(o->apps[0].forwards.size(), 1u);
  EXPECT_EQ(o->apps[0].forwards[0].name, "A");
  EXPECT_TRUE(o->apps[1].forwards.empty());
  ASSERT_EQ(o->forwards.size(), 1u);  // -genv: the job's
  EXPECT_EQ(o->forwards[0].name, "G");
  auto root = parse({"--allow-run-as-root", "--map-by", "socket:PE=2", "x"});
  ASSERT_TRUE(root.ok()) << root.error().summary();
  EXPECT_EQ(root->cpu.pe, 2u);  // Open MPI's documents write PE=2
}

TEST(OrcarunOptions, OpenMpi5sOutputListSetsTheOutputOptions) {
  auto o = parse({"--output", "tag-detailed,timestamp,merge-stderr-to-stdout,dir=/out", "x"});
  ASSERT_TRUE(o.ok()) << o.error().summary();
  EXPECT_TRUE(o->tag_output);
  EXPECT_TRUE(o->tag_host);
  EXPECT_TRUE(o->timestamp_output);
  EXPECT_TRUE(o->merge_stderr);
  EXPECT_EQ(o->output_filename, "/out");
  auto tag = parse({"--output=tag", "x"});
  ASSERT_TRUE(tag.ok());
  EXPECT_TRUE(tag->tag_output);
  EXPECT_FALSE(tag->tag_host);
  for (const char* bad : {"xml", "tag,", "dir=", "file=/x"}) {
    auto r = parse({"--output", bad, "x"});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().topic(), "bad-option") << bad;
  }
}

// The table suggestions come from and the parser agree: every spelling is
// an option (none falls through to "not an orcarun option").
// A job on a running DVM: the options that shape a job pass; those only a
// starting daemon uses are refused, each by the name the user wrote.
TEST(OrcarunOptions, ADvmJobTakesTheJobsOptionsAndRefusesTheDaemonsByName) {
  auto ok = parse({"--dvm", "-n", "4", "--map-by", "node", "--oversubscribe", "-x", "A=1", "--tag-output",
                   "--timeout", "5", "--stdin", "none", "--wdir", "/tmp", "--dvm-no-wait", "--dvm-uri", "/x/dvm.1",
                   "./a", ":", "-n", "2", "./b"});
  ASSERT_TRUE(ok.ok()) << ok.error().summary();
  EXPECT_TRUE(ok->dvm);
  EXPECT_TRUE(ok->dvm_no_wait);
  EXPECT_EQ(ok->dvm_uri, "/x/dvm.1");
  EXPECT_TRUE(check_dvm_job_options(ok.value()).ok()) << check_dvm_job_options(ok.value()).error().summary();
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--dvm", "--host", "h1", "true"}, "--host"},
      {{"--dvm", "-H", "h1", "true"}, "-H"},
      {{"--dvm", "--mca", "oob_tcp_if_include", "eth0", "true"}, "--mca"},
      {{"--dvm", "--report-routes", "true"}, "--report-routes"},
      {{"--dvm", "--bind-to", "core", "true"}, "--bind-to"},
      {{"--dvm", "--display-map", "true"}, "--display-map"},
      {{"--dvm", "--map-by", "core", "true"}, "--map-by"},
      {{"--dvm", "--output", "tag-detailed", "true"}, "--output tag-detailed"},
      {{"--dvm", "--output-filename", "/tmp/o", "true"}, "--output-filename"},
  };
  for (const auto& [args, option] : refused) {
    auto o = parse(args);
    ASSERT_TRUE(o.ok()) << option << ": " << o.error().summary();
    Status st = check_dvm_job_options(o.value());
    ASSERT_FALSE(st.ok()) << option;
    EXPECT_EQ(st.error().topic(), "bad-option") << option;
    EXPECT_EQ(st.error().arg("option"), option);
  }
  // Every option a DVM job takes is an option orcarun has.
  const auto& all = option_spellings();
  for (const auto& name : kDvmJobOptions) {
    EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
  }
}

TEST(OrcarunOptions, EverySpellingIsAnOption) {
  ASSERT_GT(option_spellings().size(), 30u);
  for (const auto& name : option_spellings()) {
    auto o = parse({name, "none", "none", "prog"});
    if (!o.ok()) {
      EXPECT_EQ(o.error().arg("why").find("not an orcarun option"), std::string::npos) << name;
    }
  }
  EXPECT_EQ(closest_option("--np"), "--np");
  EXPECT_EQ(closest_option("--hst"), "--host");
  EXPECT_EQ(closest_option("--xyz"), "");
}

}  // namespace
}  // namespace orca::orcarun
