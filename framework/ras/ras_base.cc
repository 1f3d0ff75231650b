// The ras base: asking the modules in priority order, and carrying a
// module's failure across the C boundary as the message it is.
#include <orca/ras.h>

namespace orca::ras {

namespace {

struct Collected {
  std::vector<launch::HostSlots> nodes;
  std::optional<Message> failure;
};

void add_node(void* context, const char* name, uint32_t slots, int slots_given, uint32_t max_slots) {
  const uint32_t given = slots == 0 ? 1 : slots;
  // A cap below the slots would be a module's bug; it caps nothing then.
  static_cast<Collected*>(context)->nodes.push_back({.name = name,
                                                     .slots = given,
                                                     .slots_given = slots_given != 0,
                                                     .max_slots = max_slots >= given ? max_slots : 0});
}

void note_failure(void* context, const char* area, const char* topic, const char* const* pairs, size_t count) {
  Message::Args args;
  for (size_t i = 0; i < count; ++i) args.emplace_back(pairs[2 * i], pairs[2 * i + 1]);
  static_cast<Collected*>(context)->failure = Message(area, topic, std::move(args));
}

}  // namespace

Result<std::optional<Allocation>> allocate(const mca::Framework& framework, const Request& request) {
  std::vector<const char*> hosts, files;
  for (const auto& h : request.hosts) hosts.push_back(h.c_str());
  for (const auto& f : request.hostfiles) files.push_back(f.c_str());
  const orca_ras_request c_request{.hosts = hosts.data(),
                                   .host_count = hosts.size(),
                                   .hostfiles = files.data(),
                                   .hostfile_count = files.size()};
  for (const mca::Framework::Entry* e : framework.selected()) {
    const auto* m = mca::Framework::module_as<orca_ras_module>(*e);
    Collected collected;
    const orca_ras_nodes out{.context = &collected, .add = &add_node, .fail = &note_failure};
    orca_mca_reason why{};
    const orca_mca_rc rc = m->allocate(m->self, &c_request, &out, &why);
    const std::string component(e->component->name());
    if (rc == ORCA_MCA_DECLINED) continue;
    if (rc != ORCA_MCA_OK) {
      if (collected.failure) return *collected.failure;
      return Message("ras", "allocation-failed", {{"component", component}, {"why", printable(why.text)}});
    }
    if (collected.nodes.empty()) return Message("ras", "no-nodes", {{"component", component}});
    auto merged = launch::merge_duplicate_hosts(std::move(collected.nodes), "ras/" + component);
    if (!merged) return merged.error();
    return std::optional<Allocation>(Allocation{.component = component, .nodes = std::move(merged.value())});
  }
  return std::optional<Allocation>();
}

orca_mca_rc report_failure(const orca_ras_nodes& out, const Message& message) {
  std::vector<const char*> pairs;
  for (const auto& [key, value] : message.args()) {
    pairs.push_back(key.c_str());
    pairs.push_back(value.c_str());
  }
  out.fail(out.context, message.area().c_str(), message.topic().c_str(), pairs.data(), pairs.size() / 2);
  return ORCA_MCA_FAILED;
}

}  // namespace orca::ras
