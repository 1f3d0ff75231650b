// SimpleServer: pmi/simple's side of one job on one daemon. Each local
// rank gets one end of a socketpair as PMI_FD; the server reads what the
// rank writes, lets the rank's SimpleSession answer, writes the answers
// back, and gathers the node's part of every barrier (NodeKvs): when every
// local rank entered barrier `e`, their puts go to the host (contribute);
// the host's release(e) adds the whole job's puts to the KVS every local
// rank reads and lets them all out. A rank whose puts would take the
// job's KVS past its bound is reported to the host (over_bound), which
// ends the job.
//
// A rank's connection ends when the rank breaks the protocol (after the
// last error reply is written), when its replies pile up unread past
// kMaxUnreadReply, or when the rank ends. Nothing here throws into the
// event loop; a failure is a rank event.
#ifndef ORCA_COMPONENTS_PMI_SIMPLE_SIMPLE_SERVER_H
#define ORCA_COMPONENTS_PMI_SIMPLE_SIMPLE_SERVER_H

#include "node_kvs.h"
#include "simple_session.h"

#include <orca/event_loop.h>
#include <orca/pmi.h>
#include <orca/unique_fd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace orca::pmi {

class SimpleServer {
 public:
  /* Replies a rank leaves unread beyond this end its connection. */
  static constexpr std::size_t kMaxUnreadReply = 4u << 20;

  SimpleServer(const orca_pmi_host& host, const orca_pmi_job& job);
  ~SimpleServer();
  SimpleServer(const SimpleServer&) = delete;
  SimpleServer& operator=(const SimpleServer&) = delete;

  /* The rank's end of a new socketpair (kept open until started()) and
   * its environment. Errors: not a rank of this node, socketpair failed. */
  /* started(rank, false): the rank never ran; the node's barriers stop
   * waiting for it. */
  Status prepare(std::uint32_t rank, const orca_pmi_environment& env, int* inherit);
  void started(std::uint32_t rank, bool ok);
  void ended(std::uint32_t rank);
  /* The job's data of barrier `epoch`: moved into the KVS. */
  void release(std::uint64_t epoch, Kvs entries);
  /* pmi/simple has no traffic between daemons: every get is answered here. */
  void deliver(std::uint32_t, std::span<const std::uint8_t>) {}

 private:
  struct Connection;
  void readable(Connection& c);
  void writable(Connection& c);
  void after_input(Connection& c);
  void contribute(const NodeKvs::Part& part);
  void flush(Connection& c);
  void close(Connection& c);
  void event(std::uint32_t rank, orca_pmi_rank_event what, int status, const std::string& text);
  void log(int level, const std::string& text);

  orca_pmi_host host_;
  EventLoop loop_;
  std::uint32_t size_ = 0;
  std::uint32_t node_ = 0;
  std::string name_;
  std::string mapping_;
  std::vector<std::uint32_t> rank_node_;
  std::vector<std::uint32_t> rank_app_;  // each rank's appnum (empty: all 0)
  std::map<std::uint32_t, std::unique_ptr<Connection>> ranks_;
  /* The job's KVS and this node's barriers: its ranks that take part are
   * all, less those that could not be started. */
  NodeKvs kvs_;
};

}  // namespace orca::pmi

#endif
