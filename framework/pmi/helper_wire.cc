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

// Both directions of the codec through one list of fields a message
// (fields() below), as launch_wire.cc does: the Writer reads each field,
// the Reader fills it.
class Writer {
 public:
  void u8(const std::uint8_t& v) { out_.push_back(v); }
  void flag(const bool& v) { out_.push_back(v ? 1 : 0); }
  void u32(const std::uint32_t& v) {
    for (int s = 24; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  }
  void i32(const std::int32_t& v) { u32(static_cast<std::uint32_t>(v)); }
  void u64(const std::uint64_t& v) {
    u32(static_cast<std::uint32_t>(v >> 32));
    u32(static_cast<std::uint32_t>(v));
  }
  void text(const std::string& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    out_.insert(out_.end(), v.begin(), v.end());
  }
  template <typename T, typename F>
  void list(const std::vector<T>& v, std::size_t /*least*/, F&& each) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const T& item : v) each(*this, item);
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
  void u8(std::uint8_t& v) { v = need(1) ? in_[at_++] : 0; }
  void flag(bool& v) {
    std::uint8_t b = 0;
    u8(b);
    v = b != 0;
  }
  void u32(std::uint32_t& v) {
    v = 0;
    if (!need(4)) return;
    for (int i = 0; i < 4; ++i) v = (v << 8) | in_[at_++];
  }
  void i32(std::int32_t& v) {
    std::uint32_t u = 0;
    u32(u);
    v = static_cast<std::int32_t>(u);
  }
  void u64(std::uint64_t& v) {
    std::uint32_t high = 0, low = 0;
    u32(high);
    u32(low);
    v = (std::uint64_t{high} << 32) | low;
  }
  void text(std::string& v) {
    std::uint32_t n = 0;
    u32(n);
    v.clear();
    if (!need(n)) return;
    v.assign(reinterpret_cast<const char*>(in_.data() + at_), n);
    at_ += n;
  }
  // A count of items of at least `least` bytes each is never more than
  // the rest could hold, so that a lying count allocates nothing.
  template <typename T, typename F>
  void list(std::vector<T>& v, std::size_t least, F&& each) {
    std::uint32_t n = 0;
    u32(n);
    if (ok_ && n > (in_.size() - at_) / least) ok_ = false;
    v.assign(ok_ ? n : 0, T{});
    for (T& item : v) each(*this, item);
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

// V, J: const for the Writer, not for the Reader.
template <typename IO, typename V>
void numbers(IO& io, V& v) {
  io.list(v, 4, [](IO& i, auto& n) { i.u32(n); });
}
template <typename IO, typename V>
void texts(IO& io, V& v) {
  io.list(v, 4, [](IO& i, auto& t) { i.text(t); });
}
template <typename IO, typename V>
void pairs(IO& io, V& v) {
  io.list(v, 8, [](IO& i, auto& p) {
    i.text(p.first);
    i.text(p.second);
  });
}
template <typename IO, typename J>
void job(IO& io, J& j) {
  io.u32(j.job);
  io.text(j.name);
  io.u32(j.size);
  io.u32(j.node);
  io.u32(j.node_count);
  numbers(io, j.rank_node);
  numbers(io, j.local_rank);
  texts(io, j.node_host);
  io.u64(j.max_keys);
  io.u64(j.max_bytes);
  numbers(io, j.rank_app);
  io.u32(j.app_count);
  io.text(j.directory);
  io.text(j.directory_error);
}

// Each message's kind and fields, in order.
template <typename IO, typename M>
std::uint8_t fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, HelperWarmUp>) {
    job(io, m.job);
    return kWarmUp;
  } else if constexpr (std::is_same_v<T, HelperJobStart>) {
    io.u32(m.id);
    job(io, m.job);
    return kJobStart;
  } else if constexpr (std::is_same_v<T, HelperRankState>) {
    io.u32(m.id);
    io.u32(m.rank);
    io.u8(m.kind);
    return kRankState;
  } else if constexpr (std::is_same_v<T, HelperRelease> || std::is_same_v<T, HelperContribute>) {
    io.u32(m.id);
    io.u64(m.epoch);
    pairs(io, m.data.entries);
    return std::is_same_v<T, HelperRelease> ? kRelease : kContribute;
  } else if constexpr (std::is_same_v<T, HelperDeliver> || std::is_same_v<T, HelperSend>) {
    io.u32(m.id);
    io.u32(m.node);
    io.text(m.bytes);
    return std::is_same_v<T, HelperDeliver> ? kDeliver : kSend;
  } else if constexpr (std::is_same_v<T, HelperJobEnd>) {
    io.u32(m.id);
    return kJobEnd;
  } else if constexpr (std::is_same_v<T, HelperWarmedUp>) {
    io.flag(m.ok);
    io.text(m.why);
    return kWarmedUp;
  } else if constexpr (std::is_same_v<T, HelperJobStarted>) {
    io.u32(m.id);
    io.flag(m.ok);
    io.text(m.why);
    io.list(m.ranks, 13, [](IO& i, auto& p) {  // a rank, a flag and two counts at least
      i.u32(p.rank);
      i.flag(p.ok);
      i.text(p.why);
      pairs(i, p.environment);
    });
    return kJobStarted;
  } else if constexpr (std::is_same_v<T, HelperEndedSeen>) {
    io.u32(m.id);
    io.u32(m.rank);
    return kEndedSeen;
  } else if constexpr (std::is_same_v<T, HelperRankEvent>) {
    io.u32(m.id);
    io.u32(m.rank);
    io.u32(m.event);
    io.i32(m.status);
    io.text(m.text);
    return kRankEvent;
  } else if constexpr (std::is_same_v<T, HelperLog>) {
    io.u32(m.id);
    io.i32(m.level);
    io.text(m.text);
    return kLog;
  } else {
    static_assert(std::is_same_v<T, HelperOverBound>);
    io.u32(m.id);
    io.u32(m.rank);
    io.u32(m.which);
    io.u64(m.total);
    return kOverBound;
  }
}

// The kind of each alternative, without writing anything.
template <typename T>
std::uint8_t kind_of() {
  Writer scratch;
  T m{};
  return fields(scratch, m);
}

// The alternative of HelperMessage with kind `kind`, default-made; false
// for no kind of ours.
template <std::size_t I = 0>
bool make_of_kind(std::uint8_t kind, HelperMessage& m) {
  if constexpr (I < std::variant_size_v<HelperMessage>) {
    if (kind_of<std::variant_alternative_t<I, HelperMessage>>() == kind) {
      m.emplace<I>();
      return true;
    }
    return make_of_kind<I + 1>(kind, m);
  } else {
    return false;
  }
}

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
        w.u8(kind_of<std::decay_t<decltype(m)>>());
        (void)fields(w, m);
      },
      message);
  return w.frame();
}

Result<HelperMessage> decode_helper(std::span<const std::uint8_t> payload) {
  Reader r(payload);
  HelperMessage m;
  std::uint8_t kind = 0;
  r.u8(kind);
  if (!r.ok()) return malformed("an empty frame");
  if (!make_of_kind(kind, m)) return malformed("an unknown kind");
  std::visit([&r](auto& message) { (void)fields(r, message); }, m);
  if (!r.ok()) return malformed("a field cut short");
  if (!r.done()) return malformed("bytes after the last field");
  if (auto why = invalid(m)) return malformed(*why);
  return m;
}

}  // namespace orca::pmi
