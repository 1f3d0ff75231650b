// CpuTopology: a daemon's usable processors, and its text on the wire.
#include "launch/cpu_topology.h"

#include "launch/launch_text.h"
#include "mca/var/text.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace orca::launch {

namespace {

constexpr unsigned kMaxIndex = 1u << 20;

bool number(std::string_view text, unsigned& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && out <= kMaxIndex;
}

Message malformed(std::string_view word, const std::string& why) {
  return Message("launch", "cpu-topology-malformed", {{"word", excerpt(word)}, {"why", why}});
}

// "A.B.C.D" into its four numbers.
bool four_numbers(std::string_view word, unsigned (&out)[4]) {
  for (int i = 0; i < 4; ++i) {
    const size_t dot = i < 3 ? word.find('.') : word.size();
    if (dot == std::string_view::npos || !number(word.substr(0, dot), out[i])) return false;
    word.remove_prefix(std::min(dot + 1, word.size()));
  }
  return true;
}

}  // namespace

Result<Resource> parse_resource(std::string_view text) {
  const std::string value = mca::lower(mca::trim(text));
  if (value == "hwthread") return Resource::Hwthread;
  if (value == "core") return Resource::Core;
  if (value == "numa") return Resource::Numa;
  if (value == "package" || value == "socket") return Resource::Package;
  return Message("launch", "resource-unknown", {{"value", excerpt(text)}});
}

const char* resource_name(Resource r) {
  switch (r) {
    case Resource::Hwthread: return "hwthread";
    case Resource::Core: return "core";
    case Resource::Numa: return "numa";
    case Resource::Package: return "package";
  }
  return "?";
}

unsigned resource_index(const CpuTopology& topology, std::size_t pu, Resource r) {
  const ProcessingUnit& p = topology.pus[pu];
  switch (r) {
    case Resource::Hwthread: return static_cast<unsigned>(pu);
    case Resource::Core: return p.core;
    case Resource::Numa: return p.numa;
    case Resource::Package: return p.package;
  }
  return 0;
}

std::string encode_cpu_topology(const CpuTopology& topology) {
  std::string out;
  for (const auto& p : topology.pus) {
    if (!out.empty()) out += ' ';
    out += std::to_string(p.os) + '.' + std::to_string(p.core) + '.' + std::to_string(p.numa) + '.' +
           std::to_string(p.package);
  }
  return out;
}

Result<CpuTopology> parse_cpu_topology(std::string_view text) {
  CpuTopology t;
  std::unordered_set<unsigned> seen;
  while (!text.empty()) {
    const size_t space = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, space);
    text.remove_prefix(std::min(space + 1, text.size()));
    unsigned n[4] = {};
    if (!four_numbers(word, n)) return malformed(word, "a PU is OS.CORE.NUMA.PACKAGE, four numbers");
    if (n[0] >= kMaxPus) return malformed(word, "CPU numbers go up to " + std::to_string(kMaxPus - 1));
    if (!seen.insert(n[0]).second) return malformed(word, "this CPU is listed twice");
    t.pus.push_back({.os = n[0], .core = n[1], .numa = n[2], .package = n[3]});
  }
  if (t.pus.empty()) return malformed("", "no processor is listed");
  return t;
}

std::string cpu_list_text(std::vector<unsigned> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Result<std::vector<unsigned>> parse_cpu_list(std::string_view text) {
  std::vector<unsigned> cpus;
  const std::string_view whole = text;
  auto bad = [&] { return Message("launch", "cpu-list-malformed", {{"text", excerpt(whole)}, {"max", std::to_string(kMaxPus - 1)}}); };
  while (!text.empty()) {
    const size_t comma = std::min(text.find(','), text.size());
    const std::string_view run = text.substr(0, comma);
    text.remove_prefix(std::min(comma + 1, text.size()));
    const size_t dash = run.find('-');
    unsigned lo = 0, hi = 0;
    if (!number(run.substr(0, dash), lo)) return bad();
    hi = lo;
    if (dash != std::string_view::npos && !number(run.substr(dash + 1), hi)) return bad();
    if (hi < lo || hi >= kMaxPus) return bad();
    for (unsigned c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace orca::launch
