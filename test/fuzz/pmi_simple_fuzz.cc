// The simple PMI wire codec and session (components/pmi/simple/simple_*.h), as
// orcad meets them: whatever bytes a rank writes to its PMI_FD, in
// whatever reads the kernel hands over.
//
// Input: one mode byte, then the client's bytes. The mode byte seeds the
// chunk sizes (1..64 bytes) and, with its top bit, holds barriers until the
// end instead of releasing them before the next chunk.
// Checks:
//   - a standalone StreamDecoder: every message it yields formats again
//     and decodes back to itself; after a failure it stays failed;
//   - the session: everything it writes decodes as a client would read it
//     (PMI-1 lines, switching to PMI-2 after a version-2 response_to_init)
//     and fits the bounds; barrier epochs count 0, 1, 2...; nothing happens
//     after abort or a protocol failure; it initializes at most once, before
//     any barrier or finalize; barrier_done succeeds exactly while
//     the rank is in a barrier.
#include "pmi/simple/simple_session.h"
#include "pmi/simple/simple_wire.h"

#include "fuzz_input.h"

#include <string>
#include <variant>

namespace orca::pmi {
namespace {

using fuzz::fuzz_require;

void check_round_trip(StreamDecoder& decoder, std::string_view bytes) {
  const bool was_failed = decoder.failed();
  auto out = decoder.feed(bytes);
  if (!out) {
    fuzz_require(decoder.failed(), "a decoder error that did not stick");
    fuzz_require(!out.error().arg("problem").empty(), "a decoder error without the problem");
    return;
  }
  fuzz_require(!was_failed, "a failed decoder decoded again");
  const Framing framing = decoder.framing().value_or(Framing::Pmi1);
  for (const auto& m : out.value()) {
    if (m.multi_command) continue;
    auto again = format(framing, m);
    if (!again) {
      // Only a PMI-2 body at the bound without its last ';' may grow past it.
      fuzz_require(framing == Framing::Pmi2, "a decoded PMI-1 line does not format");
      continue;
    }
    StreamDecoder back(framing);
    auto decoded = back.feed(again.value());
    fuzz_require(decoded.ok(), "a formatted message does not decode");
    fuzz_require(decoded.value().size() == 1 && decoded.value().front() == m,
                 "a message does not survive format and decode");
  }
}

/* Reads the session's output the way a client does. */
struct Client {
  StreamDecoder decoder;  // the session answers in the framing the rank chose

  void read(const std::string& bytes) {
    decoder.append(bytes);
    while (true) {
      auto next = decoder.next();
      fuzz_require(next.ok(), "the session wrote bytes a client cannot decode");
      if (!next.value()) break;
      const WireMessage& m = *next.value();
      const std::string* version = m.find("pmi_version");
      const std::string* rc = m.find("rc");
      if (decoder.framing() == Framing::Pmi1 && m.command == "response_to_init" && version && *version == "2" &&
          rc && *rc == "0") {
        decoder.set_framing(Framing::Pmi2);
      }
    }
    fuzz_require(decoder.buffered() == 0, "the session wrote part of a message");
  }
};

struct Job {
  SimpleSession session{RankIdentity{.rank = 1,
                                     .size = 4,
                                     .appnum = 0,
                                     .universe_size = 4,
                                     .kvsname = "kvs_7",
                                     .process_mapping = "(vector,(0,2,2))"}};
  Client client;
  Kvs kvs;
  std::uint64_t next_epoch = 0;
  bool ended = false;  // aborted or failed
  int finalized = 0;
  int initialized = 0;

  void drain() {
    client.read(session.take_output());
    for (auto& event : session.take_events()) {
      fuzz_require(!ended, "an event after abort or a protocol failure");
      if (auto* b = std::get_if<BarrierEntered>(&event)) {
        fuzz_require(b->epoch == next_epoch++, "barrier epochs out of order");
        for (auto& [k, v] : b->puts) {
          fuzz_require(k.size() <= kMaxKeyBytes && v.size() <= kMaxValueBytes, "a put over the bounds");
          kvs[k] = v;
        }
      } else if (std::holds_alternative<Finalized>(event)) {
        fuzz_require(++finalized == 1, "finalized twice");
      } else if (std::holds_alternative<Initialized>(event)) {
        fuzz_require(++initialized == 1, "initialized twice");
        fuzz_require(next_epoch == 0 && finalized == 0, "initialized after a barrier or finalize");
      } else {
        ended = true;
      }
    }
  }

  void release() {
    const bool waiting = session.in_barrier();
    const auto done = session.barrier_done(kvs);
    const bool live = session.state() != SimpleSession::State::Aborted &&
                      session.state() != SimpleSession::State::Failed;
    if (live) fuzz_require(done.ok() == waiting, "barrier_done disagrees with in_barrier");
    fuzz_require(!session.in_barrier(), "still in the barrier after barrier_done");
    drain();
  }
};

}  // namespace
}  // namespace orca::pmi

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  using namespace orca::pmi;
  orca::fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.byte();
  const bool hold_barriers = (mode & 0x80) != 0;
  std::uint32_t state = 0x9e3779b9U ^ mode;
  const std::string_view bytes = in.rest_text();

  StreamDecoder standalone;
  Job job;
  std::size_t at = 0;
  while (at < bytes.size()) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    const std::size_t n = std::min<std::size_t>(1 + state % 64, bytes.size() - at);
    const std::string_view chunk = bytes.substr(at, n);
    at += n;
    check_round_trip(standalone, chunk);
    if (!hold_barriers && job.session.in_barrier()) job.release();
    job.session.receive(chunk);
    job.drain();
  }
  job.release();
  return 0;
}
