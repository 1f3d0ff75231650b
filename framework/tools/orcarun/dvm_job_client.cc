// orcarun --dvm: a job submitted to a running DVM, its output printed.
#include "dvm_job_client.h"

#include "dvm_connection.h"
#include "stdin_forwarder.h"

#include "io/stream_writer.h"
#include "iof/iof_lines.h"
#include "launch/launch_wire.h"
#include "launch/rank_failure.h"

#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace orca::orcarun {
namespace {

class DvmJobClient {
 public:
  DvmJobClient(Process& process, const Options& options, DvmConnection connection)
      : process_(process), options_(options), c_(std::move(connection)) {}

  int run(launch::DvmSubmit submit) {
    open_output();
    c_.oob->on_receive(launch::kTagDvm, [this](ProcessName from, std::span<const std::uint8_t> b) { on_message(from, b); });
    c_.oob->on_peer_lost([this](ProcessName peer, const std::string& why) { lost(peer, why); });
    sigint_ = std::make_unique<SignalWatch>(process_.loop(), SIGINT, [this] { on_signal(SIGINT); });
    sigterm_ = std::make_unique<SignalWatch>(process_.loop(), SIGTERM, [this] { on_signal(SIGTERM); });
    submit.client_uri = c_.oob->contact_uri();
    submit_stdin_ = submit.stdin_target;
    auto bytes = launch::encode(submit);
    if (!bytes) return process_.fail(bytes.error());
    if (Status st = c_.oob->send(c_.controller, launch::kTagDvm, bytes.value()); !st) {
      return process_.fail(dvm_unreachable(c_.file, c_.contact.pid, st.error().summary()));
    }
    process_.loop().run();
    printer_->end_open_line(iof::Stream::Stdout);
    printer_->end_open_line(iof::Stream::Stderr);
    out_->flush_blocking();
    err_->flush_blocking();
    return status_;
  }

 private:
  void open_output() {
    out_ = std::make_unique<StreamWriter>(
        process_.loop(), 1,
        StreamWriter::Hooks{.written = [this](std::uint32_t, std::uint64_t n) { credit(n); },
                            .broken = [this] { finish(128 + SIGPIPE); }});
    err_ = std::make_unique<StreamWriter>(
        process_.loop(), 2, StreamWriter::Hooks{.written = [this](std::uint32_t, std::uint64_t n) { credit(n); }, .broken = {}});
    auto sink = [this](StreamWriter& w) {
      return [this, &w](std::string_view t) { w.write(t, 0, std::exchange(printing_credit_, 0)); };
    };
    printer_ = std::make_unique<iof::OutputPrinter>(
        iof::OutputPrinter::Sinks{.out = sink(*out_), .err = sink(*err_)}, options_.tag_output,
        options_.timestamp_output ? iof::local_time_of_day : std::function<std::string()>());
  }

  // What was written goes back to the controller, which credits the
  // daemons that sent it.
  void credit(std::uint64_t bytes) {
    if (job_ == 0 || done_) return;
    send(launch::OutputCredit{.job = job_, .bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes, UINT32_MAX))});
  }

  void send(const launch::WireMessage& message) {
    auto bytes = launch::encode(message);
    if (bytes) (void)c_.oob->send(c_.controller, launch::kTagDvm, bytes.value());
  }

  void on_message(ProcessName from, std::span<const std::uint8_t> bytes) {
    if (from != c_.controller || done_) return;
    auto m = launch::decode(bytes);
    if (!m) return;
    if (auto* state = std::get_if<launch::DvmJobState>(&m.value())) {
      if (job_ == 0) job_ = state->job;
      if (state->job != job_) return;
      if (state->ended) {
        finish(state->exit_status);
      } else if (state->started) {
        forward_stdin(state->ranks);
      }
    } else if (auto* taken = std::get_if<launch::StdinCredit>(&m.value())) {
      if (stdin_ && taken->job == job_) stdin_->credit(taken->bytes);
    } else if (auto* chunk = std::get_if<launch::OutputChunk>(&m.value())) {
      if (chunk->job != job_) return;
      const std::string_view text(reinterpret_cast<const char*>(chunk->bytes.data()), chunk->bytes.size());
      printing_credit_ = chunk->bytes.size();
      printer_->print(chunk->rank, chunk->stream == launch::Stream::Stdout ? iof::Stream::Stdout : iof::Stream::Stderr,
                      text, chunk->partial);
      if (printing_credit_ > 0) credit(std::exchange(printing_credit_, 0));  // nothing was written (an empty chunk)
    } else if (auto* said = std::get_if<launch::JobFailure>(&m.value())) {
      if (said->job == job_ || job_ == 0) show(launch::job_failure_message(*said));
    }
  }

  // orcarun's stdin goes to the controller, which passes it on to the
  // daemons of the ranks that read it; their credit comes back the same way.
  void forward_stdin(std::uint32_t ranks) {
    const std::int32_t target = submit_stdin_;
    if (target == launch::kStdinNone || stdin_ || (target >= 0 && static_cast<std::uint32_t>(target) >= ranks)) return;
    outbox_ = std::make_unique<oob::Outbox>(*c_.oob);
    stdin_ = std::make_unique<StdinForwarder>(process_.loop(), *outbox_, std::vector<ProcessName>{c_.controller},
                                              target == launch::kStdinAll ? ranks : 1, job_, launch::kTagDvm);
  }

  void show(const Message& message) {
    printer_->end_open_line(iof::Stream::Stderr);
    printer_->end_open_line(iof::Stream::Stdout);
    std::ostringstream text;
    process_.runtime().help().show(message, text, true);
    err_->write(text.str());
  }

  // SIGINT or SIGTERM: to this job's ranks alone, through the controller.
  // A job still waiting for slots is simply left: the controller drops it
  // when this client goes.
  void on_signal(int signo) {
    if (job_ == 0 || done_) {
      finish(128 + signo);
      return;
    }
    send(launch::SignalRanks{.job = job_, .signal = signo});
  }

  void lost(ProcessName peer, const std::string& why) {
    if (peer != c_.controller || done_) return;
    // Before its job was taken, the DVM refused or never answered this
    // client (a handshake that failed: another DVM's secret, say).
    show(job_ == 0 ? dvm_unreachable(c_.file, c_.contact.pid, why)
                   : Message("orcarun", "dvm-lost", {{"file", c_.file}, {"pid", std::to_string(c_.contact.pid)}, {"why", why}}));
    finish(1);
  }

  void finish(int status) {
    if (done_) return;
    done_ = true;
    status_ = status;
    process_.loop().stop();
  }

  Process& process_;
  const Options& options_;
  DvmConnection c_;
  std::unique_ptr<StreamWriter> out_;
  std::unique_ptr<StreamWriter> err_;
  std::unique_ptr<iof::OutputPrinter> printer_;
  std::uint64_t printing_credit_ = 0;
  std::unique_ptr<SignalWatch> sigint_;
  std::unique_ptr<SignalWatch> sigterm_;
  std::unique_ptr<oob::Outbox> outbox_;  // before stdin_, which posts to it
  std::unique_ptr<StdinForwarder> stdin_;
  std::int32_t submit_stdin_ = launch::kStdinNone;
  std::uint32_t job_ = 0;
  bool done_ = false;
  int status_ = 1;
};

std::int32_t stdin_target(const Options& o) {
  switch (o.stdin_target) {
    case StdinTarget::None: return launch::kStdinNone;
    case StdinTarget::All: return launch::kStdinAll;
    case StdinTarget::Rank: break;
  }
  return static_cast<std::int32_t>(o.stdin_rank);
}

launch::DvmSubmit submission(const Options& options, const JobPlan& plan) {
  launch::DvmSubmit s{.apps = plan.apps,
                      .environment = plan.environment,
                      .map_by = options.map_by == MapBy::Node ? "node" : "slot",
                      .per_node = options.per_node.value_or(0),
                      .oversubscribe = options.oversubscribe,
                      .wait = !options.dvm_no_wait,
                      .stdin_target = stdin_target(options),
                      .merge_stderr = options.merge_stderr,
                      .pmi_left_out = plan.pmi_left_out,
                      .torch_master = plan.torch_master};
  for (const auto& app : options.apps) s.app_processes.push_back(app.processes.value_or(0));
  if (options.timeout_seconds) s.timeout_ms = static_cast<std::uint64_t>(*options.timeout_seconds * 1000.0);
  return s;
}

}  // namespace

bool runs_on_dvm(const Options& o) {
  const char* env = std::getenv("ORCA_DVM");
  return o.dvm || o.dvm_uri || (env != nullptr && *env != '\0');
}

int run_on_dvm(Process& process, const Options& options, const JobPlan& plan) {
  auto file = locate_dvm_contact(options.dvm_uri);
  if (!file) return process.fail(file.error());
  auto connection = connect_dvm(process, file.value());
  if (!connection) return process.fail(connection.error());
  DvmJobClient client(process, options, std::move(connection.value()));
  return client.run(submission(options, plan));
}

}  // namespace orca::orcarun
