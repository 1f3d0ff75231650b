/*
 * Framework "plm": process launch. How a launcher (orcarun, or an orcad
 * spawning its part of a tree) starts orcad on a host.
 *
 * A component decides only the command: the words that start the daemon
 * on a host (plm/local: the daemon itself; plm/rsh: the agent, the host,
 * then the daemon), whether it can reach a host at all, how many agents
 * may be starting at once and whether daemons spawn their own children.
 * Starting the processes, handing each its bootstrap on standard input,
 * keeping what the agent printed and noticing that it exited is the same
 * for every component, so the base does it (DaemonLauncher below), as the
 * routed base does the routing for its components.
 *
 * Selection: every component that opens stays available (SelectMode::All);
 * a job is launched by the highest-priority module that accepts every host
 * of the job (choose_module). plm/local (priority 20) accepts only this
 * host, plm/rsh (10) any host, so `orcarun hostname` runs here without an
 * agent and `orcarun --host n1,n2 hostname` goes through ssh.
 * `--mca plm rsh` forces the agent even for this host. plm/slurm (30)
 * accepts the nodes of the Slurm allocation orcarun runs in.
 *
 * Per host or all at once: plm/local and plm/rsh give one command per
 * host (command). plm/slurm gives one command that starts the daemons of
 * every host together (command_all: one srun job step); each daemon then
 * learns which one it is from what the launcher put in its environment
 * (daemon_vpid), and they all read the same bootstrap, with vpid 0.
 *
 * Threading: everything runs on the event loop's thread.
 */
#ifndef ORCA_PLM_H
#define ORCA_PLM_H

#include <orca/mca_component.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 3: failure_hint, the module's own advice when a daemon it
 * started fails. */
#define ORCA_PLM_INTERFACE_VERSION 3u

/* Collects the words of a command, one call per word (copied). */
typedef struct orca_plm_words {
    void *context;
    void (*add)(void *context, const char *word);
} orca_plm_words;

/* Where one rank of the job runs, for rank_environment. */
typedef struct orca_plm_rank_place {
    uint32_t rank;
    uint32_t local_rank;
    uint32_t size;                  /* ranks of the job */
    const uint32_t *node_ranks;     /* the ranks on this daemon's node, ascending */
    size_t node_rank_count;
    const uint32_t *ranks_per_daemon;  /* [v - 1]: how many ranks daemon v runs */
    size_t daemons;
} orca_plm_rank_place;

typedef struct orca_plm_module {
    void *self;
    /* OK when this module can start a daemon on `host`; DECLINED with the
     * reason otherwise. */
    orca_mca_rc (*accepts)(void *self, const char *host, orca_mca_reason *why);
    /* Writes, through `out`, the words that run `daemon` (daemon_count
     * words: the orcad path and its arguments) on `host`. The command gets
     * the bootstrap on its standard input and must pass it, and the end of
     * it, to the daemon. FAILED with a reason when it cannot be built. */
    orca_mca_rc (*command)(void *self, const char *host, const char *const *daemon, size_t daemon_count,
                           const orca_plm_words *out, orca_mca_reason *why);
    /* How many agents may be starting (started, daemon not up yet) at
     * once; 0: no limit. */
    uint32_t (*max_concurrent)(void *self);
    /* Nonzero when, for a job of `daemons` daemons, each daemon should
     * start its own children in the routing tree. */
    int (*tree_spawn)(void *self, uint32_t daemons);
    /* How many nodes to make of this host when the job names no host: 1
     * for a real launcher; plm/local's plm_local_num_nodes simulates more. */
    uint32_t (*simulated_nodes)(void *self);
    /* NULL for a per-host launcher. Otherwise: writes, through `out`, the
     * one command that starts `daemon` once on each of `hosts` (in job
     * order: hosts[v - 1] is daemon v), all reading the same standard
     * input, which the command passes to every daemon, and its end too.
     * FAILED with a reason (the launcher program missing, say). */
    orca_mca_rc (*command_all)(void *self, const char *const *hosts, size_t host_count, const char *const *daemon,
                               size_t daemon_count, const orca_plm_words *out, orca_mca_reason *why);
    /* NULL with command_all. Called in a daemon that command_all started:
     * its vpid (hosts[*vpid - 1] is its host), from its environment.
     * DECLINED when the environment is not of this launcher, FAILED with
     * a reason when it is but names no host of `hosts`. */
    orca_mca_rc (*daemon_vpid)(void *self, const char *const *hosts, size_t host_count, uint32_t *vpid,
                               orca_mca_reason *why);
    /* NULL with command_all. Whether `line`, printed by the command_all
     * launcher, says that the daemon of one host ended ("srun: error: h3:
     * task 1: Killed"): then the host's name is written to `host` (at most
     * `capacity` bytes with the NUL) and its length returned; else 0. The
     * launcher's one process outlives a daemon that dies, so this is how
     * the job learns which one did, before the others are ended. */
    size_t (*ended_host)(void *self, const char *line, char *host, size_t capacity);
    /* NULL unless daemon_vpid is set. In a daemon it started, for each
     * rank: words through `out` that change the rank's environment, NAME=
     * VALUE to set, NAME alone to remove. A rank inherits the daemon's
     * environment, where the launcher's per-task variables describe the
     * daemon (srun's SLURM_PROCID is the daemon's task number); these make
     * them describe the rank, as if the launcher had started it. */
    void (*rank_environment)(void *self, const char *const *hosts, size_t host_count, const orca_plm_rank_place *place,
                             const orca_plm_words *out);
    /* May be NULL. What a user should check when a daemon this module
     * started on `host` never came up or failed: one sentence without its
     * full stop, written to `text` (at most `capacity` bytes with the NUL).
     * Only the module knows its launcher: its agent, its resource manager's
     * commands. Without it the user is told to read what the daemon printed. */
    void (*failure_hint)(void *self, const char *host, char *text, size_t capacity);
} orca_plm_module;

#ifdef __cplusplus
}

#include <orca/event_loop.h>
#include <orca/export.h>
#include <orca/mca_framework.h>
#include <orca/mca_var.h>
#include <orca/result.h>
#include <orca/unique_fd.h>

#include <signal.h>

#include <span>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace orca::plm {

/* plm_base_daemon: the daemon program (default: the orcad beside this
 * program, default_daemon_path()). */
ORCA_EXPORT std::span<const orca_mca_var_decl> base_variable_decls();
inline const mca::FrameworkDecl kFramework{"plm", "starts a daemon (orcad) on each host of a job",
                                           ORCA_PLM_INTERFACE_VERSION, mca::SelectMode::All, base_variable_decls()};

/* The words that run the daemon: plm_base_daemon, or default_daemon_path(). */
ORCA_EXPORT std::vector<std::string> daemon_program(const mca::Registry& registry);

/* The selected module and its component's name. */
struct ChosenModule {
  std::string component;
  const orca_plm_module* module = nullptr;
};

/* The highest-priority selected module of an opened plm framework that
 * accepts every host in `hosts`. Errors (area "plm"): none is selected
 * (plm/none-selected) or none accepts some host (plm/no-launcher, naming
 * the host and what each module answered). */
ORCA_EXPORT Result<ChosenModule> choose_module(const mca::Framework& framework, const std::vector<std::string>& hosts);

/* The words of module.command for `host`. */
ORCA_EXPORT Result<std::vector<std::string>> daemon_command(const ChosenModule& chosen, const std::string& host,
                                                            const std::vector<std::string>& daemon);
/* The host a line of a command_all launcher says a daemon ended on, or "". */
ORCA_EXPORT std::string ended_host(const ChosenModule& chosen, const std::string& line);
/* True when the module starts every daemon with one command (command_all). */
inline bool starts_all_at_once(const ChosenModule& chosen) { return chosen.module->command_all != nullptr; }
/* The words of module.command_all for `hosts`. Errors: plm/no-command. */
ORCA_EXPORT Result<std::vector<std::string>> all_daemons_command(const ChosenModule& chosen,
                                                                 const std::vector<std::string>& hosts,
                                                                 const std::vector<std::string>& daemon);
/* In a daemon started by a command_all launcher (its bootstrap has vpid
 * 0): its vpid, and the module that started it, from the first selected
 * module of an opened plm framework whose daemon_vpid recognises the
 * environment. Errors (area "plm"): plm/no-identity, naming what each
 * module answered. */
struct LauncherPlace {
  std::uint32_t vpid = 0;
  ChosenModule launcher;
};
ORCA_EXPORT Result<LauncherPlace> vpid_from_launcher(const mca::Framework& framework,
                                                     const std::vector<std::string>& hosts);
/* What to check when a daemon `chosen` started on `host` failed: the
 * module's failure_hint, or else to read what the daemon printed. Made
 * printable (a host name or a setting may hold control bytes). */
ORCA_EXPORT std::string failure_hint(const ChosenModule& chosen, const std::string& host);
/* The words of module.rank_environment (none without it). */
ORCA_EXPORT std::vector<std::string> rank_environment(const ChosenModule& launcher, const std::vector<std::string>& hosts,
                                                      const orca_plm_rank_place& place);

/*
 * DaemonLauncher: starts daemons through a module's commands and watches
 * the agents.
 *
 * Each launch is one child process (the agent, or the daemon itself) in a
 * process group of its own, with the bootstrap bytes written to its
 * standard input, which then stays open: the daemon's standard input
 * closing is how it learns that its launcher is gone. Its standard output
 * and error are kept (the last kTailBytes) for the message if it fails,
 * and passed on, a line at a time, through on_output.
 *
 * At most max_concurrent launches are in flight (started and not yet
 * confirmed by daemon_up() or ended); the rest wait in order.
 * on_exit reports every agent that ended, with the wait status and its
 * output tail, whether or not its daemon was up; it is the last thing the
 * launcher does in that call, so the hook may destroy the launcher.
 */
class ORCA_EXPORT DaemonLauncher {
 public:
  static constexpr size_t kTailBytes = 8192;
  struct Launch {
    std::uint32_t vpid = 0;  // kEveryDaemon: one process standing for every daemon
    std::string host;
    std::vector<std::string> argv;
    std::vector<std::uint8_t> bootstrap;
    /* When set, makes `bootstrap` as the launch starts rather than while
     * it waits: a job of N daemons whose bootstraps each name N hosts then
     * holds one at a time, not N. An empty result starts the agent with
     * an empty standard input (its daemon then fails, saying so). */
    std::function<std::vector<std::uint8_t>()> make_bootstrap;
    /* NAME=VALUE set in the agent's environment, over this process's. */
    std::vector<std::string> environment;
    /* The agent gets this signal when the launching process dies
     * (PR_SET_PDEATHSIG); 0: none. srun cancels its step on SIGTERM. */
    int parent_death_signal = 0;
    /* What ends the agent at once (the destructor, signal_all(SIGKILL)):
     * SIGKILL, except for an agent that must act on its way out (a
     * SIGKILLed srun leaves its step running; SIGTERM cancels it). */
    int kill_signal = SIGKILL;
  };
  struct Hooks {
    /* The agent of `vpid` ended (wait status), `tail` is what it printed last. */
    std::function<void(std::uint32_t vpid, int wait_status, const std::string& tail)> on_exit;
    /* One line (without '\n') the agent of `vpid` printed. May be empty. */
    std::function<void(std::uint32_t vpid, const std::string& line)> on_output;
    /* A launch could not start (fork, pipe); the job cannot go on. */
    std::function<void(std::uint32_t vpid, const Message& why)> on_failed_start;
  };

  DaemonLauncher(EventLoop& loop, std::uint32_t max_concurrent, Hooks hooks);
  /* Ends and reaps every agent still running: its kill_signal (with
   * SIGCONT, should it be stopped), then SIGKILL if it has not ended
   * within kKillSignalLimit. */
  ~DaemonLauncher();
  static constexpr std::chrono::milliseconds kKillSignalLimit{3000};
  DaemonLauncher(const DaemonLauncher&) = delete;
  DaemonLauncher& operator=(const DaemonLauncher&) = delete;

  /* The vpid of a launch that starts the daemons of every host at once. */
  static constexpr std::uint32_t kEveryDaemon = 0;

  /* Queues a launch; starts it now when under the cap. */
  void launch(Launch launch);
  /* Writes `bytes` to the standard input of the agent of `vpid` after what
   * it was given so far (a started agent only; false if there is none). */
  bool send(std::uint32_t vpid, std::vector<std::uint8_t> bytes);
  /* The daemon of `vpid` reported: its launch no longer counts in flight. */
  void daemon_up(std::uint32_t vpid);
  /* Sends `signo` to the process group of the agent of `vpid`, if it runs. */
  void signal(std::uint32_t vpid, int signo);
  /* Asks the agent of a lost daemon to end, daemon first: SIGCONT (a
   * stopped daemon must run to act, and a stopped member would make the
   * kernel hang up the agent's group once the agent is gone), then
   * SIGTERM, on which a daemon in the agent's group ends its ranks'
   * process groups before it exits; a SIGKILL would leave what the ranks
   * started running. The caller escalates to SIGKILL if it must. */
  void end_lost(std::uint32_t vpid);
  /* Sends `signo` to the process group of every running agent; SIGKILL
   * means each agent's kill_signal. */
  void signal_all(int signo);
  /* Forgets the launches not started yet. */
  void cancel_waiting() { waiting_.clear(); }
  /* Agents running (started and not ended). */
  size_t running() const noexcept { return agents_.size(); }
  /* Whether the agent of `vpid` runs here (this process is its parent,
   * so its exit will be reported through Hooks::on_exit). */
  bool runs(std::uint32_t vpid) const;
  size_t waiting() const noexcept { return waiting_.size(); }
  /* When the last agent was started (for --timing). */
  std::chrono::steady_clock::time_point last_start() const noexcept { return last_start_; }

 private:
  struct Agent;
  void start_next();
  void start(Launch launch);
  void ended(std::uint32_t vpid, int wait_status);
  bool read_output(Agent& agent);  // true at EOF
  static bool write_bootstrap(Agent& agent);  // true once it is all written (or cannot be)

  EventLoop& loop_;
  std::uint32_t max_concurrent_;
  Hooks hooks_;
  std::deque<Launch> waiting_;
  std::map<std::uint32_t, std::unique_ptr<Agent>> agents_;
  size_t in_flight_ = 0;
  std::chrono::steady_clock::time_point last_start_{};
};

/* This program's directory's orcad: the default daemon. In an uninstalled
 * build tree (libtool keeps the real programs in .libs), the orcad wrapper
 * of the build tree. */
ORCA_EXPORT std::string default_daemon_path();

}  // namespace orca::plm

#endif  // __cplusplus

#endif  // ORCA_PLM_H
