// JobLaunch: what reaches the user's terminal: the ranks' output (and the
// credit that lets more come), orcarun's own messages, the progress line.
#include "job_launch.h"

#include <algorithm>
#include <climits>
#include <iostream>
#include <sstream>

namespace orca::orcarun {

void JobLaunch::on_output(ProcessName from, std::span<const std::uint8_t> bytes) {
  auto m = launch::decode(bytes);
  if (!m) return;
  if (launch::job_of(m.value()) != 0) {
    if (held_ && hold_->job_message) hold_->job_message(from, std::move(m.value()));
    return;
  }
  auto* chunk = std::get_if<launch::OutputChunk>(&m.value());
  if (!chunk || from.vpid == 0 || from.vpid > daemons()) return;
  const std::string_view text(reinterpret_cast<const char*>(chunk->bytes.data()), chunk->bytes.size());
  if (plan_.output_files) {
    // Written at once: the daemon's credit comes back with no writer's queue.
    const auto stream = chunk->stream == launch::Stream::Stdout ? OutputFiles::Stream::Stdout : OutputFiles::Stream::Stderr;
    // A rank of the job only: no file is made for a number a daemon got wrong.
    if (!output_files_failed_ && chunk->rank < plan_.ranks.placements.size()) {
      if (Status st = plan_.output_files->write(chunk->rank, stream, text); !st) {
        output_files_failed_ = true;
        machine_->fail_and_stop_ranks(st.error(), 1);
      }
    }
    output_written(from.vpid, chunk->bytes.size());
    return;
  }
  // print() makes one sink write of a chunk that is not empty; the sink
  // takes the credit with it.
  printing_from_ = from.vpid;
  printing_credit_ = chunk->bytes.size();
  printer_->print(chunk->rank, chunk->stream == launch::Stream::Stdout ? iof::Stream::Stdout : iof::Stream::Stderr, text,
                  chunk->partial);
  printing_from_ = 0;
  printing_credit_ = 0;
}

void JobLaunch::show(const Message& message) {
  if (printer_) {
    printer_->end_open_line(iof::Stream::Stderr);
    printer_->end_open_line(iof::Stream::Stdout);
  }
  clear_progress_line();
  std::ostringstream text;
  process_.runtime().help().show(message, text, true);
  say(text.str());
}

void JobLaunch::open_output() {
  // The ranks' output: every chunk's bytes are credited to its daemon
  // once written; a stdout nobody reads any more ends the job, a stderr
  // nobody reads only loses what goes there.
  out_ = std::make_unique<StreamWriter>(
      process_.loop(), 1,
      StreamWriter::Hooks{.written = [this](std::uint32_t v, std::uint64_t n) { output_written(v, n); },
                          .broken = [this] { machine_->output_broken(); }});
  err_ = std::make_unique<StreamWriter>(
      process_.loop(), 2, StreamWriter::Hooks{.written = [this](std::uint32_t v, std::uint64_t n) { output_written(v, n); }, .broken = {}});
  const std::uint64_t window = iof::output_window(plan_.output_buffer, daemons());
  credits_ = std::make_unique<iof::CreditLedger>(window);
  outbox_ = std::make_unique<oob::Outbox>(*oob_);
  auto sink = [this](StreamWriter& w) {
    return [this, &w](std::string_view t) {
      w.write(t, printing_from_, std::exchange(printing_credit_, 0));
    };
  };
  iof::OutputPrinter::Sinks sinks{.out = sink(*out_), .err = sink(*err_)};
  std::function<std::string_view(std::uint32_t)> host_of;
  if (options_.tag_host) {
    // Each node's name as printed, made once: every tagged line reads it.
    for (std::uint32_t v = 1; v <= daemons(); ++v) tag_hosts_.push_back(printable(daemon_[v].host));
    host_of = [this](std::uint32_t rank) -> std::string_view {
      const auto& p = plan_.ranks.placements;
      return rank < p.size() && p[rank].node < tag_hosts_.size() ? std::string_view(tag_hosts_[p[rank].node]) : "?";
    };
  }
  printer_ = std::make_unique<iof::OutputPrinter>(std::move(sinks), options_.tag_output,
                                                  options_.timestamp_output ? iof::local_time_of_day : std::function<std::string()>(),
                                                  std::move(host_of));
}

void JobLaunch::say(std::string_view text) {
  if (err_) {
    err_->write(text);
  } else {
    std::cerr << text;  // before open(): nothing of the job runs yet
  }
}

// A chunk of daemon `vpid`'s output is written: its credit, once a
// quarter window of it is owed (iof/iof_flow.h).
void JobLaunch::output_written(std::uint32_t vpid, std::uint64_t bytes) {
  if (vpid == 0 || vpid > daemons() || machine_->is_gone(vpid)) return;
  auto credit = credits_->written(vpid, bytes);
  if (!credit) return;
  auto encoded = launch::encode(launch::OutputCredit{.bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(*credit, UINT32_MAX))});
  if (encoded) outbox_->post(name(vpid), launch::kTagOutputCredit, std::move(encoded.value()));
}

void JobLaunch::clear_progress_line() {
  if (!progress_shown_) return;
  say("\r\033[K");
  progress_shown_ = false;
}

// Ranks print from the command on, and every daemon is up: no more
// progress line.
void JobLaunch::end_progress() {
  progress_timer_.reset();
  clear_progress_line();
}

}  // namespace orca::orcarun
