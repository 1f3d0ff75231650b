// plm/slurm's pure part (components/plm/slurm/srun_step.cc): what srun
// --help says it can do, the allocation's nodes, srun's words for the
// daemons' step, a daemon's vpid from the step's variables, the task ends
// srun reports, and plm_slurm_args' words. The environment is a fake
// lookup; the help text is Slurm 22.05.8's own.
#include "plm/slurm/srun_step.h"

#include "lib/fake_environment.h"
#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace orca::plm::slurm {
namespace {

using test::FailedWith;
using test::Succeeded;
using Words = std::vector<std::string>;

using Env = test::FakeEnvironment;

/* The "why" of a plm/slurm-step error; "" (and a test failure) otherwise. */
template <typename R>
std::string why(const R& result) {
  EXPECT_TRUE(FailedWith(result, "plm", "slurm-step"));
  return result.ok() ? std::string() : result.error().arg("why");
}

/* `srun --help` of slurm-wlm 22.05.8 (Debian 12), as printed. */
constexpr const char* kSrunHelp2205 = R"(Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] executable(N) [args(N)...]

Parallel run options:
  -A, --account=name          charge job to specified account
      --acctg-freq=<datatype>=<interval> accounting and profiling sampling
                              intervals. Supported datatypes:
                              task=<interval> energy=<interval>
                              network=<interval> filesystem=<interval>
      --bb=<spec>             burst buffer specifications
      --bbf=<file_name>       burst buffer specification file
      --bcast=<dest_path>     Copy executable file to compute nodes
      --bcast-exclude=<paths> Shared object directory paths to exclude
  -b, --begin=time            defer job until HH:MM MM/DD/YY
  -c, --cpus-per-task=ncpus   number of cpus required per task
      --comment=name          arbitrary comment
      --compress[=library]    data compression library used with --bcast
      --container             Path to OCI container bundle
      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)
  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied
      --deadline=time         remove the job if no ending possible before
                              this deadline (start > (deadline - time[-min]))
      --delay-boot=mins       delay boot for desired node features
  -D, --chdir=path            change remote current working directory
      --export=env_vars|NONE  environment variables passed to launcher with
                              optional values or NONE (pass no variables)
  -e, --error=err             location of stderr redirection
      --epilog=program        run "program" after launching job step
  -E, --preserve-env          env vars for node and task counts override
                              command-line flags
      --gres=list             required generic resources
      --gres-flags=opts       flags related to GRES management
  -H, --hold                  submit job in held state
  -i, --input=in              location of stdin redirection
  -I, --immediate[=secs]      exit if resources not available in "secs"
      --jobid=id              run under already allocated job
  -J, --job-name=jobname      name of job
  -k, --no-kill               do not kill job on node failure
  -K, --kill-on-bad-exit      kill the job if any task terminates with a
                              non-zero exit code
  -l, --label                 prepend task number to lines of stdout/err
  -L, --licenses=names        required license, comma separated
  -M, --clusters=names        Comma separated list of clusters to issue
                              commands to.  Default is current cluster.
                              Name of 'all' will submit to run on all clusters.
                              NOTE: SlurmDBD must up.
  -m, --distribution=type     distribution method for processes to nodes
                              (type = block|cyclic|arbitrary)
      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL
      --mail-user=user        who to send email notification for job state
                              changes
      --mcs-label=mcs         mcs label if mcs plugin mcs/group is used
      --mpi=type              type of MPI being used
      --multi-prog            if set the program name specified is the
                              configuration specification for multiple programs
  -n, --ntasks=ntasks         number of tasks to run
      --nice[=value]          decrease scheduling priority by value
      --ntasks-per-node=n     number of tasks to invoke on each node
  -N, --nodes=N               number of nodes on which to run (N = min[-max])
  -o, --output=out            location of stdout redirection
  -O, --overcommit            overcommit resources
      --overlap               Allow other steps to overlap this step
      --het-group=value       hetjob component allocation(s) in which to launch
                              application
  -p, --partition=partition   partition requested
      --power=flags           power management options
      --priority=value        set the priority of the job to value
      --prolog=program        run "program" before launching job step
      --profile=value         enable acct_gather_profile for detailed data
                              value is all or none or any combination of
                              energy, lustre, network or task
      --propagate[=rlimits]   propagate all [or specific list of] rlimits
      --pty                   run task zero in pseudo terminal
      --quit-on-interrupt     quit on single Ctrl-C
  -q, --qos=qos               quality of service
  -Q, --quiet                 quiet mode (suppress informational messages)
      --reboot                reboot block before starting job
  -r, --relative=n            run job step relative to node n of allocation
  -s, --oversubscribe         over-subscribe resources with other jobs
  -S, --core-spec=cores       count of reserved cores
      --send-libs[=yes|no]    autodetect and broadcast shared objects
      --signal=[R:]num[@time] send signal when time limit within time seconds
      --slurmd-debug=level    slurmd debug level
      --spread-job            spread job across as many nodes as possible
      --switches=max-switches{@max-time-to-wait}
                              Optimum switches and max time to wait for optimum
      --task-epilog=program   run "program" after launching task
      --task-prolog=program   run "program" before launching task
      --thread-spec=threads   count of reserved threads
  -T, --threads=threads       set srun launch fanout
  -t, --time=minutes          time limit
      --time-min=minutes      minimum time limit (if distinct)
  -u, --unbuffered            do not line-buffer stdout/err
      --use-min-nodes         if a range of node counts is given, prefer the
                              smaller count
  -v, --verbose               verbose mode (multiple -v's increase verbosity)
  -W, --wait=sec              seconds to wait after first task exits
                              before killing job
      --wckey=wckey           wckey to run job under
  -X, --disable-status        Disable Ctrl-C status feature

Constraint options:
      --cluster-constraint=list specify a list of cluster-constraints
      --contiguous            demand a contiguous range of nodes
  -C, --constraint=list       specify a list of constraints
      --mem=MB                minimum amount of real memory
      --mincpus=n             minimum number of logical processors (threads)
                              per node
      --reservation=name      allocate resources from named reservation
      --tmp=MB                minimum amount of temporary disk
  -w, --nodelist=hosts...     request a specific list of hosts
  -x, --exclude=hosts...      exclude a specific list of hosts
  -Z, --no-allocate           don't allocate nodes (must supply -w)

Consumable resources related options:
      --exact                 use only the resources requested for the step
                              (by default, all non-gres resources on each node
                              in the allocation will be used in the step)
      --exclusive[=user]      for job allocation, this allocates nodes in
                              in exclusive mode
                              for job steps, this is equivalent to --exact
      --exclusive[=mcs]       allocate nodes in exclusive mode when
                              cpu consumable resource is enabled
                              and mcs plugin is enabled (--exact implied)
                              or don't share CPUs for job steps
      --mem-per-cpu=MB        maximum amount of real memory per allocated
                              cpu required by the job.
                              --mem >= --mem-per-cpu if --mem is specified.
      --resv-ports            reserve communication ports

Affinity/Multi-core options: (when the task/affinity plugin is enabled)
                              For the following 4 options, you are
                              specifying the minimum resources available for
                              the node(s) allocated to the job.
      --sockets-per-node=S    number of sockets per node to allocate
      --cores-per-socket=C    number of cores per socket to allocate
      --threads-per-core=T    number of threads per core to allocate
  -B  --extra-node-info=S[:C[:T]]  combine request of sockets per node,
                              cores per socket and threads per core.
                              Specify an asterisk (*) as a placeholder,
                              a minimum value, or a min-max range.

      --ntasks-per-core=n     number of tasks to invoke on each core
      --ntasks-per-socket=n   number of tasks to invoke on each socket

GPU scheduling options:
      --cpus-per-gpu=n        number of CPUs required per allocated GPU
  -G, --gpus=n                count of GPUs required for the job
      --gpu-bind=...          task to gpu binding options
      --gpu-freq=...          frequency and voltage of GPUs
      --gpus-per-node=n       number of GPUs required per allocated node
      --gpus-per-socket=n     number of GPUs required per allocated socket
      --gpus-per-task=n       number of GPUs required per spawned task
      --mem-per-gpu=n         real memory required per allocated GPU

Help options:
  -h, --help                  show this help message
      --usage                 display brief usage message

Other options:
  -V, --version               output version information and exit

)";

TEST(SrunFeatures, Slurm2205HasOverlapButNotExternalLauncher) {
  const SrunFeatures f = srun_features(kSrunHelp2205);
  EXPECT_TRUE(f.overlap);
  EXPECT_FALSE(f.external_launcher);
  // The line alone, as srun prints it.
  EXPECT_TRUE(srun_features("      --overlap               Allow other steps to overlap this step\n").overlap);
}

TEST(SrunFeatures, ExternalLauncherIsFound) {
  // Slurm 23.11's line.
  const SrunFeatures f =
      srun_features("      --external-launcher     This is an external launcher command (e.g. mpirun)\n"
                    "      --overlap               Allow other steps to overlap this step\n");
  EXPECT_TRUE(f.external_launcher);
  EXPECT_TRUE(f.overlap);
  EXPECT_TRUE(srun_features("--external-launcher").external_launcher) << "the whole text";
  EXPECT_FALSE(srun_features("--external-launcher").overlap);
}

TEST(SrunFeatures, OnlyTheWholeOptionCounts) {
  for (const char* text : {"      --overlapping           not the option\n", "      --no-overlap-foo        neither\n",
                           "      --overlap-foo\n", "      --overlap_x\n", "      --overlap2\n", "x--overlap\n",
                           "      --external-launchers\n", "", "overlap external-launcher"}) {
    const SrunFeatures f = srun_features(text);
    EXPECT_FALSE(f.overlap) << "'" << text << "'";
    EXPECT_FALSE(f.external_launcher) << "'" << text << "'";
  }
  // A longer option first, the option itself later: found.
  EXPECT_TRUE(srun_features("  --overlapping x\n  --overlap y\n").overlap);
  // After a comma or at the end of the text.
  EXPECT_TRUE(srun_features("  -o,--overlap").overlap);
  EXPECT_TRUE(srun_features("  --overlap=yes").overlap) << "an option taking a value";
}

TEST(SrunCommand, ThreeHostsWithoutFeatures) {
  auto words = srun_command({"/usr/bin/srun"}, SrunFeatures{}, {"h4", "h2", "h3"}, {"--partition=debug", "-v"},
                            {"/opt/orca/bin/orcad", "--daemon"});
  ASSERT_TRUE(Succeeded(words));
  const Words want{"/usr/bin/srun",       "--nodes=3",   "--ntasks=3",        "--ntasks-per-node=1",
                   "--nodelist=h4,h2,h3", "--kill-on-bad-exit", "--cpu-bind=none",  "--mpi=none",
                   "--input=all",         "--export=ALL",       "--partition=debug",  "-v", "/opt/orca/bin/orcad",
                   "--daemon"};
  EXPECT_EQ(words.value(), want);
}

TEST(SrunCommand, ThreeHostsWithBothFeatures) {
  auto words = srun_command({"srun", "--quiet"}, SrunFeatures{.overlap = true, .external_launcher = true},
                            {"n1", "n2", "n3"}, {"--partition=debug"}, {"/opt/orca/bin/orcad"});
  ASSERT_TRUE(Succeeded(words));
  const Words want{"srun",
                   "--quiet",
                   "--nodes=3",
                   "--ntasks=3",
                   "--ntasks-per-node=1",
                   "--nodelist=n1,n2,n3",
                   "--kill-on-bad-exit",
                   "--cpu-bind=none",
                   "--mpi=none",
                   "--input=all",
                   "--export=ALL",
                   "--overlap",
                   "--external-launcher",
                   "--partition=debug",
                   "/opt/orca/bin/orcad"};
  EXPECT_EQ(words.value(), want);
}

TEST(SrunCommand, OneFeatureAndNoExtraWords) {
  auto words = srun_command({"srun"}, SrunFeatures{.overlap = true}, {"solo"}, {}, {"orcad"});
  ASSERT_TRUE(Succeeded(words));
  const Words want{"srun",          "--nodes=1",         "--ntasks=1",      "--ntasks-per-node=1",
                   "--nodelist=solo", "--kill-on-bad-exit", "--cpu-bind=none", "--mpi=none",
                   "--input=all",   "--export=ALL",      "--overlap",       "orcad"};
  EXPECT_EQ(words.value(), want);
}

TEST(SrunCommand, WhatSrunWouldMisreadIsRefused) {
  const Words srun{"srun"};
  const Words daemon{"orcad"};
  EXPECT_NE(why(srun_command(srun, {}, {}, {}, daemon)).find("no host"), std::string::npos);
  for (const char* host : {"-h2", "--nodes=1", "h2,h3", "h 2", "h\t2", "h2\n", ""}) {
    auto words = srun_command(srun, {}, {"h1", host, "h3"}, {}, daemon);
    const std::string text = why(words);
    EXPECT_NE(text.find("cannot go in srun's --nodelist"), std::string::npos) << "'" << host << "': " << text;
  }
  // A '-' inside a name is fine.
  EXPECT_TRUE(Succeeded(srun_command(srun, {}, {"node-07"}, {}, daemon)));
  EXPECT_NE(why(srun_command({}, {}, {"h1"}, {}, daemon)).find("plm_slurm_srun is empty"), std::string::npos);
}

TEST(AllocationNodes, TheJobNodelistExpandsInOrder) {
  Env env{{{"SLURM_JOB_NODELIST", "h[2-4],x1"}}};
  auto nodes = allocation_nodes(env.lookup());
  ASSERT_TRUE(Succeeded(nodes));
  EXPECT_EQ(nodes.value(), (Words{"h2", "h3", "h4", "x1"}));
  // With both set, SLURM_JOB_NODELIST is the one read.
  env.vars["SLURM_NODELIST"] = "other";
  EXPECT_EQ(allocation_nodes(env.lookup()).value(), (Words{"h2", "h3", "h4", "x1"}));
}

TEST(AllocationNodes, TheOlderNodelistVariableIsRead) {
  Env env{{{"SLURM_NODELIST", "x1,rack[01-02]"}}};
  auto nodes = allocation_nodes(env.lookup());
  ASSERT_TRUE(Succeeded(nodes));
  EXPECT_EQ(nodes.value(), (Words{"x1", "rack01", "rack02"}));
}

TEST(AllocationNodes, OutsideAnAllocationThereAreNone) {
  Env env{{{"SLURM_JOB_ID", "17"}, {"SLURM_STEP_NODELIST", "h1"}}};
  const std::string text = why(allocation_nodes(env.lookup()));
  EXPECT_NE(text.find("SLURM_JOB_NODELIST is not set"), std::string::npos) << text;
}

TEST(AllocationNodes, AMalformedListIsQuoted) {
  Env env{{{"SLURM_JOB_NODELIST", "h[2-"}}};
  std::string text = why(allocation_nodes(env.lookup()));
  EXPECT_NE(text.find("SLURM_JOB_NODELIST=\"h[2-\" is not a host list"), std::string::npos) << text;
  env = Env{{{"SLURM_NODELIST", "n[5-3]"}}};
  text = why(allocation_nodes(env.lookup()));
  EXPECT_NE(text.find("SLURM_NODELIST=\"n[5-3]\""), std::string::npos) << text;
}

// Every refusal of expand_hostlist gives a reason, whatever its topic.
TEST(AllocationNodes, EveryKindOfBadListHasAReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "(it is empty)"},
      {"n[0-9999999]", "hosts, above the bound of"},
      {"n[1-", "(at \""},
  };
  for (const auto& [value, reason] : cases) {
    Env env{{{"SLURM_JOB_NODELIST", value}}};
    std::string text = why(allocation_nodes(env.lookup()));
    EXPECT_NE(text.find(reason), std::string::npos) << value << ": " << text;
    env = Env{{{"SLURM_NODEID", "0"}, {"SLURM_STEP_NODELIST", value}}};
    text = why(step_vpid(env.lookup(), {"n1"}));
    EXPECT_NE(text.find(reason), std::string::npos) << value << ": " << text;
  }
}

TEST(TasksPerNode, RunsOfEqualCountsAreFolded) {
  EXPECT_EQ(tasks_per_node_text({2, 2, 2, 1}), "2(x3),1");
  EXPECT_EQ(tasks_per_node_text({1}), "1");
  EXPECT_EQ(tasks_per_node_text({3, 1, 3}), "3,1,3");
  EXPECT_EQ(tasks_per_node_text({0, 0}), "0(x2)");
  EXPECT_EQ(tasks_per_node_text({}), "");
}

// Job hosts {h4, h2, h3}, the step's order h2, h3, h4: rank 3 is the
// second of the two on h2.
TEST(RankVariables, TheyDescribeTheRankInTheStepsOrder) {
  Env env{{{"SLURM_STEP_NODELIST", "h[2-4]"}}};
  const RankPlace place{.rank = 3, .local_rank = 1, .size = 6, .node_ranks = {2, 3}, .ranks_per_daemon = {2, 2, 2}};
  EXPECT_EQ(rank_variables(env.lookup(), {"h4", "h2", "h3"}, place),
            (Words{"SLURM_PROCID=3", "SLURM_LOCALID=1", "SLURM_NTASKS=6", "SLURM_NPROCS=6", "SLURM_STEP_NUM_TASKS=6",
                   "SLURM_TASK_PID", "SLURM_GTIDS=2,3", "SLURM_STEP_TASKS_PER_NODE=2(x3)", "SLURM_TASKS_PER_NODE=2(x3)"}));
  const RankPlace uneven{.rank = 0, .local_rank = 0, .size = 4, .node_ranks = {0, 1, 2}, .ranks_per_daemon = {3, 1, 0}};
  const Words words = rank_variables(env.lookup(), {"h4", "h2", "h3"}, uneven);
  // h2 (daemon 2) has 1, h3 (daemon 3) 0, h4 (daemon 1) 3.
  EXPECT_NE(std::find(words.begin(), words.end(), "SLURM_STEP_TASKS_PER_NODE=1,0,3"), words.end());
}

// Without a step node list that names the job's hosts, the per-node
// counts are left out rather than guessed.
TEST(RankVariables, NoPerNodeCountsWithoutTheStepsNodes) {
  const RankPlace place{.rank = 0, .local_rank = 0, .size = 2, .node_ranks = {0}, .ranks_per_daemon = {1, 1}};
  for (const Env& env : {Env{}, Env{{{"SLURM_STEP_NODELIST", "h[2-"}}}, Env{{{"SLURM_STEP_NODELIST", "h[2-4]"}}},
                         Env{{{"SLURM_STEP_NODELIST", "h[7-8]"}}}}) {
    const Words words = rank_variables(env.lookup(), {"h2", "h3"}, place);
    EXPECT_EQ(words.size(), 7u) << words.back();
    EXPECT_EQ(words.front(), "SLURM_PROCID=0");
  }
}

TEST(StepVpid, TheStepsNodeOrderIsNotTheJobsHostOrder) {
  // srun numbers the step's nodes in its own (sorted) order: node 0 of
  // h[2-4] is h2, the job's second host.
  Env env{{{"SLURM_NODEID", "0"}, {"SLURM_STEP_NODELIST", "h[2-4]"}}};
  auto vpid = step_vpid(env.lookup(), {"h4", "h2", "h3"});
  ASSERT_TRUE(Succeeded(vpid));
  EXPECT_EQ(vpid.value(), 2u);
}

TEST(StepVpid, EveryNodeOfAFourNodeStep) {
  const Words hosts{"n3", "n1", "n4", "n2"};
  const std::map<std::string, std::uint32_t> want{{"0", 2}, {"1", 4}, {"2", 1}, {"3", 3}};
  for (const auto& [node_id, vpid] : want) {
    Env env{{{"SLURM_NODEID", node_id}, {"SLURM_STEP_NODELIST", "n[1-4]"}}};
    auto got = step_vpid(env.lookup(), hosts);
    ASSERT_TRUE(Succeeded(got)) << node_id;
    EXPECT_EQ(got.value(), vpid) << "SLURM_NODEID=" << node_id;
  }
}

TEST(StepVpid, AMissingVariableIsNamed) {
  Env env{{{"SLURM_STEP_NODELIST", "h[1-2]"}}};
  EXPECT_NE(why(step_vpid(env.lookup(), {"h1", "h2"})).find("SLURM_NODEID is not set"), std::string::npos);
  env = Env{{{"SLURM_NODEID", "0"}}};
  EXPECT_NE(why(step_vpid(env.lookup(), {"h1", "h2"})).find("SLURM_STEP_NODELIST is not set"), std::string::npos);
  // The job's SLURM_JOB_NODELIST is not the step's.
  env.vars["SLURM_JOB_NODELIST"] = "h[1-2]";
  EXPECT_FALSE(step_vpid(env.lookup(), {"h1", "h2"}).ok());
}

TEST(StepVpid, ANodeIdThatIsNotANumberIsQuoted) {
  for (const char* id : {"1x", "", "-1", "+1", " 1", "0x1", "99999999999"}) {
    Env env{{{"SLURM_NODEID", id}, {"SLURM_STEP_NODELIST", "h[1-2]"}}};
    const std::string text = why(step_vpid(env.lookup(), {"h1", "h2"}));
    EXPECT_NE(text.find("SLURM_NODEID=\"" + std::string(id) + "\" is not a node number"), std::string::npos)
        << "'" << id << "': " << text;
  }
}

TEST(StepVpid, ANodeIdBeyondTheStepIsRefused) {
  Env env{{{"SLURM_NODEID", "3"}, {"SLURM_STEP_NODELIST", "h[2-4]"}}};
  const std::string text = why(step_vpid(env.lookup(), {"h2", "h3", "h4"}));
  EXPECT_NE(text.find("SLURM_NODEID=3 is beyond the 3 nodes of SLURM_STEP_NODELIST=h[2-4]"), std::string::npos)
      << text;
}

TEST(StepVpid, AMalformedStepNodelistIsQuoted) {
  Env env{{{"SLURM_NODEID", "0"}, {"SLURM_STEP_NODELIST", "h[2-"}}};
  const std::string text = why(step_vpid(env.lookup(), {"h2"}));
  EXPECT_NE(text.find("SLURM_STEP_NODELIST=\"h[2-\" is not a host list"), std::string::npos) << text;
}

TEST(StepVpid, ANodeThatIsNotAHostOfTheJobIsRefused) {
  Env env{{{"SLURM_NODEID", "3"}, {"SLURM_STEP_NODELIST", "h[2-5]"}}};
  const std::string text = why(step_vpid(env.lookup(), {"h4", "h2", "h3"}));
  EXPECT_NE(text.find("this task's node, h5 (node 3 of h[2-5]), is not a host of the job"), std::string::npos)
      << text;
  EXPECT_FALSE(step_vpid(env.lookup(), {}).ok()) << "a job of no host";
}

TEST(EndedNode, SrunsTaskEndLinesNameTheNode) {
  EXPECT_EQ(ended_node("srun: error: h3: task 1: Killed"), "h3");
  EXPECT_EQ(ended_node("srun: error: node-07: task 12: Exited with exit code 1"), "node-07");
  EXPECT_EQ(ended_node("srun: error: h2: task 0: Terminated"), "h2");
  EXPECT_EQ(ended_node("srun: error: rack1.cluster: task 3: Segmentation fault (core dumped)"), "rack1.cluster");
}

TEST(EndedNode, OtherLinesNameNone) {
  for (const char* line : {"srun: error: Unable to create step for job 17: Invalid generic resource (gres) specification",
                           "srun: error: Unable to create step", "srun: cluster configuration lacks support for cpu binding",
                           "srun: error: h3: task x: Killed", "srun: error: : task 1: Killed",
                           "srun: error: h3: task : Killed", "srun: error: h3: task 1:Killed", "srun: error: h3: task 1",
                           "srun: error: h 3: task 1: Killed", "srun: error: h3,h4: task 1: Killed",
                           "srun: h3: task 1: Killed", " srun: error: h3: task 1: Killed", "srun: error:h3: task 1: Killed",
                           "slurmstepd: error: *** STEP 17.0 ON h2 CANCELLED AT 2024-01-01T00:00:00 ***",
                           "h3: task 1: Killed", "srun: error: ", ""}) {
    EXPECT_EQ(ended_node(line), "") << "'" << line << "'";
  }
}

TEST(SplitWords, SpacesAndTabsSeparate) {
  EXPECT_EQ(split_words("--partition=debug -v"), (Words{"--partition=debug", "-v"}));
  EXPECT_EQ(split_words("a\tb \t c"), (Words{"a", "b", "c"}));
  EXPECT_EQ(split_words("  lead and trail \t"), (Words{"lead", "and", "trail"}));
  EXPECT_EQ(split_words("one"), (Words{"one"}));
  EXPECT_EQ(split_words("'a b'"), (Words{"'a", "b'"})) << "no quoting";
}

TEST(SplitWords, NothingGivesNoWord) {
  EXPECT_TRUE(split_words("").empty());
  EXPECT_TRUE(split_words(" \t \n").empty());
}

}  // namespace
}  // namespace orca::plm::slurm
