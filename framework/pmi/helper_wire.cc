// The daemon <-> PMI helper messages and their codec.
#include "helper_wire.h"

#include <optional>
#include <type_traits>

namespace orca::pmi {
namespace {

enum Kind : std::uint8_t {
  kWarmUp = 1,
  kJobStart,
  kRankState,
  kRelease,
  kDeliver,
  kJobEnd,
  kJobStarted = 20,
  kContribute,
  kRankEvent,
  kSend,
  kLog,
  kOverBound,
  kWarmedUp,
  kEndedSeen,
};

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  }
  void u64(std::uint64_t v) {
    u32(static_cast<std::uint32_t>(v >> 32));
    u32(static_cast<std::uint32_t>(v));
  }
  void text(const std::string& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    out_.insert(out_.end(), v.begin(), v.end());
  }
  void numbers(const std::vector<std::uint32_t>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (std::uint32_t n : v) u32(n);
  }
  void texts(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& t : v) text(t);
  }
  void pairs(const std::vector<std::pair<std::string, std::string>>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& [a, b] : v) {
      text(a);
      text(b);
    }
  }
  void job(const HelperJob& j) {
    u32(j.job);
    text(j.name);
    u32(j.size);
    u32(j.node);
    u32(j.node_count);
    numbers(j.rank_node);
    numbers(j.local_rank);
    texts(j.node_host);
    u64(j.max_keys);
    u64(j.max_bytes);
    numbers(j.rank_app);
    u32(j.app_count);
    text(j.directory);
    text(j.directory_error);
  }
  std::vector<std::uint8_t> frame() {
    const auto n = static_cast<std::uint32_t>(out_.size() - 4);
    for (int i = 0; i < 4; ++i) out_[i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
    return std::move(out_);
  }

 private:
  std::vector<std::uint8_t> out_ = std::vector<std::uint8_t>(4, 0);  // the length, filled in by frame()
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  bool ok() const noexcept { return ok_; }
  bool done() const noexcept { return ok_ && at_ == in_.size(); }
  std::uint8_t u8() {
    if (!need(1)) return 0;
    return in_[at_++];
  }
  std::uint32_t u32() {
    if (!need(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | in_[at_++];
    return v;
  }
  std::uint64_t u64() {
    const std::uint64_t high = u32();
    return (high << 32) | u32();
  }
  std::string text() {
    const std::uint32_t n = u32();
    if (!need(n)) return {};
    std::string v(reinterpret_cast<const char*>(in_.data() + at_), n);
    at_ += n;
    return v;
  }
  // A count of items of at least `least` bytes each: never more than the
  // rest could hold, so that a lying count allocates nothing.
  std::uint32_t count(std::size_t least) {
    const std::uint32_t n = u32();
    if (ok_ && n > (in_.size() - at_) / least) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<std::uint32_t> numbers() {
    std::vector<std::uint32_t> v(count(4));
    for (auto& n : v) n = u32();
    return v;
  }
  std::vector<std::string> texts() {
    std::vector<std::string> v(count(4));
    for (auto& t : v) t = text();
    return v;
  }
  std::vector<std::pair<std::string, std::string>> pairs() {
    std::vector<std::pair<std::string, std::string>> v(count(8));
    for (auto& [a, b] : v) {
      a = text();
      b = text();
    }
    return v;
  }
  HelperJob job() {
    HelperJob j;
    j.job = u32();
    j.name = text();
    j.size = u32();
    j.node = u32();
    j.node_count = u32();
    j.rank_node = numbers();
    j.local_rank = numbers();
    j.node_host = texts();
    j.max_keys = u64();
    j.max_bytes = u64();
    j.rank_app = numbers();
    j.app_count = u32();
    j.directory = text();
    j.directory_error = text();
    return j;
  }

 private:
  bool need(std::size_t n) {
    if (ok_ && in_.size() - at_ < n) ok_ = false;
    return ok_;
  }
  std::span<const std::uint8_t> in_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

Message malformed(const std::string& why) { return Message("pmi", "helper-malformed", {{"why", why}}); }

// A job's arrays must match its counts: the module indexes them by rank
// and node.
bool consistent(const HelperJob& j) {
  const auto sized = [&](const std::vector<std::uint32_t>& v) { return v.empty() || v.size() == j.size; };
  if (!sized(j.rank_node) || !sized(j.local_rank) || !sized(j.rank_app)) return false;
  if (j.node_host.size() != j.node_count || (j.node_count > 0 && j.node >= j.node_count)) return false;
  for (std::uint32_t n : j.rank_node) {
    if (n >= j.node_count) return false;
  }
  for (std::uint32_t a : j.rank_app) {
    if (a >= j.app_count) return false;
  }
  return true;
}

}  // namespace

HelperJob helper_job_of(const orca_pmi_job& job) {
  HelperJob j{.job = job.job,
              .name = job.name != nullptr ? job.name : "",
              .size = job.size,
              .node = job.node,
              .node_count = job.node_count,
              .max_keys = job.max_keys,
              .max_bytes = job.max_bytes,
              .app_count = job.app_count};
  if (job.rank_node != nullptr) j.rank_node.assign(job.rank_node, job.rank_node + job.size);
  if (job.local_rank != nullptr) j.local_rank.assign(job.local_rank, job.local_rank + job.size);
  if (job.rank_app != nullptr) j.rank_app.assign(job.rank_app, job.rank_app + job.size);
  for (std::uint32_t n = 0; n < job.node_count && job.node_host != nullptr; ++n) {
    j.node_host.emplace_back(job.node_host[n] != nullptr ? job.node_host[n] : "");
  }
  return j;
}

HelperJobView::HelperJobView(const HelperJob& j) {
  for (const auto& h : j.node_host) hosts.push_back(h.c_str());
  job = orca_pmi_job{.job = j.job,
                     .name = j.name.c_str(),
                     .size = j.size,
                     .node = j.node,
                     .node_count = j.node_count,
                     .rank_node = j.rank_node.empty() ? nullptr : j.rank_node.data(),
                     .local_rank = j.local_rank.empty() ? nullptr : j.local_rank.data(),
                     .node_host = hosts.data(),
                     .max_keys = j.max_keys,
                     .max_bytes = j.max_bytes,
                     .rank_app = j.rank_app.empty() ? nullptr : j.rank_app.data(),
                     .app_count = j.app_count};
}

HelperEntries helper_entries_of(const orca_pmi_entry* entries, size_t count) {
  HelperEntries data;
  data.entries.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    data.entries.emplace_back(std::string(entries[i].key, entries[i].key_length),
                              std::string(reinterpret_cast<const char*>(entries[i].value), entries[i].value_length));
  }
  return data;
}

std::vector<orca_pmi_entry> entries_view(const HelperEntries& data) {
  std::vector<orca_pmi_entry> out;
  out.reserve(data.entries.size());
  for (const auto& [key, value] : data.entries) {
    out.push_back({.key = key.data(),
                   .key_length = key.size(),
                   .value = reinterpret_cast<const std::uint8_t*>(value.data()),
                   .value_length = value.size()});
  }
  return out;
}

namespace {

// Each message's fields, in order, once for writing and once for reading.
std::uint8_t kind_of(const HelperWarmUp&) { return kWarmUp; }
void put(Writer& w, const HelperWarmUp& m) { w.job(m.job); }
void take(Reader& r, HelperWarmUp& m) { m.job = r.job(); }

std::uint8_t kind_of(const HelperJobStart&) { return kJobStart; }
void put(Writer& w, const HelperJobStart& m) {
  w.u32(m.id);
  w.job(m.job);
}
void take(Reader& r, HelperJobStart& m) {
  m.id = r.u32();
  m.job = r.job();
}

std::uint8_t kind_of(const HelperRankState&) { return kRankState; }
void put(Writer& w, const HelperRankState& m) {
  w.u32(m.id);
  w.u32(m.rank);
  w.u8(m.kind);
}
void take(Reader& r, HelperRankState& m) {
  m.id = r.u32();
  m.rank = r.u32();
  m.kind = r.u8();
}

// A collective's data one way (Release) and the other (Contribute); bytes
// from another node (Deliver) and for one (Send): the same fields.
template <typename T>
concept EpochData = std::is_same_v<T, HelperRelease> || std::is_same_v<T, HelperContribute>;
template <typename T>
concept NodeBytes = std::is_same_v<T, HelperDeliver> || std::is_same_v<T, HelperSend>;

std::uint8_t kind_of(const HelperRelease&) { return kRelease; }
std::uint8_t kind_of(const HelperContribute&) { return kContribute; }
template <EpochData T>
void put(Writer& w, const T& m) {
  w.u32(m.id);
  w.u64(m.epoch);
  w.pairs(m.data.entries);
}
template <EpochData T>
void take(Reader& r, T& m) {
  m.id = r.u32();
  m.epoch = r.u64();
  m.data.entries = r.pairs();
}

std::uint8_t kind_of(const HelperDeliver&) { return kDeliver; }
std::uint8_t kind_of(const HelperSend&) { return kSend; }
template <NodeBytes T>
void put(Writer& w, const T& m) {
  w.u32(m.id);
  w.u32(m.node);
  w.text(m.bytes);
}
template <NodeBytes T>
void take(Reader& r, T& m) {
  m.id = r.u32();
  m.node = r.u32();
  m.bytes = r.text();
}

std::uint8_t kind_of(const HelperJobEnd&) { return kJobEnd; }
void put(Writer& w, const HelperJobEnd& m) { w.u32(m.id); }
void take(Reader& r, HelperJobEnd& m) { m.id = r.u32(); }

std::uint8_t kind_of(const HelperWarmedUp&) { return kWarmedUp; }
void put(Writer& w, const HelperWarmedUp& m) {
  w.u8(m.ok ? 1 : 0);
  w.text(m.why);
}
void take(Reader& r, HelperWarmedUp& m) {
  m.ok = r.u8() != 0;
  m.why = r.text();
}

std::uint8_t kind_of(const HelperJobStarted&) { return kJobStarted; }
void put(Writer& w, const HelperJobStarted& m) {
  w.u32(m.id);
  w.u8(m.ok ? 1 : 0);
  w.text(m.why);
  w.u32(static_cast<std::uint32_t>(m.ranks.size()));
  for (const auto& p : m.ranks) {
    w.u32(p.rank);
    w.u8(p.ok ? 1 : 0);
    w.text(p.why);
    w.pairs(p.environment);
  }
}
void take(Reader& r, HelperJobStarted& m) {
  m.id = r.u32();
  m.ok = r.u8() != 0;
  m.why = r.text();
  m.ranks.resize(r.count(13));  // a rank, a flag and two counts at least
  for (auto& p : m.ranks) {
    p.rank = r.u32();
    p.ok = r.u8() != 0;
    p.why = r.text();
    p.environment = r.pairs();
  }
}

std::uint8_t kind_of(const HelperEndedSeen&) { return kEndedSeen; }
void put(Writer& w, const HelperEndedSeen& m) {
  w.u32(m.id);
  w.u32(m.rank);
}
void take(Reader& r, HelperEndedSeen& m) {
  m.id = r.u32();
  m.rank = r.u32();
}

std::uint8_t kind_of(const HelperRankEvent&) { return kRankEvent; }
void put(Writer& w, const HelperRankEvent& m) {
  w.u32(m.id);
  w.u32(m.rank);
  w.u32(m.event);
  w.u32(static_cast<std::uint32_t>(m.status));
  w.text(m.text);
}
void take(Reader& r, HelperRankEvent& m) {
  m.id = r.u32();
  m.rank = r.u32();
  m.event = r.u32();
  m.status = static_cast<std::int32_t>(r.u32());
  m.text = r.text();
}

std::uint8_t kind_of(const HelperLog&) { return kLog; }
void put(Writer& w, const HelperLog& m) {
  w.u32(m.id);
  w.u32(static_cast<std::uint32_t>(m.level));
  w.text(m.text);
}
void take(Reader& r, HelperLog& m) {
  m.id = r.u32();
  m.level = static_cast<std::int32_t>(r.u32());
  m.text = r.text();
}

std::uint8_t kind_of(const HelperOverBound&) { return kOverBound; }
void put(Writer& w, const HelperOverBound& m) {
  w.u32(m.id);
  w.u32(m.rank);
  w.u32(m.which);
  w.u64(m.total);
}
void take(Reader& r, HelperOverBound& m) {
  m.id = r.u32();
  m.rank = r.u32();
  m.which = r.u32();
  m.total = r.u64();
}

// The alternative of HelperMessage with kind `kind`, default-made; false
// for no kind of ours.
template <std::size_t I = 0>
bool make_of_kind(std::uint8_t kind, HelperMessage& m) {
  if constexpr (I < std::variant_size_v<HelperMessage>) {
    using T = std::variant_alternative_t<I, HelperMessage>;
    if (kind_of(T{}) == kind) {
      m.emplace<I>();
      return true;
    }
    return make_of_kind<I + 1>(kind, m);
  } else {
    return false;
  }
}

// What decode checks beyond the fields' shapes.
std::optional<std::string> invalid(const HelperMessage& m) {
  if (const auto* s = std::get_if<HelperRankState>(&m);
      s != nullptr && (s->kind < HelperRankState::kStarted || s->kind > HelperRankState::kEnded)) {
    return "an unknown rank state";
  }
  const HelperJob* job = nullptr;
  if (const auto* s = std::get_if<HelperJobStart>(&m)) job = &s->job;
  if (const auto* s = std::get_if<HelperWarmUp>(&m)) job = &s->job;
  if (job != nullptr && !consistent(*job)) return "a job whose arrays do not match its counts";
  return std::nullopt;
}

}  // namespace

std::vector<std::uint8_t> encode_helper(const HelperMessage& message) {
  Writer w;
  std::visit(
      [&w](const auto& m) {
        w.u8(kind_of(m));
        put(w, m);
      },
      message);
  return w.frame();
}

Result<HelperMessage> decode_helper(std::span<const std::uint8_t> payload) {
  Reader r(payload);
  HelperMessage m;
  const std::uint8_t kind = r.u8();
  if (!r.ok()) return malformed("an empty frame");
  if (!make_of_kind(kind, m)) return malformed("an unknown kind");
  std::visit([&r](auto& fields) { take(r, fields); }, m);
  if (!r.ok()) return malformed("a field cut short");
  if (!r.done()) return malformed("bytes after the last field");
  if (auto why = invalid(m)) return malformed(*why);
  return m;
}

}  // namespace orca::pmi
