// selection_bench: how the interface inventory, the selection policy and
// the reachability matrix scale with the number of interfaces.
//
// Runs inside a network namespace that run-selection-bench.sh filled with
// veth pairs, and times, N times each (median and min printed):
//   inventory  InterfaceInventory::scan()
//   selection  interface_filter_from + select_interfaces (no lists set)
//   matrix     reach::compute_matrix for 64 synthetic peers, one call per
//              peer, each peer advertising an IPv4 address in one of this
//              namespace's subnets and an IPv6 unique-local address; once
//              with reachable/weighted and once with reachable/netlink,
//              both loaded with dlopen from --component-dir like a tool does.
// The peers are on "another host" (same_host = false). Route lookups of
// reachable/netlink only ask the kernel: nothing is sent.
//
// A benchmark, not a test: it prints figures and asserts nothing about time.
#include "help/help.h"
#include <orca/interface_selection.h>
#include <orca/interfaces.h>
#include <orca/mca_framework.h>
#include <orca/mca_repository.h>
#include <orca/mca_var.h>
#include <orca/reachable.h>
#include "runtime/runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace orca;
using Clock = std::chrono::steady_clock;

constexpr const char* kProgram = "selection_bench";

struct Options {
  int repeat = 15;
  int peers = 64;
  long expect_interfaces = -1;  // labelling only
  long pairs = -1;              // labelling only
  std::vector<std::string> component_dirs;
};

void usage(std::ostream& out) {
  out << "Usage: " << kProgram
      << " [--repeat N] [--component-dir DIR]... [--expect-interfaces N] [--pairs N] [--peers N]\n"
         "Times, inside the current network namespace, the interface inventory, the\n"
         "selection policy and the reachability matrix (reachable/weighted and\n"
         "reachable/netlink, loaded from the --component-dir directories).\n"
         "  --repeat N             timed runs per measurement (default 15), after one warm-up run\n"
         "  --component-dir DIR    where mca_reachable_*.so are (repeatable)\n"
         "  --expect-interfaces N  label only: the interface count the caller created\n"
         "  --pairs N              label only: the number of veth pairs\n"
         "  --peers N              synthetic peers (default 64), 2 addresses each\n";
}

bool parse_long(const std::string& text, long min, long* out) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || v < min) return false;
  *out = v;
  return true;
}

// Returns 0 to go on, otherwise the exit status (after printing why).
int parse_options(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool has_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    if (arg == "-h" || arg == "--help") {
      usage(std::cout);
      return -1;
    }
    const bool known = arg == "--repeat" || arg == "--component-dir" || arg == "--expect-interfaces" ||
                       arg == "--pairs" || arg == "--peers";
    if (!known) {
      std::cerr << kProgram << ": unknown argument '" << argv[i] << "'\n";
      usage(std::cerr);
      return 2;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        std::cerr << kProgram << ": " << arg << " needs a value\n";
        return 2;
      }
      value = argv[++i];
    }
    long n = 0;
    if (arg == "--component-dir") {
      o->component_dirs.push_back(value);
    } else if (!parse_long(value, arg == "--repeat" || arg == "--peers" ? 1 : 0, &n)) {
      std::cerr << kProgram << ": " << arg << " takes a number" << (arg == "--repeat" || arg == "--peers" ? " >= 1" : "")
                << ", not '" << value << "'\n";
      return 2;
    } else if (arg == "--repeat") {
      o->repeat = static_cast<int>(n);
    } else if (arg == "--peers") {
      o->peers = static_cast<int>(n);
    } else if (arg == "--expect-interfaces") {
      o->expect_interfaces = n;
    } else {
      o->pairs = n;
    }
  }
  if (o->component_dirs.empty()) {
    std::cerr << kProgram << ": give the directories of mca_reachable_weighted.so and mca_reachable_netlink.so "
                             "with --component-dir\n";
    return 2;
  }
  return 0;
}

std::vector<std::string> split_path(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ':')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Errors are Messages: render them with the help text, as tools do.
HelpCatalog make_catalog() {
  const char* env = std::getenv("ORCA_MCA_mca_base_help_path");
  std::vector<std::string> dirs = env && *env ? split_path(env) : std::vector<std::string>{};
  if (dirs.empty()) dirs.push_back(InstallPaths::configured().pkgdatadir);
  return HelpCatalog(kProgram, dirs);
}

int fail(HelpCatalog& help, const std::string& what, const Message& m) {
  std::cerr << kProgram << ": " << what << ":\n" << help.render(m) << "\n";
  return 1;
}

// ---- timing

struct Stats {
  double median_ms = 0;
  double min_ms = 0;
};

// One untimed warm-up call, then `repeat` timed calls.
Stats measure(int repeat, const std::function<void()>& fn) {
  fn();
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = Clock::now();
    fn();
    const auto t1 = Clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  Stats s;
  s.median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  s.min_ms = ms.front();
  return s;
}

// ---- synthetic peers

bool is_ula(const net::IpAddress& a) { return a.family() == net::Family::V6 && (a.bytes()[0] & 0xfe) == 0xfc; }

// The address `host` within the subnet of `a`/`len` (host counted from the
// network address; no carry past the host bits is needed for small hosts).
net::IpAddress host_in_subnet(const net::IpAddress& a, int len, std::uint32_t host) {
  std::uint8_t b[16] = {};
  const size_t size = a.size();
  std::memcpy(b, a.bytes(), size);
  for (size_t i = 0; i < size; ++i) {
    const int bits_before = static_cast<int>(i) * 8;
    if (bits_before >= len) {
      b[i] = 0;
    } else if (bits_before + 8 > len) {
      b[i] &= static_cast<std::uint8_t>(0xff << (bits_before + 8 - len));
    }
  }
  for (size_t i = size; i-- > 0 && host != 0;) {
    const unsigned sum = b[i] + (host & 0xff);
    b[i] = static_cast<std::uint8_t>(sum);
    host = (host >> 8) + (sum >> 8);
  }
  return net::IpAddress(a.family(), b);
}

struct Candidate {
  net::IpAddress address;
  int prefix_length;
};

// A free host address in every IPv4 subnet of this namespace (loopback and
// link-local aside): the peer then sits "on" one of our links, as a peer on
// a cluster network would. For a /30 whose .1 is ours that is .2.
std::vector<Candidate> ipv4_candidates(const net::InterfaceInventory& inv) {
  std::vector<Candidate> out;
  for (const auto& e : inv.entries()) {
    const auto& a = e.address;
    if (a.family() != net::Family::V4 || a.is_loopback() || a.is_link_local() || e.prefix_length > 30) continue;
    const std::uint32_t hosts = e.prefix_length >= 24 ? (1u << (32 - e.prefix_length)) - 2 : 254;
    for (std::uint32_t h = 1; h <= hosts; ++h) {
      const net::IpAddress c = host_in_subnet(a, e.prefix_length, h);
      if (!inv.owns(c)) {
        out.push_back({c, e.prefix_length});
        break;
      }
    }
  }
  return out;
}

std::vector<Candidate> ula_subnets(const net::InterfaceInventory& inv) {
  std::vector<Candidate> out;
  for (const auto& e : inv.entries()) {
    if (is_ula(e.address) && e.prefix_length <= 120) out.push_back({e.address, e.prefix_length});
  }
  return out;
}

struct Peers {
  std::vector<std::vector<reach::RemoteAddress>> addresses;  // per peer
  size_t ipv4_subnets = 0;
  size_t ula_subnets = 0;
  size_t unique_addresses = 0;
};

Peers make_peers(const net::InterfaceInventory& inv, int count) {
  Peers p;
  const auto v4 = ipv4_candidates(inv);
  const auto v6 = ula_subnets(inv);
  p.ipv4_subnets = v4.size();
  p.ula_subnets = v6.size();
  std::vector<net::IpAddress> all;
  for (int j = 0; j < count; ++j) {
    std::vector<reach::RemoteAddress> mine;
    reach::RemoteAddress r4, r6;
    // Spread the peers evenly over the subnets (all of them when there are
    // more peers than subnets; then some peers share an IPv4 address).
    if (!v4.empty()) {
      const auto& c = v4[static_cast<size_t>(j) * v4.size() / static_cast<size_t>(count)];
      r4.address = c.address;
      r4.prefix_length = c.prefix_length;
    } else {  // no IPv4 subnet here: TEST-NET-1, no route
      const std::uint8_t b[4] = {192, 0, 2, static_cast<std::uint8_t>(1 + j % 250)};
      r4.address = net::IpAddress(net::Family::V4, b);
      r4.prefix_length = 24;
    }
    if (!v6.empty()) {
      const auto& c = v6[static_cast<size_t>(j) * v6.size() / static_cast<size_t>(count)];
      std::uint32_t host = 0x1000u + static_cast<std::uint32_t>(j);
      while (inv.owns(host_in_subnet(c.address, c.prefix_length, host))) ++host;
      r6.address = host_in_subnet(c.address, c.prefix_length, host);
      r6.prefix_length = c.prefix_length;
    } else {  // no ULA here: one that no route covers
      std::uint8_t b[16] = {0xfd, 0x00, 0x0b, 0xe4, 0xc4};
      b[15] = static_cast<std::uint8_t>(1 + j % 250);
      r6.address = net::IpAddress(net::Family::V6, b);
      r6.prefix_length = 64;
    }
    mine.push_back(r4);
    mine.push_back(r6);
    all.push_back(r4.address);
    all.push_back(r6.address);
    p.addresses.push_back(std::move(mine));
  }
  std::sort(all.begin(), all.end());
  p.unique_addresses = static_cast<size_t>(std::unique(all.begin(), all.end()) - all.begin());
  return p;
}

// ---- one reachable component, loaded for real

struct MatrixResult {
  std::string component;
  Stats stats;
  size_t pairs = 0;          // (local, remote) pairs over all peers
  size_t nonzero = 0;        // of which weight > 0
  std::string best_example;  // peer 0's best pair, to show what was ranked
};

Result<MatrixResult> run_matrix(const std::string& component, const mca::ComponentRepository& repository,
                                const net::InterfaceInventory& inv,
                                const std::vector<net::InterfaceDecision>& decisions, const Peers& peers,
                                int repeat) {
  // Destroyed in reverse: the framework (closing the component) first.
  mca::Registry registry;
  mca::Source command_line;
  command_line.kind = mca::SourceKind::CommandLine;  // as `--mca reachable <component>`
  if (Status st = registry.add_setting(mca::Setting{std::string(reach::kFramework.name), component, command_line});
      !st)
    return st.error();
  mca::Framework framework(reach::kFramework, registry, repository);
  if (Status st = framework.register_vars(); !st) return st.error();
  if (Status st = framework.open(); !st) return st.error();
  auto module = reach::selected_module(framework);
  if (!module) return module.error();
  const std::string selected(framework.selected().front()->component->name());
  if (selected != component) {
    return Message("mca-base", "no-component", {{"framework", "reachable"}, {"tried", component}});
  }

  MatrixResult out;
  out.component = component;
  const orca_reachable_module& m = *module.value();
  std::optional<Message> error;  // the first failure, kept as it came
  std::vector<reach::PairVerdict> last;
  auto all_peers = [&] {
    for (const auto& remotes : peers.addresses) {
      auto matrix = reach::compute_matrix(m, inv, decisions, remotes, /*same_host=*/false);
      if (!matrix) {
        if (!error) error = matrix.error();
        return;
      }
      last = std::move(matrix.value());
    }
  };
  out.stats = measure(repeat, all_peers);
  if (error) return *error;

  // Untimed: what the matrix said, as a sanity check of the setup.
  for (size_t j = 0; j < peers.addresses.size(); ++j) {
    auto matrix = reach::compute_matrix(m, inv, decisions, peers.addresses[j], false);
    if (!matrix) return matrix.error();
    out.pairs += matrix->size();
    for (const auto& v : matrix.value()) out.nonzero += v.weight > 0 ? 1 : 0;
    if (j == 0 && !matrix->empty()) {
      const auto& best = matrix->front();
      const auto& e = inv.entries()[best.local];
      out.best_example = e.link.name + " " + e.address_text() + " -> " +
                         peers.addresses[0][best.remote].address.to_string() + " weight " +
                         std::to_string(best.weight) + ": " + best.reason;
    }
  }
  return out;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (int rc = parse_options(argc, argv, &opt); rc != 0) return rc < 0 ? 0 : rc;
  HelpCatalog help = make_catalog();

  // Loaded once; stays mapped until the end (frameworks close first).
  const mca::ComponentRepository repository = mca::ComponentRepository::scan(opt.component_dirs);
  for (const auto& r : repository.rejected()) {
    std::cerr << kProgram << ": note: component file " << r.path << " rejected: " << r.reason << "\n";
  }

  // (a) inventory
  auto first = net::InterfaceInventory::scan();
  if (!first) return fail(help, "cannot read the interfaces of this namespace", first.error());
  std::optional<Message> scan_error;
  const Stats inventory = measure(opt.repeat, [&] {
    auto inv = net::InterfaceInventory::scan();
    if (!inv && !scan_error) scan_error = inv.error();
  });
  if (scan_error) return fail(help, "an inventory scan failed", *scan_error);
  const net::InterfaceInventory& inv = first.value();
  const size_t interfaces = inv.links().size();
  const size_t entries = inv.entries().size();
  if (opt.expect_interfaces >= 0 && static_cast<size_t>(opt.expect_interfaces) != interfaces) {
    std::cerr << kProgram << ": warning: expected " << opt.expect_interfaces << " interfaces, the inventory has "
              << interfaces << "\n";
  }

  // (b) selection
  mca::Registry selection_registry;
  if (Status st = net::declare_interface_selection_vars(selection_registry, "oob", "tcp"); !st) {
    return fail(help, "cannot declare the selection variables", st.error());
  }
  auto no_lists = net::interface_filter_from(selection_registry, "oob_tcp_");
  if (!no_lists) return fail(help, "cannot read the selection variables", no_lists.error());
  auto decided = net::select_interfaces(inv, no_lists.value());
  if (!decided) return fail(help, "interface selection failed", decided.error());
  const std::vector<net::InterfaceDecision> decisions = std::move(decided.value());
  size_t selected = 0;
  for (const auto& d : decisions) selected += d.selected ? 1 : 0;
  std::optional<Message> select_error;
  const Stats selection = measure(opt.repeat, [&] {
    auto filter = net::interface_filter_from(selection_registry, "oob_tcp_");
    if (!filter) {
      if (!select_error) select_error = filter.error();
      return;
    }
    auto d = net::select_interfaces(inv, filter.value());
    if (!d && !select_error) select_error = d.error();
  });
  if (select_error) return fail(help, "interface selection failed", *select_error);

  // (c) reachability matrix, both components
  const Peers peers = make_peers(inv, opt.peers);
  std::vector<MatrixResult> matrices;
  for (const char* component : {"weighted", "netlink"}) {
    auto r = run_matrix(component, repository, inv, decisions, peers, opt.repeat);
    if (!r) return fail(help, std::string("reachable/") + component + " could not compute the matrix", r.error());
    matrices.push_back(std::move(r.value()));
  }

  const double n = static_cast<double>(interfaces);
  auto per_if_us = [&](const Stats& s) { return s.median_ms * 1000.0 / n; };
  const long label = opt.expect_interfaces >= 0 ? opt.expect_interfaces : static_cast<long>(interfaces);

  // The machine-readable line: every *_median_ms is followed by its
  // *_min_ms and per_interface_us (median / interfaces).
  std::ostringstream line;
  line << "interfaces=" << label << " pairs=" << (opt.pairs >= 0 ? std::to_string(opt.pairs) : "?")
       << " links=" << interfaces << " entries=" << entries << " selected=" << selected
       << " peers=" << peers.addresses.size() << " remote_addresses=" << peers.addresses.size() * 2
       << " unique_remote_addresses=" << peers.unique_addresses << " repeat=" << opt.repeat;
  auto field = [&](const std::string& name, const Stats& s) {
    line << " " << name << "_median_ms=" << fixed(s.median_ms, 6) << " " << name << "_min_ms=" << fixed(s.min_ms, 6)
         << " per_interface_us=" << fixed(per_if_us(s), 4);
  };
  field("inventory", inventory);
  field("selection", selection);
  for (const auto& m : matrices) field("matrix_" + m.component, m.stats);
  std::cout << line.str() << "\n";

  // The same, for people.
  std::cout << "\n" << kProgram << ": " << interfaces << " interfaces";
  if (opt.pairs >= 0) std::cout << " (" << opt.pairs << " veth pairs x 2 ends + lo)";
  std::cout << ", " << entries << " addresses (" << selected << " selected), " << peers.addresses.size()
            << " peers x 2 addresses (" << peers.unique_addresses << " distinct; peers spread over "
            << peers.ipv4_subnets << " IPv4 subnets and " << peers.ula_subnets << " ULA subnets), "
            << opt.repeat << " timed runs after 1 warm-up\n";
  std::cout << std::left << "  " << std::setw(22) << "measurement" << std::right << std::setw(14) << "median ms"
            << std::setw(14) << "min ms" << std::setw(20) << "per interface us" << "\n";
  auto row = [&](const std::string& name, const Stats& s) {
    std::cout << "  " << std::left << std::setw(22) << name << std::right << std::setw(14) << fixed(s.median_ms, 4)
              << std::setw(14) << fixed(s.min_ms, 4) << std::setw(20) << fixed(per_if_us(s), 3) << "\n";
  };
  row("inventory scan", inventory);
  row("selection", selection);
  for (const auto& m : matrices) row("matrix (" + m.component + ")", m.stats);
  for (const auto& m : matrices) {
    std::cout << "  reachable/" << m.component << ": " << m.pairs << " pairs for " << peers.addresses.size()
              << " peers, " << m.nonzero << " with weight > 0; peer 0 best: " << m.best_example << "\n";
  }
  return 0;
}
