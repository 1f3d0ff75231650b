#include "simple_session.h"

#include <charconv>
#include <utility>

namespace orca::pmi {

enum class SimpleSession::Command : std::uint8_t {
  Unknown,
  // PMI-1
  Init,
  Initack,
  GetMaxes,
  GetAppnum,
  GetUniverseSize,
  GetMyKvsname,
  Put,
  Get,
  BarrierIn,
  Finalize,
  Abort,
  Spawn,
  // PMI-2
  Fullinit,
  JobGetid,
  KvsPut,
  KvsGet,
  KvsFence,
  InfoGetjobattr,
};

namespace {

constexpr std::string_view kProcessMapping = "PMI_process_mapping";
constexpr std::string_view kUniverseSizeAttr = "universeSize";

std::optional<int> parse_int(const std::string* text) {
  if (text == nullptr || text->empty()) return std::nullopt;
  int v = 0;
  const char* end = text->data() + text->size();
  auto [p, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::string pmi1_text(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == ' ' || c == '\n') c = '_';
  }
  return out;
}

}  // namespace

SimpleSession::SimpleSession(RankIdentity identity) : identity_(std::move(identity)) {}

void SimpleSession::receive(std::string_view bytes) {
  if (state_ == State::Failed || state_ == State::Aborted) return;
  decoder_.append(bytes);
  while (state_ != State::Failed && state_ != State::Aborted) {
    auto next = decoder_.next();
    if (!next) {
      fail(next.error());
      return;
    }
    if (!next.value()) return;
    handle(*next.value());
  }
}

void SimpleSession::fail(Message why) {
  state_ = State::Failed;
  const Framing framing = decoder_.framing().value_or(Framing::Pmi1);
  const std::string problem = why.arg("problem");
  WireMessage m{.command = framing == Framing::Pmi1 ? "error" : "error-response", .pairs = {}};
  m.pairs.push_back({"rc", "-1"});
  if (framing == Framing::Pmi1) {
    m.pairs.emplace_back("msg", pmi1_text("malformed message: " + problem));
  } else {
    m.pairs.emplace_back("errmsg", "malformed message: " + problem);
  }
  if (auto bytes = format(framing, m)) output_ += bytes.value();
  events_.emplace_back(ProtocolFailed{.why = std::move(why)});
}

void SimpleSession::reply(std::string_view command, Pairs pairs) {
  const Framing framing = decoder_.framing().value_or(Framing::Pmi1);
  WireMessage m{.command = std::string(command), .pairs = std::move(pairs)};
  auto bytes = format(framing, m);
  if (bytes) {
    output_ += bytes.value();
    return;
  }
  // Only a value the framing cannot carry gets here (a PMI-2 value with a
  // space read by PMI-1, a job attribute over the bound): say so instead.
  WireMessage refusal{.command = std::string(command), .pairs = {{"rc", "-1"}}};
  refusal.pairs.emplace_back(framing == Framing::Pmi1 ? "msg" : "errmsg",
                             framing == Framing::Pmi1 ? "reply_not_representable" : "reply not representable");
  if (auto fallback = format(framing, refusal)) output_ += fallback.value();
}

void SimpleSession::refuse(std::string_view response_command, std::string_view why) {
  const Framing framing = decoder_.framing().value_or(Framing::Pmi1);
  if (framing == Framing::Pmi1) {
    reply(response_command, {{"rc", "-1"}, {"msg", pmi1_text(why)}});
  } else {
    reply(response_command, {{"rc", "-1"}, {"errmsg", std::string(why)}});
  }
}

std::optional<std::string> SimpleSession::lookup(std::string_view key) const {
  if (auto it = pending_.find(key); it != pending_.end()) return it->second;
  if (auto it = merged_->find(key); it != merged_->end()) return it->second;
  if (key == kProcessMapping && !identity_.process_mapping.empty()) return identity_.process_mapping;
  return std::nullopt;
}

void SimpleSession::enter_barrier(std::string_view response_command) {
  if (in_barrier_) {
    refuse(response_command, "barrier entered again before the last one completed");
    return;
  }
  in_barrier_ = true;
  barrier_response_ = std::string(response_command);
  events_.emplace_back(BarrierEntered{.epoch = next_epoch_++, .puts = std::exchange(pending_, {})});
}

Status SimpleSession::barrier_done(std::shared_ptr<const Kvs> job_kvs) {
  if (job_kvs) merged_ = std::move(job_kvs);
  if (state_ == State::Failed || state_ == State::Aborted) {
    in_barrier_ = false;
    return {};
  }
  if (!in_barrier_) return Message("pmi", "no-barrier", {{"rank", std::to_string(identity_.rank)}});
  in_barrier_ = false;
  reply(barrier_response_, {{"rc", "0"}});
  return {};
}

std::string SimpleSession::take_output() { return std::exchange(output_, {}); }

std::vector<SessionEvent> SimpleSession::take_events() { return std::exchange(events_, {}); }

void SimpleSession::handle(const WireMessage& message) {
  const Framing framing = decoder_.framing().value_or(Framing::Pmi1);
  struct Entry {
    std::string_view name;
    Command command;
  };
  static constexpr Entry kPmi1[] = {
      {"init", Command::Init},
      {"initack", Command::Initack},
      {"get_maxes", Command::GetMaxes},
      {"get_appnum", Command::GetAppnum},
      {"get_universe_size", Command::GetUniverseSize},
      {"get_my_kvsname", Command::GetMyKvsname},
      {"put", Command::Put},
      {"get", Command::Get},
      {"barrier_in", Command::BarrierIn},
      {"finalize", Command::Finalize},
      {"abort", Command::Abort},
  };
  static constexpr Entry kPmi2[] = {
      {"fullinit", Command::Fullinit},
      {"job-getid", Command::JobGetid},
      {"kvs-put", Command::KvsPut},
      {"kvs-get", Command::KvsGet},
      {"kvs-fence", Command::KvsFence},
      {"info-getjobattr", Command::InfoGetjobattr},
      {"finalize", Command::Finalize},
      {"abort", Command::Abort},
  };
  Command command = Command::Unknown;
  if (message.multi_command) {
    command = message.command == "spawn" ? Command::Spawn : Command::Unknown;
  } else if (framing == Framing::Pmi1) {
    for (const auto& e : kPmi1) {
      if (e.name == message.command) command = e.command;
    }
  } else {
    for (const auto& e : kPmi2) {
      if (e.name == message.command) command = e.command;
    }
  }
  if (framing == Framing::Pmi1) {
    handle_pmi1(command, message);
  } else {
    handle_pmi2(command, message);
  }
}

void SimpleSession::handle_pmi1(Command command, const WireMessage& message) {
  switch (command) {
    case Command::Init:
      pmi1_init(message);
      return;
    case Command::Initack:
      pmi1_initack(message);
      return;
    case Command::GetMaxes:
      if (!pmi1_expect_ready("maxes")) return;
      reply("maxes", {{"rc", "0"},
                      {"kvsname_max", std::to_string(kMaxKvsNameBytes)},
                      {"keylen_max", std::to_string(kMaxKeyBytes)},
                      {"vallen_max", std::to_string(kMaxValueBytes)}});
      return;
    case Command::GetAppnum:
      if (!pmi1_expect_ready("appnum")) return;
      reply("appnum", {{"rc", "0"}, {"appnum", std::to_string(identity_.appnum)}});
      return;
    case Command::GetUniverseSize:
      if (!pmi1_expect_ready("universe_size")) return;
      reply("universe_size", {{"rc", "0"}, {"size", std::to_string(identity_.universe_size)}});
      return;
    case Command::GetMyKvsname:
      if (!pmi1_expect_ready("my_kvsname")) return;
      reply("my_kvsname", {{"rc", "0"}, {"kvsname", identity_.kvsname}});
      return;
    case Command::Put:
      pmi1_put(message);
      return;
    case Command::Get:
      pmi1_get(message);
      return;
    case Command::BarrierIn:
      if (!pmi1_expect_ready("barrier_out")) return;
      enter_barrier("barrier_out");
      return;
    case Command::Finalize:
      if (!pmi1_expect_ready("finalize_ack")) return;
      finalize("finalize_ack");
      return;
    case Command::Abort:
      pmi1_abort(message);
      return;
    case Command::Spawn:
      refuse("spawn_result", "spawn is not supported");
      return;
    default:
      pmi1_refuse_unknown(message);
      return;
  }
}

bool SimpleSession::pmi1_expect_ready(std::string_view response) {
  if (state_ == State::Ready) return true;
  if (state_ == State::Finalized) {
    refuse(response, "command after finalize");
  } else {
    refuse(response, "command before init");
  }
  return false;
}

bool SimpleSession::pmi1_check_kvsname(const WireMessage& message, std::string_view response) {
  const std::string* name = message.find("kvsname");
  if (name == nullptr || *name != identity_.kvsname) {
    refuse(response, "unknown kvsname");
    return false;
  }
  return true;
}

void SimpleSession::pmi1_init(const WireMessage& message) {
  const auto version = parse_int(message.find("pmi_version"));
  const auto subversion = parse_int(message.find("pmi_subversion"));
  if (state_ != State::AwaitingInit) {
    refuse("response_to_init", state_ == State::Finalized ? "command after finalize" : "init twice");
    return;
  }
  if (version == 1 && subversion && *subversion >= 0 && *subversion <= 1) {
    reply("response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}});
    state_ = State::Ready;
    events_.emplace_back(Initialized{});
    return;
  }
  if (version == 2 && subversion == 0) {
    reply("response_to_init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}, {"rc", "0"}});
    state_ = State::AwaitingFullinit;
    decoder_.set_framing(Framing::Pmi2);
    return;
  }
  reply("response_to_init",
        {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "-1"}, {"msg", "unsupported_pmi_version"}});
}

void SimpleSession::pmi1_initack(const WireMessage& message) {
  if (state_ != State::AwaitingInit || initacked_) {
    refuse("initack", "initack after init or twice");
    return;
  }
  const auto id = parse_int(message.find("pmiid"));
  if (!id || *id != identity_.rank) {
    refuse("initack", "pmiid is not this rank");
    return;
  }
  initacked_ = true;
  reply("initack", {{"rc", "0"}});
  reply("set", {{"size", std::to_string(identity_.size)}});
  reply("set", {{"rank", std::to_string(identity_.rank)}});
  reply("set", {{"debug", "0"}});
}

void SimpleSession::pmi1_put(const WireMessage& message) {
  if (!pmi1_expect_ready("put_result") || !pmi1_check_kvsname(message, "put_result")) return;
  const std::string* key = message.find("key");
  const std::string* value = message.find("value");
  if (key == nullptr || key->empty() || value == nullptr) {
    refuse("put_result", "put needs key and value");
    return;
  }
  if (key->size() > kMaxKeyBytes) {
    refuse("put_result", "key longer than keylen_max");
    return;
  }
  if (pending_.size() >= SimpleSession::kMaxPutsPerBarrier && !pending_.contains(*key)) {
    refuse("put_result", "too many puts before a barrier");
    return;
  }
  pending_[*key] = *value;
  reply("put_result", {{"rc", "0"}});
}

void SimpleSession::pmi1_get(const WireMessage& message) {
  if (!pmi1_expect_ready("get_result") || !pmi1_check_kvsname(message, "get_result")) return;
  const std::string* key = message.find("key");
  if (key == nullptr || key->empty()) {
    refuse("get_result", "get needs a key");
    return;
  }
  if (key->size() > kMaxKeyBytes) {
    refuse("get_result", "key longer than keylen_max");
    return;
  }
  if (auto value = lookup(*key)) {
    reply("get_result", {{"rc", "0"}, {"value", std::move(*value)}});
  } else {
    refuse("get_result", "key not found");
  }
}

void SimpleSession::pmi1_abort(const WireMessage& message) {
  const auto code = parse_int(message.find("exitcode"));
  const std::string* text = message.find("message");
  state_ = State::Aborted;
  events_.emplace_back(AbortRequested{.exit_code = code.value_or(1), .message = text ? *text : std::string()});
}

void SimpleSession::pmi1_refuse_unknown(const WireMessage& message) {
  // Echo the name the client waits for, when it fits the bound.
  std::string name = message.command + "_result";
  if (name.size() > kMaxCommandBytes) name = "error";
  refuse(name, "unknown command");
}

void SimpleSession::finalize(std::string_view response) {
  state_ = State::Finalized;
  reply(response, {{"rc", "0"}});
  events_.emplace_back(Finalized{});
}

void SimpleSession::handle_pmi2(Command command, const WireMessage& message) {
  std::string response = message.command + "-response";
  if (response.size() > kMaxCommandBytes) response = "error-response";
  switch (command) {
    case Command::Fullinit:
      pmi2_fullinit(response, message);
      return;
    case Command::JobGetid:
      if (!pmi2_expect_ready(response)) return;
      reply(response, {{"jobid", identity_.kvsname}, {"rc", "0"}});
      return;
    case Command::KvsPut:
      pmi2_kvs_put(response, message);
      return;
    case Command::KvsGet:
      pmi2_kvs_get(response, message);
      return;
    case Command::KvsFence:
      if (!pmi2_expect_ready(response)) return;
      enter_barrier(response);
      return;
    case Command::InfoGetjobattr:
      pmi2_info_getjobattr(response, message);
      return;
    case Command::Finalize:
      if (!pmi2_expect_ready(response)) return;
      finalize(response);
      return;
    case Command::Abort:
      pmi2_abort(message);
      return;
    default:
      refuse(response, "unknown command");
      return;
  }
}

bool SimpleSession::pmi2_expect_ready(std::string_view response) {
  if (state_ == State::Ready) return true;
  refuse(response, state_ == State::Finalized ? "command after finalize" : "command before fullinit");
  return false;
}

void SimpleSession::pmi2_fullinit(std::string_view response, const WireMessage& message) {
  if (state_ != State::AwaitingInit && state_ != State::AwaitingFullinit) {
    refuse(response, state_ == State::Finalized ? "command after finalize" : "fullinit twice");
    return;
  }
  const auto claimed = parse_int(message.find("pmirank"));
  if (claimed && *claimed >= 0 && *claimed != identity_.rank) {
    refuse(response, "pmirank is not this rank");
    return;
  }
  state_ = State::Ready;
  events_.emplace_back(Initialized{});
  reply(response, {{"pmi-version", "2"},
                   {"pmi-subversion", "0"},
                   {"rank", std::to_string(identity_.rank)},
                   {"size", std::to_string(identity_.size)},
                   {"appnum", std::to_string(identity_.appnum)},
                   {"debugged", "FALSE"},
                   {"pmiverbose", "FALSE"},
                   {"rc", "0"}});
}

void SimpleSession::pmi2_kvs_put(std::string_view response, const WireMessage& message) {
  if (!pmi2_expect_ready(response)) return;
  const std::string* key = message.find("key");
  const std::string* value = message.find("value");
  if (key == nullptr || key->empty() || value == nullptr) {
    refuse(response, "kvs-put needs key and value");
    return;
  }
  if (key->size() > kMaxKeyBytes) {
    refuse(response, "key longer than the maximum");
    return;
  }
  if (pending_.size() >= SimpleSession::kMaxPutsPerBarrier && !pending_.contains(*key)) {
    refuse(response, "too many puts before a fence");
    return;
  }
  pending_[*key] = *value;
  reply(response, {{"rc", "0"}});
}

void SimpleSession::pmi2_kvs_get(std::string_view response, const WireMessage& message) {
  if (!pmi2_expect_ready(response)) return;
  const std::string* key = message.find("key");
  const std::string* jobid = message.find("jobid");
  if (key == nullptr || key->empty()) {
    refuse(response, "kvs-get needs a key");
    return;
  }
  if (key->size() > kMaxKeyBytes) {
    refuse(response, "key longer than the maximum");
    return;
  }
  if (jobid != nullptr && !jobid->empty() && *jobid != identity_.kvsname) {
    refuse(response, "unknown jobid");
    return;
  }
  if (auto value = lookup(*key)) {
    reply(response, {{"found", "TRUE"}, {"value", std::move(*value)}, {"rc", "0"}});
  } else {
    reply(response, {{"found", "FALSE"}, {"rc", "0"}});
  }
}

void SimpleSession::pmi2_info_getjobattr(std::string_view response, const WireMessage& message) {
  if (!pmi2_expect_ready(response)) return;
  const std::string* key = message.find("key");
  if (key == nullptr || key->empty()) {
    refuse(response, "info-getjobattr needs a key");
    return;
  }
  std::optional<std::string> value;
  if (*key == kProcessMapping && !identity_.process_mapping.empty()) value = identity_.process_mapping;
  if (*key == kUniverseSizeAttr) value = std::to_string(identity_.universe_size);
  if (value) {
    reply(response, {{"found", "TRUE"}, {"value", std::move(*value)}, {"rc", "0"}});
  } else {
    reply(response, {{"found", "FALSE"}, {"rc", "0"}});
  }
}

void SimpleSession::pmi2_abort(const WireMessage& message) {
  const std::string* text = message.find("msg");
  state_ = State::Aborted;
  events_.emplace_back(AbortRequested{.exit_code = 1, .message = text ? *text : std::string()});
}

}  // namespace orca::pmi
