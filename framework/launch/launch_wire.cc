// The launcher's messages: one field list per message serves both the
// encoder and the decoder, so the two cannot drift apart.
#include "launch_wire.h"

#include <algorithm>
#include <type_traits>

namespace orca::launch {

namespace {

enum class Kind : std::uint8_t {
  Bootstrap = 1,
  DaemonReport = 2,
  LaunchCommand = 3,
  OutputChunk = 4,
  ExitRecord = 5,
  Teardown = 6,
  SignalRanks = 7,
  StdinData = 8,
  StdinCredit = 9,
  DaemonFailure = 10,
  FenceData = 11,
  FenceRelease = 12,
  RankAbort = 13,
  PmiDirect = 14,
  JobFailure = 15,
  OutputCredit = 16,
  HostDirectory = 17,
  DataPlaneAnswer = 18,
  MeshCheck = 19,
  MeshResult = 20,
  DaemonDone = 21,
  DvmRequest = 22,
  DvmState = 23,
  DvmSubmit = 24,
  DvmJobState = 25,
  MasterPortAsk = 26,
  MasterPort = 27,
};

Message malformed(const char* message, const std::string& field, const std::string& why) {
  return Message("launch", "bad-wire-message", {{"message", message}, {"field", field}, {"why", why}});
}

class Writer {
 public:
  explicit Writer(const char* message) : message_(message) {}
  void u8(const char*, const std::uint8_t& v) { out_.push_back(v); }
  void boolean(const char*, const bool& v) { out_.push_back(v ? 1 : 0); }
  void u32(const char*, const std::uint32_t& v) { put32(v); }
  void i32(const char*, const std::int32_t& v) { put32(static_cast<std::uint32_t>(v)); }
  void u64(const char*, const std::uint64_t& v) {
    put32(static_cast<std::uint32_t>(v >> 32));
    put32(static_cast<std::uint32_t>(v));
  }
  void stream(const char*, const Stream& v) { out_.push_back(static_cast<std::uint8_t>(v)); }
  void pmi_progress(const char*, const PmiProgress& v) { out_.push_back(static_cast<std::uint8_t>(v)); }
  void text(const char* field, const std::string& v, std::uint32_t bound = kMaxText) {
    if (!length(field, v.size(), bound)) return;
    out_.insert(out_.end(), v.begin(), v.end());
  }
  void bytes(const char* field, const std::vector<std::uint8_t>& v, std::uint32_t bound = kMaxBytes) {
    if (!length(field, v.size(), bound)) return;
    out_.insert(out_.end(), v.begin(), v.end());
  }
  void texts(const char* field, const std::vector<std::string>& v) {
    if (!length(field, v.size(), kMaxItems)) return;
    for (const auto& s : v) text(field, s);
  }
  template <typename T, typename F>
  void list(const char* field, const std::vector<T>& v, F&& each) {
    if (!length(field, v.size(), kMaxItems)) return;
    for (const auto& item : v) each(*this, item);
  }
  Result<std::vector<std::uint8_t>> finish() {
    if (error_) return *error_;
    return std::move(out_);
  }
  void kind(Kind k) { out_.push_back(static_cast<std::uint8_t>(k)); }

 private:
  void put32(std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  }
  bool length(const char* field, size_t n, std::uint32_t bound) {
    if (error_) return false;
    if (n > bound) {
      error_ = malformed(message_, field, std::to_string(n) + " is above the bound of " + std::to_string(bound));
      return false;
    }
    put32(static_cast<std::uint32_t>(n));
    return true;
  }
  const char* message_;
  std::vector<std::uint8_t> out_;
  std::optional<Message> error_;
};

class Reader {
 public:
  Reader(const char* message, std::span<const std::uint8_t> in) : message_(message), in_(in) {}
  void u8(const char* field, std::uint8_t& v) {
    if (need(field, 1)) v = in_[pos_++];
  }
  void boolean(const char* field, bool& v) {
    std::uint8_t b = 0;
    u8(field, b);
    if (!error_ && b > 1) fail(field, "a boolean of " + std::to_string(b));
    v = b == 1;
  }
  void u32(const char* field, std::uint32_t& v) {
    if (need(field, 4)) v = get32();
  }
  void u64(const char* field, std::uint64_t& v) {
    std::uint32_t hi = 0, lo = 0;
    u32(field, hi);
    u32(field, lo);
    v = std::uint64_t{hi} << 32 | lo;
  }
  void i32(const char* field, std::int32_t& v) {
    std::uint32_t u = 0;
    u32(field, u);
    v = static_cast<std::int32_t>(u);
  }
  void stream(const char* field, Stream& v) {
    std::uint8_t b = 0;
    u8(field, b);
    if (!error_ && b != 1 && b != 2) fail(field, "stream " + std::to_string(b) + " is neither stdout (1) nor stderr (2)");
    v = static_cast<Stream>(b);
  }
  void pmi_progress(const char* field, PmiProgress& v) {
    std::uint8_t b = 0;
    u8(field, b);
    if (!error_ && b > 2) fail(field, "PMI progress " + std::to_string(b) + " is none of 0, 1, 2");
    v = static_cast<PmiProgress>(b);
  }
  void text(const char* field, std::string& v, std::uint32_t bound = kMaxText) {
    const std::uint32_t n = length(field, bound, 1);
    if (error_) return;
    v.assign(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
  }
  void bytes(const char* field, std::vector<std::uint8_t>& v, std::uint32_t bound = kMaxBytes) {
    const std::uint32_t n = length(field, bound, 1);
    if (error_) return;
    v.assign(in_.begin() + static_cast<std::ptrdiff_t>(pos_), in_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
  }
  void texts(const char* field, std::vector<std::string>& v) {
    // Every string takes at least its 4-byte length: a count that could
    // not fit in what remains is refused before anything is reserved.
    const std::uint32_t n = length(field, kMaxItems, 4);
    for (std::uint32_t i = 0; i < n && !error_; ++i) {
      std::string s;
      text(field, s);
      v.push_back(std::move(s));
    }
  }
  template <typename T, typename F>
  void list(const char* field, std::vector<T>& v, F&& each) {
    const std::uint32_t n = length(field, kMaxItems, 1);
    for (std::uint32_t i = 0; i < n && !error_; ++i) {
      T item{};
      each(*this, item);
      v.push_back(std::move(item));
    }
  }
  Status finish() {
    if (error_) return *error_;
    if (pos_ != in_.size()) return malformed(message_, "end", std::to_string(in_.size() - pos_) + " bytes after the message");
    return {};
  }

 private:
  bool need(const char* field, size_t n) {
    if (error_) return false;
    if (in_.size() - pos_ < n) {
      fail(field, "truncated");
      return false;
    }
    return true;
  }
  std::uint32_t get32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | in_[pos_++];
    return v;
  }
  // A length or count, checked against its bound and against what can
  // still follow (`min_each` bytes per item at least).
  std::uint32_t length(const char* field, std::uint32_t bound, size_t min_each) {
    std::uint32_t n = 0;
    u32(field, n);
    if (error_) return 0;
    if (n > bound) {
      fail(field, "a length of " + std::to_string(n) + " is above the bound of " + std::to_string(bound));
      return 0;
    }
    if (static_cast<std::uint64_t>(n) * min_each > in_.size() - pos_) {
      fail(field, "claims " + std::to_string(n) + " but only " + std::to_string(in_.size() - pos_) + " bytes follow");
      return 0;
    }
    return n;
  }
  void fail(const char* field, const std::string& why) {
    if (!error_) error_ = malformed(message_, field, why);
  }
  const char* message_;
  std::span<const std::uint8_t> in_;
  size_t pos_ = 0;
  std::optional<Message> error_;
};

// A collective's entries: keys are short, a value may be as large as a
// byte field.
template <typename IO, typename V>
void key_values(IO& io, V& entries) {
  io.list("entries", entries, [](auto& sub, auto& kv) {
    sub.text("key", kv.key, 1024);
    sub.text("value", kv.value, kMaxBytes);
  });
}

// Start-up: a daemon's bootstrap and its report, then the launch command.
// The programs of a job (LaunchCommand, DvmSubmit).
template <typename IO, typename A>
void apps(IO& io, A& list) {
  io.list("apps", list, [](auto& sub, auto& a) {
    sub.u32("first_rank", a.first_rank);
    sub.texts("argv", a.argv);
    sub.texts("environment", a.environment);
    sub.text("directory", a.directory);
    sub.boolean("directory_given", a.directory_given);
  });
}

template <typename IO, typename M>
void startup_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, Bootstrap>) {
    io.u32("job", m.job);
    io.u32("vpid", m.vpid);
    io.u32("daemons", m.daemons);
    io.u32("parent", m.parent);
    io.text("parent_uri", m.parent_uri);
    io.bytes("secret", m.secret, 4096);
    io.text("settings", m.settings, kMaxBytes);
    io.texts("hosts", m.hosts);
    io.texts("daemon_command", m.daemon_command);
    io.u32("flags", m.flags);
    io.u64("launched_at_us", m.launched_at_us);
    io.texts("unused_components", m.unused_components);
    io.text("working_directory", m.working_directory);
  } else if constexpr (std::is_same_v<T, DaemonReport>) {
    io.u32("vpid", m.vpid);
    io.text("hostname", m.hostname, 1024);
    io.text("host_identity", m.host_identity, 1024);
    io.text("contact_uri", m.contact_uri);
    io.text("route", m.route);
    io.texts("notes", m.notes);
    io.texts("addresses", m.addresses);
    io.list("startup_us", m.startup_us, [](auto& sub, auto& v) { sub.u32("startup_us", v); });
    io.text("cpus", m.cpus);
    io.text("cpus_error", m.cpus_error, 4096);
  } else if constexpr (std::is_same_v<T, LaunchCommand>) {
    apps(io, m.apps);
    io.texts("environment", m.environment);
    io.list("links", m.links, [](auto& sub, auto& l) {
      sub.text("identity", l.identity, 1024);
      sub.text("interface", l.interface, 64);
      sub.text("address", l.address, 64);
      sub.u32("prefix_length", l.prefix_length);
      sub.boolean("rdma", l.rdma);
    });
    io.texts("families", m.families);
    io.text("master_address", m.master_address, 64);
    io.u32("master_port", m.master_port);
    io.list("placements", m.placements, [](auto& sub, auto& p) {
      sub.u32("rank", p.rank);
      sub.u32("daemon", p.daemon);
      sub.u32("local_rank", p.local_rank);
    });
    io.list("cpus", m.cpus, [](auto& sub, auto& c) { sub.text("cpus", c, 64 * 1024); });
    io.u32("size", m.size);
    io.i32("stdin_target", m.stdin_target);
    io.boolean("merge_stderr", m.merge_stderr);
    io.texts("pmi_left_out", m.pmi_left_out);
  }
}

// While the ranks run: their output and input (with its flow control), how
// they ended, the signals and teardown sent to them, and lost daemons.
template <typename IO, typename M>
void running_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, OutputChunk>) {
    io.u32("rank", m.rank);
    io.stream("stream", m.stream);
    io.boolean("eof", m.eof);
    io.boolean("partial", m.partial);
    io.bytes("bytes", m.bytes);
  } else if constexpr (std::is_same_v<T, ExitRecord>) {
    io.u32("rank", m.rank);
    io.i32("wait_status", m.wait_status);
    io.boolean("started", m.started);
    io.text("message", m.message);
    io.pmi_progress("pmi", m.pmi);
  } else if constexpr (std::is_same_v<T, Teardown>) {
    io.i32("signal", m.signal);
    io.text("reason", m.reason);
  } else if constexpr (std::is_same_v<T, SignalRanks>) {
    io.i32("signal", m.signal);
  } else if constexpr (std::is_same_v<T, StdinData>) {
    io.boolean("eof", m.eof);
    io.bytes("bytes", m.bytes);
  } else if constexpr (std::is_same_v<T, StdinCredit>) {
    io.u32("bytes", m.bytes);
  } else if constexpr (std::is_same_v<T, OutputCredit>) {
    io.u32("bytes", m.bytes);
  } else if constexpr (std::is_same_v<T, DaemonFailure>) {
    io.u32("vpid", m.vpid);
    io.text("host", m.host, 1024);
    io.text("message", m.message);
  }
}

// The pmi components' traffic: collectives, direct modex, and a rank's
// PMI abort.
template <typename IO, typename M>
void pmi_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, FenceData>) {
    io.text("component", m.component, 64);
    io.u64("epoch", m.epoch);
    io.u32("from", m.from);
    io.u32("ranks", m.ranks);
    key_values(io, m.entries);
  } else if constexpr (std::is_same_v<T, FenceRelease>) {
    io.text("component", m.component, 64);
    io.u64("epoch", m.epoch);
    key_values(io, m.entries);
  } else if constexpr (std::is_same_v<T, RankAbort>) {
    io.u32("rank", m.rank);
    io.i32("status", m.status);
    io.boolean("broke", m.broke);
    io.text("message", m.message);
  } else if constexpr (std::is_same_v<T, PmiDirect>) {
    io.text("component", m.component, 64);
    io.u32("from", m.from);
    io.u32("to", m.to);
    io.bytes("bytes", m.bytes);
  }
}

// The data-plane round and the optional full-mesh check.
template <typename IO, typename M>
void data_plane_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, HostDirectory>) {
    io.list("hosts", m.hosts, [](auto& sub, auto& h) {
      sub.text("identity", h.identity, 1024);
      sub.text("name", h.name, 1024);
      sub.texts("addresses", h.addresses);
    });
    io.boolean("mesh_check", m.mesh_check);
    io.texts("user_settings", m.user_settings);
  } else if constexpr (std::is_same_v<T, DataPlaneAnswer>) {
    io.u32("vpid", m.vpid);
    io.text("interface", m.interface, 64);
    io.text("address", m.address, 64);
    io.u32("prefix_length", m.prefix_length);
    io.boolean("rdma", m.rdma);
    io.u32("port", m.port);
    io.u32("check_port", m.check_port);
    io.text("reason", m.reason);
    io.texts("others", m.others);
    io.texts("unreached", m.unreached);
    io.texts("inherited", m.inherited);
    io.texts("warnings", m.warnings);
  } else if constexpr (std::is_same_v<T, MeshCheck>) {
    io.list("targets", m.targets, [](auto& sub, auto& t) {
      sub.text("identity", t.identity, 1024);
      sub.text("name", t.name, 1024);
      sub.text("address", t.address, 64);
      sub.u32("port", t.port);
    });
    io.u32("concurrency", m.concurrency);
    io.u32("timeout_ms", m.timeout_ms);
  } else if constexpr (std::is_same_v<T, MeshResult>) {
    io.u32("vpid", m.vpid);
    io.texts("failures", m.failures);
  }
}

// A daemon's word that its part of the job is over, or that the job
// cannot go on.
template <typename IO, typename M>
void ending_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, DaemonDone>) {
    io.u32("vpid", m.vpid);
  } else if constexpr (std::is_same_v<T, JobFailure>) {
    io.u32("vpid", m.vpid);
    io.text("area", m.area, 64);
    io.text("topic", m.topic, 64);
    io.list("args", m.args, [](auto& sub, auto& kv) {
      sub.text("arg name", kv.key, 64);
      sub.text("arg value", kv.value);
    });
  }
}

// A persistent DVM's controller and its clients.
template <typename IO, typename M>
void dvm_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, DvmRequest>) {
    io.u32("ask", m.ask);
    io.text("client_uri", m.client_uri, 4096);
  } else if constexpr (std::is_same_v<T, DvmState>) {
    io.u32("pid", m.pid);
    io.u64("uptime_ms", m.uptime_ms);
    io.list("hosts", m.hosts, [](auto& sub, auto& h) {
      sub.text("name", h.name, 1024);
      sub.u32("slots", h.slots);
      sub.boolean("up", h.up);
    });
    io.u32("running", m.running);
    io.u32("waiting", m.waiting);
    io.u32("clients", m.clients);
    io.boolean("stopping", m.stopping);
  }
}

// A DVM's client submits, and hears of its job.
template <typename IO, typename M>
void dvm_job_fields(IO& io, M& m) {
  using T = std::remove_const_t<M>;
  if constexpr (std::is_same_v<T, DvmSubmit>) {
    io.text("client_uri", m.client_uri, 4096);
    apps(io, m.apps);
    io.list("app_processes", m.app_processes, [](auto& sub, auto& n) { sub.u32("processes", n); });
    io.texts("environment", m.environment);
    io.text("map_by", m.map_by, 64);
    io.u32("per_node", m.per_node);
    io.boolean("oversubscribe", m.oversubscribe);
    io.boolean("wait", m.wait);
    io.i32("stdin_target", m.stdin_target);
    io.boolean("merge_stderr", m.merge_stderr);
    io.u64("timeout_ms", m.timeout_ms);
    io.texts("pmi_left_out", m.pmi_left_out);
    io.boolean("torch_master", m.torch_master);
  } else if constexpr (std::is_same_v<T, MasterPortAsk>) {
    io.text("near", m.near, 64);
  } else if constexpr (std::is_same_v<T, MasterPort>) {
    io.u32("vpid", m.vpid);
    io.u32("port", m.port);
  } else if constexpr (std::is_same_v<T, DvmJobState>) {
    io.u32("job", m.job);
    io.u32("ranks", m.ranks);
    io.boolean("started", m.started);
    io.boolean("ended", m.ended);
    io.i32("exit_status", m.exit_status);
  }
}

// The messages of one job's life carry its number first (0 in a
// standalone run; a DVM runs many jobs on the same daemons).
template <typename T>
constexpr bool kCarriesJob = requires(T t) { t.job; } && !std::is_same_v<T, Bootstrap> && !std::is_same_v<T, DvmJobState>;

// One field list per message, for both directions. Each group above
// lists the fields of its own messages and leaves every other message
// alone, so exactly one of them writes or reads a given message.
template <typename IO, typename M>
void fields(IO& io, M& m) {
  if constexpr (kCarriesJob<std::remove_const_t<M>>) io.u32("job", m.job);
  startup_fields(io, m);
  running_fields(io, m);
  pmi_fields(io, m);
  data_plane_fields(io, m);
  ending_fields(io, m);
  dvm_fields(io, m);
  dvm_job_fields(io, m);
}

template <typename T>
constexpr Kind kind_of() {
  if constexpr (std::is_same_v<T, Bootstrap>) return Kind::Bootstrap;
  else if constexpr (std::is_same_v<T, DaemonReport>) return Kind::DaemonReport;
  else if constexpr (std::is_same_v<T, LaunchCommand>) return Kind::LaunchCommand;
  else if constexpr (std::is_same_v<T, OutputChunk>) return Kind::OutputChunk;
  else if constexpr (std::is_same_v<T, ExitRecord>) return Kind::ExitRecord;
  else if constexpr (std::is_same_v<T, Teardown>) return Kind::Teardown;
  else if constexpr (std::is_same_v<T, SignalRanks>) return Kind::SignalRanks;
  else if constexpr (std::is_same_v<T, StdinData>) return Kind::StdinData;
  else if constexpr (std::is_same_v<T, StdinCredit>) return Kind::StdinCredit;
  else if constexpr (std::is_same_v<T, DaemonFailure>) return Kind::DaemonFailure;
  else if constexpr (std::is_same_v<T, FenceData>) return Kind::FenceData;
  else if constexpr (std::is_same_v<T, FenceRelease>) return Kind::FenceRelease;
  else if constexpr (std::is_same_v<T, RankAbort>) return Kind::RankAbort;
  else if constexpr (std::is_same_v<T, PmiDirect>) return Kind::PmiDirect;
  else if constexpr (std::is_same_v<T, JobFailure>) return Kind::JobFailure;
  else if constexpr (std::is_same_v<T, HostDirectory>) return Kind::HostDirectory;
  else if constexpr (std::is_same_v<T, DataPlaneAnswer>) return Kind::DataPlaneAnswer;
  else if constexpr (std::is_same_v<T, MeshCheck>) return Kind::MeshCheck;
  else if constexpr (std::is_same_v<T, MeshResult>) return Kind::MeshResult;
  else if constexpr (std::is_same_v<T, DaemonDone>) return Kind::DaemonDone;
  else if constexpr (std::is_same_v<T, DvmRequest>) return Kind::DvmRequest;
  else if constexpr (std::is_same_v<T, DvmState>) return Kind::DvmState;
  else if constexpr (std::is_same_v<T, DvmSubmit>) return Kind::DvmSubmit;
  else if constexpr (std::is_same_v<T, DvmJobState>) return Kind::DvmJobState;
  else if constexpr (std::is_same_v<T, MasterPortAsk>) return Kind::MasterPortAsk;
  else if constexpr (std::is_same_v<T, MasterPort>) return Kind::MasterPort;
  else return Kind::OutputCredit;
}

template <typename T>
Result<WireMessage> decode_as(const char* name, std::span<const std::uint8_t> body) {
  T m{};
  Reader r(name, body);
  fields(r, m);
  if (Status st = r.finish(); !st) return st.error();
  return WireMessage(std::move(m));
}

}  // namespace

const char* kind_name(const WireMessage& message) {
  static constexpr const char* kNames[] = {"bootstrap", "daemon report", "launch command",
                                           "output chunk", "exit record", "teardown",
                                           "signal ranks", "stdin data", "stdin credit", "daemon failure",
                                           "fence data", "fence release", "rank abort", "pmi direct",
                                           "job failure", "output credit", "host directory", "data-plane answer", "mesh check", "mesh result",
                                           "daemon done", "dvm request", "dvm state", "dvm submit", "dvm job state",
                                           "master port ask", "master port"};
  return kNames[message.index()];
}

Result<std::vector<std::uint8_t>> encode(const WireMessage& message) {
  return std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        Writer w(kind_name(message));
        w.kind(kind_of<T>());
        fields(w, m);
        return w.finish();
      },
      message);
}

Result<WireMessage> decode(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return malformed("message", "kind", "empty");
  const auto body = bytes.subspan(1);
  switch (static_cast<Kind>(bytes[0])) {
    case Kind::Bootstrap: return decode_as<Bootstrap>("bootstrap", body);
    case Kind::DaemonReport: return decode_as<DaemonReport>("daemon report", body);
    case Kind::LaunchCommand: return decode_as<LaunchCommand>("launch command", body);
    case Kind::OutputChunk: return decode_as<OutputChunk>("output chunk", body);
    case Kind::ExitRecord: return decode_as<ExitRecord>("exit record", body);
    case Kind::Teardown: return decode_as<Teardown>("teardown", body);
    case Kind::SignalRanks: return decode_as<SignalRanks>("signal ranks", body);
    case Kind::StdinData: return decode_as<StdinData>("stdin data", body);
    case Kind::StdinCredit: return decode_as<StdinCredit>("stdin credit", body);
    case Kind::DaemonFailure: return decode_as<DaemonFailure>("daemon failure", body);
    case Kind::FenceData: return decode_as<FenceData>("fence data", body);
    case Kind::FenceRelease: return decode_as<FenceRelease>("fence release", body);
    case Kind::RankAbort: return decode_as<RankAbort>("rank abort", body);
    case Kind::PmiDirect: return decode_as<PmiDirect>("pmi direct", body);
    case Kind::JobFailure: return decode_as<JobFailure>("job failure", body);
    case Kind::OutputCredit: return decode_as<OutputCredit>("output credit", body);
    case Kind::HostDirectory: return decode_as<HostDirectory>("host directory", body);
    case Kind::DataPlaneAnswer: return decode_as<DataPlaneAnswer>("data-plane answer", body);
    case Kind::MeshCheck: return decode_as<MeshCheck>("mesh check", body);
    case Kind::MeshResult: return decode_as<MeshResult>("mesh result", body);
    case Kind::DaemonDone: return decode_as<DaemonDone>("daemon done", body);
    case Kind::DvmRequest: return decode_as<DvmRequest>("dvm request", body);
    case Kind::DvmState: return decode_as<DvmState>("dvm state", body);
    case Kind::DvmSubmit: return decode_as<DvmSubmit>("dvm submit", body);
    case Kind::DvmJobState: return decode_as<DvmJobState>("dvm job state", body);
    case Kind::MasterPortAsk: return decode_as<MasterPortAsk>("master port ask", body);
    case Kind::MasterPort: return decode_as<MasterPort>("master port", body);
  }
  return malformed("message", "kind", "unknown kind " + std::to_string(bytes[0]));
}

std::uint32_t job_of(const WireMessage& message) {
  return std::visit(
      [](const auto& m) -> std::uint32_t {
        if constexpr (kCarriesJob<std::decay_t<decltype(m)>>) {
          return m.job;
        } else {
          return 0;
        }
      },
      message);
}

std::string daemon_host(const std::vector<std::string>& hosts, std::uint32_t vpid) {
  if (vpid >= 1 && vpid <= hosts.size()) return hosts[vpid - 1];
  return "vpid " + std::to_string(vpid);
}

std::uint32_t app_of_rank(const std::vector<AppSpec>& apps, std::uint32_t rank) {
  const auto after = std::upper_bound(apps.begin(), apps.end(), rank,
                                      [](std::uint32_t r, const AppSpec& a) { return r < a.first_rank; });
  return after == apps.begin() ? 0 : static_cast<std::uint32_t>(after - apps.begin() - 1);
}

std::vector<std::uint32_t> ranks_per_daemon(const std::vector<RankPlacement>& placements, std::uint32_t daemons) {
  std::vector<std::uint32_t> counts(static_cast<size_t>(daemons) + 1, 0);
  for (const auto& p : placements) {
    if (p.daemon >= 1 && p.daemon <= daemons) ++counts[p.daemon];
  }
  return counts;
}

}  // namespace orca::launch
