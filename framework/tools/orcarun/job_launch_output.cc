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
