// DataPlaneChoice: one local address per host for the ranks' own traffic.
#include "data_plane.h"

#include <algorithm>
#include <tuple>

namespace orca::launch {

namespace {

struct Score {
  std::vector<size_t> reached;
  std::vector<int> best_weight;  // per other host, 0: not reached
  long weight_sum = 0;
  bool proven = false;
  bool failed = false;
  // Best first; equal scores keep the kernel's order (the caller's).
  auto key() const { return std::make_tuple(reached.size(), proven, !failed, weight_sum); }
};

std::string address_text(const DataPlaneLocal& l) {
  return l.interface + " " + l.address.to_string() + "/" + std::to_string(l.prefix_length);
}

std::string count_text(size_t n, size_t of) {
  return std::to_string(n) + " of " + std::to_string(of) + (of == 1 ? " other host" : " other hosts");
}

std::string evidence_text(const LinkProof& p) {
  std::string out;
  if (p.connected > 0) out += "; its oob connection succeeded";
  if (p.failed > 0) out += "; " + std::to_string(p.failed) + (p.failed == 1 ? " attempt" : " attempts") + " from it timed out or was refused";
  return out;
}

}  // namespace

std::vector<std::vector<int>> reach_matrix(const DataPlaneInput& input) {
  const size_t n_hosts = input.hosts.size();
  std::vector<std::vector<int>> best(input.locals.size(), std::vector<int>(n_hosts, 0));
  auto failed_toward = [&](const DataPlanePair& p) {
    if (p.local >= input.proof.size()) return false;
    const auto& toward = input.proof[p.local].failed_toward;
    return std::find(toward.begin(), toward.end(), p.host) != toward.end();
  };
  auto usable = [&](const DataPlanePair& p) {
    return p.local < best.size() && p.host < n_hosts && p.weight > 0 && !failed_toward(p);
  };
  // A pair the ranking demoted below half the best toward its host is a
  // fallback (the kernel would send from another interface), not a path
  // to pin a library to.
  std::vector<int> best_toward(n_hosts, 0);
  for (const DataPlanePair& p : input.pairs) {
    if (usable(p)) best_toward[p.host] = std::max(best_toward[p.host], p.weight);
  }
  for (const DataPlanePair& p : input.pairs) {
    if (!usable(p) || 2 * p.weight < best_toward[p.host]) continue;
    best[p.local][p.host] = std::max(best[p.local][p.host], p.weight);
  }
  return best;
}

std::vector<size_t> hosts_not_reached(const DataPlaneInput& input, const std::vector<size_t>& locals) {
  const auto matrix = reach_matrix(input);
  std::vector<size_t> out;
  for (size_t h = 0; h < input.hosts.size(); ++h) {
    bool reached = false;
    for (size_t l : locals) reached = reached || (l < matrix.size() && matrix[l][h] > 0);
    if (!reached) out.push_back(h);
  }
  return out;
}

DataPlaneChoice choose_data_plane(const DataPlaneInput& input) {
  DataPlaneChoice choice;
  const size_t n_hosts = input.hosts.size();
  if (n_hosts == 0) {
    // One host: its ranks meet on loopback, which every library accepts
    // for a single-host job and no other interface beats.
    for (size_t l = 0; l < input.locals.size(); ++l) {
      if (!input.locals[l].address.is_loopback()) continue;
      choice.local = l;
      choice.reason = "the job has no other host: loopback";
      return choice;
    }
    choice.reason = "the job has no other host, and this host has no loopback address";
    return choice;
  }
  std::vector<Score> scores(input.locals.size());
  auto proof_of = [&](size_t l) -> const LinkProof* { return l < input.proof.size() ? &input.proof[l] : nullptr; };
  const auto matrix = reach_matrix(input);
  for (size_t l = 0; l < scores.size(); ++l) scores[l].best_weight = matrix[l];
  for (size_t l = 0; l < scores.size(); ++l) {
    Score& s = scores[l];
    for (size_t h = 0; h < n_hosts; ++h) {
      if (s.best_weight[h] == 0) continue;
      s.reached.push_back(h);
      s.weight_sum += s.best_weight[h];
    }
    if (const LinkProof* proof = proof_of(l)) {
      s.proven = proof->connected > 0;
      s.failed = proof->failed > 0;
    }
  }
  std::optional<size_t> best;
  for (size_t l = 0; l < scores.size(); ++l) {
    if (scores[l].reached.empty()) continue;
    if (!best || scores[l].key() > scores[*best].key()) best = l;
  }
  for (size_t l = 0; l < scores.size(); ++l) {
    if (best && l == *best) continue;
    const Score& s = scores[l];
    std::string line = address_text(input.locals[l]) + ": ";
    if (input.locals[l].address.is_loopback()) {
      line += "loopback reaches no other host";
    } else if (s.reached.empty()) {
      line += "reaches none of the " + std::to_string(n_hosts) + (n_hosts == 1 ? " other host" : " other hosts");
    } else if (best && s.reached.size() < scores[*best].reached.size()) {
      line += "reaches " + count_text(s.reached.size(), n_hosts);
    } else if (best && scores[*best].proven && !s.proven) {
      line += "reaches " + count_text(s.reached.size(), n_hosts) + " too, but no oob connection from it succeeded";
    } else if (best && !scores[*best].failed && s.failed) {
      line += "reaches " + count_text(s.reached.size(), n_hosts) + " too, but attempts from it failed";
    } else {
      line += "reaches " + count_text(s.reached.size(), n_hosts) + " too, ranked lower";
    }
    choice.others.push_back(line + evidence_text(proof_of(l) ? *proof_of(l) : LinkProof{}));
  }
  if (!best) {
    choice.reason = "no local address reaches any of the " + std::to_string(n_hosts) +
                    (n_hosts == 1 ? " other host" : " other hosts");
    for (size_t h = 0; h < n_hosts; ++h) choice.unreached.push_back(h);
    return choice;
  }
  const Score& s = scores[*best];
  choice.local = *best;
  for (size_t h = 0; h < n_hosts; ++h) {
    if (s.best_weight[h] == 0) choice.unreached.push_back(h);
  }
  choice.reason = "reaches " + count_text(s.reached.size(), n_hosts) + evidence_text(proof_of(*best) ? *proof_of(*best) : LinkProof{});
  return choice;
}

std::string address_entry_text(const net::InterfaceAddress& entry) {
  return entry.address.to_string() + "/" + std::to_string(entry.prefix_length) + " " +
         std::string(net::kind_name(entry.link.kind));
}

std::optional<reach::RemoteAddress> parse_address_entry(std::string_view text) {
  const size_t slash = text.find('/');
  const size_t space = text.find(' ', slash == std::string_view::npos ? 0 : slash);
  if (slash == std::string_view::npos || space == std::string_view::npos) return std::nullopt;
  auto address = net::IpAddress::parse(text.substr(0, slash));
  if (!address) return std::nullopt;
  int prefix = 0;
  const std::string_view digits = text.substr(slash + 1, space - slash - 1);
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    prefix = prefix * 10 + (c - '0');
  }
  if (prefix > (address->family() == net::Family::V4 ? 32 : 128)) return std::nullopt;
  auto kind = net::parse_kind(text.substr(space + 1));
  return reach::RemoteAddress{*address, prefix, kind.value_or(net::InterfaceKind::Unknown)};
}

}  // namespace orca::launch
