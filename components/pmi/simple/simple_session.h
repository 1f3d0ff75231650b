// SimpleSession: the server side of one rank's "simple" PMI connection
// (PMI-1 or PMI-2, simple_wire.h), as a state machine without I/O.
//
// orcad feeds the bytes it reads from the rank's PMI_FD to receive(); the
// session answers what it can alone (identity, maxes, gets from the KVS it
// holds) and reports what needs the job as events:
//   Initialized     the rank initialized (PMI-1 init, PMI-2 fullinit).
//   BarrierEntered  the rank entered barrier / fence `epoch` (0, 1, ...)
//                   with the puts it made since the last one. The job
//                   merges every rank's puts and calls barrier_done() with
//                   the merged KVS, which releases the rank.
//   AbortRequested  the rank called PMI_Abort (no reply is sent).
//   Finalized       the rank finalized (its reply is already queued).
//   ProtocolFailed  the rank sent bytes the decoder cannot frame; a last
//                   error reply is queued, then the session ignores input.
//                   Close the connection after writing the output.
// Bytes to write back accumulate until take_output().
//
// Order rules: before init (PMI-1 "init", PMI-2 "fullinit") only init and
// initack are answered normally; a second barrier before the first is
// released, and anything after finalize, is refused with an error reply
// (rc=-1 and a message: "msg" in PMI-1, "errmsg" in PMI-2), as is an
// unknown command or one missing a key it needs. Refusals keep the session
// usable; only undecodable bytes end it.
//
// A get is answered from the rank's own puts not yet fenced, then the
// job KVS of the last barrier_done(), then (for PMI_process_mapping,
// which PMI-1 clients read from the KVS) the identity.
//
// Threading: one object per connection, on the event loop's thread;
// nothing locks, nothing throws on purpose (an allocation may).
#ifndef ORCA_COMPONENTS_PMI_SIMPLE_SESSION_H
#define ORCA_COMPONENTS_PMI_SIMPLE_SESSION_H

#include "simple_wire.h"

#include <orca/pmi.h>
#include <orca/result.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace orca::pmi {

/* What the job tells one rank about itself. */
struct RankIdentity {
  int rank = 0;
  int size = 1;
  int appnum = 0;
  int universe_size = 1;
  /* The job's KVS name (PMI-1) and job id (PMI-2); at most kMaxKvsNameBytes. */
  std::string kvsname;
  /* MPICH's "(vector,(0,N,K))" text; empty when not known. */
  std::string process_mapping;
};

struct BarrierEntered {
  std::uint64_t epoch = 0;
  Kvs puts;
};
struct AbortRequested {
  int exit_code = 1;
  std::string message;
};
struct Initialized {};
struct Finalized {};
struct ProtocolFailed {
  Message why;
};
using SessionEvent = std::variant<Initialized, BarrierEntered, AbortRequested, Finalized, ProtocolFailed>;

class SimpleSession {
 public:
  enum class State : std::uint8_t {
    AwaitingInit,      // nothing but init / initack yet
    AwaitingFullinit,  // PMI-1 "init pmi_version=2" done, PMI-2 fullinit next
    Ready,
    Finalized,
    Aborted,
    Failed,  // undecodable input: ignores everything
  };

  /* Distinct keys one rank may put between two barriers: what orcad
   * holds for a rank stays bounded (MPICH puts a handful). */
  static constexpr std::size_t kMaxPutsPerBarrier = 4096;

  explicit SimpleSession(RankIdentity identity);

  /* Bytes read from the rank, in any chunks. */
  void receive(std::string_view bytes);

  /* Releases the barrier the rank is in, with the job's KVS as of this
   * barrier: every rank's puts of every epoch so far (gets read it from
   * now on; the job's ranks on one daemon share it, and the daemon adds
   * later barriers' data to it in place). Fails when the rank is in no
   * barrier. On an aborted or failed session it only records the KVS. */
  Status barrier_done(std::shared_ptr<const Kvs> job_kvs);
  Status barrier_done(Kvs job_kvs) { return barrier_done(std::make_shared<const Kvs>(std::move(job_kvs))); }

  /* Bytes to write to the rank since the last call. */
  std::string take_output();
  /* Events since the last call, in order. */
  std::vector<SessionEvent> take_events();

  State state() const noexcept { return state_; }
  bool in_barrier() const noexcept { return in_barrier_; }
  /* The framing in use, once the first byte arrived. */
  std::optional<Framing> framing() const noexcept { return decoder_.framing(); }
  const RankIdentity& identity() const noexcept { return identity_; }

 private:
  enum class Command : std::uint8_t;

  void handle(const WireMessage& message);
  void handle_pmi1(Command command, const WireMessage& message);
  void handle_pmi2(Command command, const WireMessage& message);
  // PMI-1 commands (handle_pmi1 dispatches to them).
  bool pmi1_expect_ready(std::string_view response);
  bool pmi1_check_kvsname(const WireMessage& message, std::string_view response);
  void pmi1_init(const WireMessage& message);
  void pmi1_initack(const WireMessage& message);
  void pmi1_put(const WireMessage& message);
  void pmi1_get(const WireMessage& message);
  void pmi1_abort(const WireMessage& message);
  void pmi1_refuse_unknown(const WireMessage& message);
  // PMI-2 commands (handle_pmi2 dispatches to them).
  bool pmi2_expect_ready(std::string_view response);
  void pmi2_fullinit(std::string_view response, const WireMessage& message);
  void pmi2_kvs_put(std::string_view response, const WireMessage& message);
  void pmi2_kvs_get(std::string_view response, const WireMessage& message);
  void pmi2_info_getjobattr(std::string_view response, const WireMessage& message);
  void pmi2_abort(const WireMessage& message);
  // Both: the rank finalized; answers `response` with rc=0.
  void finalize(std::string_view response);
  void reply(std::string_view command, Pairs pairs);
  void refuse(std::string_view response_command, std::string_view why);
  void enter_barrier(std::string_view response_command);
  std::optional<std::string> lookup(std::string_view key) const;
  void fail(Message why);

  RankIdentity identity_;
  StreamDecoder decoder_;
  State state_ = State::AwaitingInit;
  bool initacked_ = false;
  bool in_barrier_ = false;
  std::uint64_t next_epoch_ = 0;
  /* The reply barrier_done() sends ("barrier_out" or "kvs-fence-response"). */
  std::string barrier_response_;
  Kvs pending_;
  std::shared_ptr<const Kvs> merged_ = std::make_shared<const Kvs>();
  std::string output_;
  std::vector<SessionEvent> events_;
};

}  // namespace orca::pmi

#endif
