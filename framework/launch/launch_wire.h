/*
 * The launcher's own messages: what orcarun and its orcads say to each
 * other, as values with a strict binary codec.
 *
 *   Bootstrap      orcarun (or a parent orcad) -> a new orcad, on its
 *                  standard input: who it is, the job secret, the settings
 *                  to apply, its parent's contact URI. Never on a command
 *                  line.
 *   DaemonReport   orcad -> orcarun, up the routing tree, once it is up:
 *                  its name, host, contact URI and the route its
 *                  connection took.
 *   LaunchCommand  orcarun -> every orcad: the command and where each rank
 *                  runs.
 *   OutputChunk    orcad -> orcarun: bytes a rank wrote on stdout/stderr.
 *   ExitRecord     orcad -> orcarun: how a rank ended.
 *   Teardown       orcarun -> every orcad: stop, with a reason.
 *   SignalRanks    orcarun -> every orcad: signal every rank (SIGINT and
 *                  SIGTERM forwarded, SIGKILL after the grace period).
 *   StdinData      orcarun -> the orcad of the ranks that read orcarun's
 *                  standard input: bytes, or its end.
 *   StdinCredit    that orcad -> orcarun: bytes written to the ranks, so
 *                  orcarun reads more (flow control, bounded memory).
 *   OutputCredit   orcarun -> one orcad: bytes of its ranks' output that
 *                  orcarun wrote to its own stdout / stderr, so the daemon
 *                  reads more of its ranks' pipes (iof/iof_flow.h).
 *   DaemonFailure  orcad -> orcarun: a daemon it started or relays for
 *                  could not start or was lost.
 *   FenceData      orcad -> its parent in the routing tree: its subtree's
 *                  part of a pmi collective (orca/pmi.h).
 *   FenceRelease   orcarun -> every orcad: a collective complete, with
 *                  every rank's data.
 *   RankAbort      orcad -> orcarun: a rank asked to end the job (PMI
 *                  abort, PMIx_Abort), or broke its PMI protocol.
 *   PmiDirect      orcad -> orcad: bytes between one pmi component's
 *                  modules on two nodes (a PMIx direct modex).
 *   JobFailure     orcad -> orcarun: the job cannot go on, for a reason
 *                  this daemon found (its pmi data past the job's bound,
 *                  a collective part sent twice): the message to show (a
 *                  help topic and its values). The daemon itself is fine.
 *   DaemonDone     orcad -> orcarun: its part of the job is over (every
 *                  rank of it ended with nothing left in its process
 *                  group; it reads no stdin for a rank, serves no PMI and
 *                  relays for no daemon): orcarun may end it now, with a
 *                  Teardown to it alone, rather than with the whole job.
 *
 *   HostDirectory  orcarun -> the first daemon of each distinct host:
 *                  every host's data-plane addresses (data_plane.h).
 *   DataPlaneAnswer that daemon -> orcarun: its host's chosen link, a
 *                  free port, and why; orcarun puts every host's link in
 *                  the LaunchCommand.
 *   MeshCheck      orcarun -> those daemons (optional): connect to every
 *                  other host's link; MeshResult: what did not connect.
 *
 *   MasterPortAsk  a DVM's controller -> the daemon of a job's rank 0,
 *                  before the job's command: a TCP port free on its host
 *                  now, for torch's MASTER_PORT (rank 0's host differs
 *                  per job); MasterPort: that daemon's answer.
 *
 *   DvmRequest     a client of a persistent DVM (orcadvm status, stop) ->
 *                  its controller: what it asks, and where to answer.
 *   DvmState       the controller -> that client: its hosts, daemons and
 *                  jobs, and whether it is stopping.
 *
 * Encoding: a one-byte kind, then fields in order; integers big-endian;
 * a string or byte field is a u32 length and the bytes; a list is a u32
 * count and its items. Decoding is strict: every length is checked
 * against what remains and against a per-field bound before anything is
 * allocated, trailing bytes are an error, and an error says which field
 * of which message was malformed. These messages travel only between
 * processes that proved the job secret, but a decoder must still cost
 * nothing on a lie.
 */
#ifndef ORCA_LAUNCH_LAUNCH_WIRE_H
#define ORCA_LAUNCH_LAUNCH_WIRE_H

#include "oob/oob_tags.h"

#include <orca/export.h>
#include <orca/result.h>

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace orca::launch {

/* Bounds a decoder enforces (an encoder refuses to exceed them too). */
inline constexpr std::uint32_t kMaxText = 1u << 20;        // one string field
inline constexpr std::uint32_t kMaxBytes = 16u << 20;      // one byte field (output)
inline constexpr std::uint32_t kMaxBootstrap = kMaxBytes + 4 * kMaxText;  // one bootstrap frame's body
inline constexpr std::uint32_t kMaxItems = 1u << 20;       // one list

struct Bootstrap {
  std::uint32_t job = 0;
  std::uint32_t vpid = 0;        // this daemon's; 0: one bootstrap for every daemon, each finding
                                 // its own vpid from its launcher (plm::vpid_from_launcher)
  std::uint32_t daemons = 0;     // vpids 1..daemons; orcarun is 0
  std::uint32_t parent = 0;      // the vpid it reports to
  std::string parent_uri;
  std::vector<std::uint8_t> secret;
  std::string settings;          // mca::encode_settings text
  std::vector<std::string> hosts;           // hosts[v - 1]: where daemon v runs
  std::vector<std::string> daemon_command;  // the words that run orcad (the same on every host)
  std::uint32_t flags = 0;                  // kBootstrap* below
  std::uint64_t launched_at_us = 0;         // the parent's monotonic_microseconds() when it made this
                                            // bootstrap (just before the agent starts, or queues)
  std::vector<std::string> unused_components;  // "framework/component" no daemon of the job loads
                                               // (daemon_unused_components: ras, the routed and
                                               // plm components orcarun did not choose, pmi/pmix)
  std::string working_directory;  // --wdir (absolute): the daemon reports a failure instead of
                                  // coming up when its host cannot enter it; "" without --wdir
};

/* Bootstrap::flags */
inline constexpr std::uint32_t kBootstrapTreeSpawn = 1;       // start your children yourself
inline constexpr std::uint32_t kBootstrapReportTopology = 2;  // put the hwloc summary in the report
inline constexpr std::uint32_t kBootstrapReportCpus = 4;      // put the usable processors in the report
inline constexpr std::uint32_t kBootstrapDvm = 8;             // a persistent DVM's daemon: many jobs (pmi_base_helper)
                                                              // (DaemonReport::cpus): ranks are placed on them

struct DaemonReport {
  std::uint32_t vpid = 0;
  std::string hostname;
  std::string host_identity;
  std::string contact_uri;
  std::string route;             // "tcp: 10.0.0.2:40112 -> 10.0.0.1:5000"
  std::vector<std::string> notes;  // interface summary, refusals, topology
  /* This host's addresses for the data plane, "10.0.0.2/24 physical"
   * (the oob_tcp selection, loopback left out): orcarun hands them to the
   * other hosts (HostDirectory). */
  std::vector<std::string> addresses;
  /* Microseconds of each start-up phase (kStartupPhases order), for --timing. */
  std::vector<std::uint32_t> startup_us;
  /* With kBootstrapReportCpus: the processors ranks may be bound to
   * (encode_cpu_topology, cpu_topology.h), or why they could not be read. */
  std::string cpus;
  std::string cpus_error;
};

/* The phases of an orcad's start-up, in the order of DaemonReport::startup_us:
 * from the agent's start to main (the agent's own cost included; only
 * meaningful when parent and daemon share a clock, else 0), reading the
 * bootstrap, settings and component load, opening the frameworks, opening
 * the oob (interface inventory, listeners), and the connection to the
 * parent made (the parent answered the handshake). */
inline constexpr const char* kStartupPhases[] = {"agent to main", "bootstrap", "settings and components",
                                                 "frameworks", "oob open", "parent answered"};

struct RankPlacement {
  std::uint32_t rank = 0;
  std::uint32_t daemon = 0;      // the vpid that runs it
  std::uint32_t local_rank = 0;
  // Kept to three numbers: every daemon decodes every rank's placement, so
  // a rank's program and CPUs travel beside them (LaunchCommand).
};

/* One program of the job (MPMD: several, their ranks numbered in order). */
struct AppSpec {
  std::uint32_t first_rank = 0;          // its ranks are first_rank up to the next program's
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // NAME=VALUE for its ranks alone, after the job's own
  std::string directory;                 // where its ranks start ("" : the daemon's own)
  bool directory_given = false;          // --wdir: a host without it fails the rank; else
                                         // orcarun's own, where the host has it
};

/* One distinct host of the job (daemons that share a host identity are
 * one host) and its data-plane addresses, as DaemonReport::addresses. */
struct HostAddresses {
  std::string identity;
  std::string name;              // as the job names it, for messages
  std::vector<std::string> addresses;
};

/* orcarun -> the first daemon of each distinct host: every host's
 * addresses, so that it can choose its host's data-plane link. */
struct HostDirectory {
  std::vector<HostAddresses> hosts;
  bool mesh_check = false;       // open a listener for the mesh check (DataPlaneAnswer::check_port)
  std::vector<std::string> user_settings;  // data-plane variables the user forwards (-x), NAME=VALUE
};

/* That daemon -> orcarun: its host's choice (data_plane.h). An empty
 * interface: nothing reaches the other hosts; ranks get no variable. */
struct DataPlaneAnswer {
  std::uint32_t vpid = 0;
  std::string interface;
  std::string address;           // "10.0.1.2"
  std::uint32_t prefix_length = 0;
  bool rdma = false;             // /sys/class/infiniband has devices
  std::uint32_t port = 0;        // a TCP port free on this host, for MASTER_PORT
  std::uint32_t check_port = 0;  // with HostDirectory::mesh_check: where this host listens on its link
  std::string reason;
  std::vector<std::string> others;     // each address not chosen, and why
  std::vector<std::string> unreached;  // hosts the choice does not reach
  std::vector<std::string> inherited;  // data-plane variables in orcad's own environment (ranks inherit them)
  std::vector<std::string> warnings;   // a user's setting that does not reach every host from here
};

/* orcarun -> each host's first daemon: connect to every other host's
 * link (the optional full-mesh check), at most `concurrency` at once,
 * each within `timeout_ms`. */
struct MeshTarget {
  std::string identity;
  std::string name;
  std::string address;
  std::uint32_t port = 0;
};
struct MeshCheck {
  std::vector<MeshTarget> targets;
  std::uint32_t concurrency = 16;
  std::uint32_t timeout_ms = 3000;
};

/* That daemon -> orcarun: the targets it could not connect to, each
 * "h3 10.0.0.3:41000: timed out". */
struct MeshResult {
  std::uint32_t vpid = 0;
  std::vector<std::string> failures;
};

/* One host's link in the launch command. */
struct HostLink {
  std::string identity;
  std::string interface;
  std::string address;
  std::uint32_t prefix_length = 0;
  bool rdma = false;
};

struct LaunchCommand {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::vector<AppSpec> apps;             // the programs, by first_rank (the first at 0)
  std::vector<std::string> environment;  // NAME=VALUE added for every rank
  std::vector<HostLink> links;           // each host's data-plane link (rank_network_env.h)
  std::vector<std::string> families;     // the families to set (orcarun_data_plane)
  std::string master_address;            // rank 0's host's link address ("" : none)
  std::uint32_t master_port = 0;
  std::vector<RankPlacement> placements;
  std::vector<std::string> cpus;         // [rank]: the CPUs it is bound to (cpu_list_text: "0-3,8");
                                         // empty: no rank is bound
  std::uint32_t size = 0;                // ranks in all
  std::int32_t stdin_target = 0;         // a rank, or kStdinNone / kStdinAll
  bool merge_stderr = false;             // --merge-stderr-to-stdout: one pipe for both, from the start
  std::vector<std::string> pmi_left_out;  // pmi components the job's ranks do not need ("pmix", "simple"):
                                          // a DVM job's (a standalone run's daemons do not load them)
};

inline constexpr std::int32_t kStdinNone = -1;
inline constexpr std::int32_t kStdinAll = -2;

enum class Stream : std::uint8_t { Stdout = 1, Stderr = 2 };

struct OutputChunk {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t rank = 0;
  Stream stream = Stream::Stdout;
  bool eof = false;
  bool partial = false;          // bytes are one piece of a line (iof/iof_lines.h); else whole lines
  std::vector<std::uint8_t> bytes;
};

/* How far a rank got with its PMI library (ExitRecord::pmi). */
enum class PmiProgress : std::uint8_t { None = 0, Initialized = 1, Finalized = 2 };

struct ExitRecord {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t rank = 0;
  std::int32_t wait_status = 0;   // as waitpid gave it
  bool started = true;            // false: exec failed (status 127)
  std::string message;
  PmiProgress pmi = PmiProgress::None;  // Initialized: it exited before it finalized
};

struct Teardown {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::int32_t signal = 0;        // 0: exit cleanly
  std::string reason;
};

struct SignalRanks {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::int32_t signal = 0;
};

struct StdinData {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  bool eof = false;
  std::vector<std::uint8_t> bytes;
};

struct StdinCredit {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t bytes = 0;
};

struct OutputCredit {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t bytes = 0;       // of OutputChunk::bytes, as the daemon counted them
};

struct DaemonFailure {
  std::uint32_t vpid = 0;        // the daemon that failed
  std::string host;
  std::string message;           // what happened, with the agent's output
};

/* One key of a collective's data; the value may hold any bytes. */
struct KeyValue {
  std::string key;
  std::string value;
};

struct FenceData {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::string component;          // the pmi component whose collective it is
  std::uint64_t epoch = 0;
  std::uint32_t from = 0;         // the sending daemon's vpid
  std::uint32_t ranks = 0;        // ranks whose data it carries
  std::vector<KeyValue> entries;
};

struct FenceRelease {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::string component;
  std::uint64_t epoch = 0;
  std::vector<KeyValue> entries;
};

struct RankAbort {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t rank = 0;
  std::int32_t status = 1;        // what orcarun exits with
  bool broke = false;             // it broke the protocol (message says how), not an abort it asked for
  std::string message;
};

struct PmiDirect {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::string component;
  std::uint32_t from = 0;         // vpids
  std::uint32_t to = 0;
  std::vector<std::uint8_t> bytes;
};

struct JobFailure {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t vpid = 0;         // the daemon that found it
  std::string area;               // the Message: help-<area>.txt ...
  std::string topic;              // ... its [topic] ...
  std::vector<KeyValue> args;     // ... and the values of its placeholders
};

struct DaemonDone {
  std::uint32_t job = 0;  // a DVM job's number; 0: the one job of a standalone run
  std::uint32_t vpid = 0;
};

enum class DvmAsk : std::uint32_t { Status = 1, Stop = 2 };

struct DvmRequest {
  std::uint32_t ask = 0;   // a DvmAsk (any other value is refused by the controller, not the codec)
  std::string client_uri;  // the client's oob contact, for the answer
};

struct DvmHostState {
  std::string name;
  std::uint32_t slots = 0;
  bool up = false;  // its daemon is up and not lost
};

struct DvmState {
  std::uint32_t pid = 0;        // the controller's (orcadvm's) process id
  std::uint64_t uptime_ms = 0;  // since its daemons were all up
  std::vector<DvmHostState> hosts;
  std::uint32_t running = 0;    // jobs
  std::uint32_t waiting = 0;
  std::uint32_t clients = 0;    // connected now, this one included
  bool stopping = false;        // the answer to a stop: the controller ends once its daemons are gone
};

/* orcarun --dvm -> a DVM's controller: a job to run on its daemons. The
 * client made the programs and their variables as for a standalone run;
 * the controller maps the ranks on its hosts. */
struct DvmSubmit {
  std::string client_uri;                // the client's oob contact, for its job's messages
  std::vector<AppSpec> apps;             // by first_rank (the first at 0); first_rank fixed by the map
  std::vector<std::uint32_t> app_processes;  // [app]: its -n (0: one per slot, the first program only)
  std::vector<std::string> environment;  // NAME=VALUE for every rank (-x, -genv)
  std::string map_by;                    // "slot" or "node"
  std::uint32_t per_node = 0;            // -N: ranks on each host (0: not given)
  bool oversubscribe = false;
  bool wait = true;                      // false: refused at once when its slots are busy
  std::int32_t stdin_target = kStdinNone;
  bool merge_stderr = false;
  std::uint64_t timeout_ms = 0;          // --timeout (0: none)
  std::vector<std::string> pmi_left_out;  // pmi components its programs do not need (LaunchCommand's)
  bool torch_master = false;             // its programs may read MASTER_ADDR/MASTER_PORT (a port is asked for)
};

/* A DVM's controller -> the daemon of a job's rank 0, and its answer (0:
 * no port could be had). `near` is the address MASTER_ADDR will be, so
 * the port is of its family. */
struct MasterPortAsk {
  std::uint32_t job = 0;
  std::string near;
};
struct MasterPort {
  std::uint32_t job = 0;
  std::uint32_t vpid = 0;
  std::uint32_t port = 0;
};

/* The controller -> a client: its job's number once admitted (started
 * false: it waits for slots), and its end (ended: exit_status is what
 * orcarun exits with). Messages for the user come as JobFailure. */
struct DvmJobState {
  std::uint32_t job = 0;
  std::uint32_t ranks = 0;  // once started: how many it has
  bool started = false;
  bool ended = false;
  std::int32_t exit_status = 0;
};

using WireMessage = std::variant<Bootstrap, DaemonReport, LaunchCommand, OutputChunk, ExitRecord, Teardown,
                                 SignalRanks, StdinData, StdinCredit, DaemonFailure, FenceData, FenceRelease,
                                 RankAbort, PmiDirect, JobFailure, OutputCredit, HostDirectory, DataPlaneAnswer, MeshCheck,
                                 MeshResult, DaemonDone, DvmRequest, DvmState, DvmSubmit, DvmJobState,
                                 MasterPortAsk, MasterPort>;

/* The oob tags of these messages (the plm and iof ranges of oob/oob_tags.h).
 * Each tag carries the kinds listed; the kind byte says which. */
inline constexpr std::uint32_t kTagHello = oob::tags::kPlmFirst + 1;    // DaemonReport, a new daemon -> its parent
// kPlmFirst + 2 was the parent's Welcome, which the report waited for
// before the oob told of connections made (Oob::on_peer_connected).
inline constexpr std::uint32_t kTagReport = oob::tags::kPlmFirst + 3;   // DaemonReport -> orcarun
inline constexpr std::uint32_t kTagControl = oob::tags::kPlmFirst + 4;  // LaunchCommand, SignalRanks, Teardown,
                                                                        // FenceRelease: down the tree
inline constexpr std::uint32_t kTagStatus = oob::tags::kPlmFirst + 5;   // ExitRecord, DaemonFailure, RankAbort, JobFailure,
                                                                        // DataPlaneAnswer, MeshResult, DaemonDone,
                                                                        // MasterPort -> orcarun (a DVM's controller)
inline constexpr std::uint32_t kTagDirectory = oob::tags::kPlmFirst + 6;  // HostDirectory, MeshCheck -> a host's first daemon;
                                                                          // MasterPortAsk -> a job's rank 0's daemon
inline constexpr std::uint32_t kTagDvm = oob::tags::kPlmFirst + 7;     // DvmRequest, DvmSubmit, SignalRanks,
                                                                        // OutputCredit, StdinData -> a DVM's controller;
                                                                        // DvmState, DvmJobState, OutputChunk,
                                                                        // JobFailure, StdinCredit -> its client
inline constexpr std::uint32_t kTagOutput = oob::tags::kIofFirst + 1;   // OutputChunk -> orcarun
inline constexpr std::uint32_t kTagStdin = oob::tags::kIofFirst + 2;    // StdinData -> a daemon
inline constexpr std::uint32_t kTagCredit = oob::tags::kIofFirst + 3;   // StdinCredit -> orcarun
inline constexpr std::uint32_t kTagOutputCredit = oob::tags::kIofFirst + 4;  // OutputCredit -> a daemon
inline constexpr std::uint32_t kTagFence = oob::tags::kPmiFirst + 1;    // FenceData -> the tree parent
inline constexpr std::uint32_t kTagPmiDirect = oob::tags::kPmiFirst + 2;  // PmiDirect -> a daemon

/* CLOCK_MONOTONIC in microseconds: Bootstrap::launched_at_us. */
ORCA_EXPORT std::uint64_t monotonic_microseconds();

/* The bootstrap as it travels on a daemon's standard input: a 4-byte
 * big-endian length, then the encoded message. Errors: a field above its
 * bound, or a message above kMaxBootstrap (which read_bootstrap refuses). */
ORCA_EXPORT Result<std::vector<std::uint8_t>> bootstrap_frame(const Bootstrap& bootstrap);
/* Reads one bootstrap frame from `fd` (blocking), waiting at most
 * `limit_ms` for each read. Errors: end of input first, a length above
 * kMaxBootstrap, a time-out, a malformed message. */
ORCA_EXPORT Result<Bootstrap> read_bootstrap(int fd, int limit_ms);
/* Any message framed the same way: after a bootstrap for every daemon
 * (vpid 0), the launcher writes a DaemonReport frame for each daemon that
 * has children in the routing tree, carrying its contact URI, once it is
 * up, so that the children, started at the same time, can reach it.
 * Errors: as bootstrap_frame and read_bootstrap, for any kind. */
ORCA_EXPORT Result<std::vector<std::uint8_t>> stdin_frame(const WireMessage& message);
ORCA_EXPORT Result<WireMessage> read_stdin_message(int fd, int limit_ms);

/* The bootstrap in the environment, for a launcher that starts every
 * daemon at once and whose program carries the environment with the
 * launch itself (srun: no wait for its standard input to be forwarded).
 * The variable holds a bootstrap frame in hex; orcad removes it at once,
 * so that no rank inherits it. Frames above kMaxEnvironmentBootstrap go on
 * standard input instead (a variable may hold 128 KiB at most). */
inline constexpr const char* kBootstrapVariable = "ORCA_BOOTSTRAP";
inline constexpr size_t kMaxEnvironmentBootstrap = 60 * 1024;
ORCA_EXPORT std::string bootstrap_text(std::span<const std::uint8_t> frame);
/* Errors: not hex, or as read_bootstrap (a frame that does not hold one
 * consistent bootstrap, or holds more than one). */
ORCA_EXPORT Result<Bootstrap> parse_bootstrap_text(std::string_view text);

/* Encodes one message. Errors: a field above its bound (named). */
ORCA_EXPORT Result<std::vector<std::uint8_t>> encode(const WireMessage& message);
/* Decodes exactly one message from `bytes`. Errors: an unknown kind, a
 * truncated or oversized field, trailing bytes (each names the field). */
ORCA_EXPORT Result<WireMessage> decode(std::span<const std::uint8_t> bytes);

/* "bootstrap", "daemon report", ... for messages. */
ORCA_EXPORT const char* kind_name(const WireMessage& message);

/* The job a message is about: its `job` (a DVM job's number), 0 for a
 * standalone run's messages and for those of no job. */
ORCA_EXPORT std::uint32_t job_of(const WireMessage& message);

/* Daemon `vpid`'s host in a job's `hosts` (hosts[vpid - 1], as in
 * Bootstrap), or "vpid N" for a vpid outside them (orcarun's 0, a forged
 * sender), for messages; as written, not made printable. */
ORCA_EXPORT std::string daemon_host(const std::vector<std::string>& hosts, std::uint32_t vpid);

/* The program of `rank`: the last of `apps` whose first_rank is at most
 * `rank` (0 when there is none). */
ORCA_EXPORT std::uint32_t app_of_rank(const std::vector<AppSpec>& apps, std::uint32_t rank);

/* How many of `placements` each daemon runs: [v] for vpid v in
 * 1..daemons ([0], orcarun, stays 0); a placement naming no such daemon
 * counts nowhere. */
ORCA_EXPORT std::vector<std::uint32_t> ranks_per_daemon(const std::vector<RankPlacement>& placements,
                                                        std::uint32_t daemons);

}  // namespace orca::launch

#endif  // ORCA_LAUNCH_LAUNCH_WIRE_H
