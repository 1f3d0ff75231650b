// reachable/netlink: a lookup that groups destinations by route answers
// exactly what the kernel answers for each destination alone, on routing
// tables made for it. Each case runs in a child process in a network
// namespace of its own (unshare), which ends with the child: nothing of
// this machine's network is touched, and nothing is left behind. Only
// route lookups are made; no packet is sent.
#include "reachable/netlink/kernel_routes.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace orca::reach::netlink {
namespace {

constexpr int kSkip = 77;

struct Outcome {
  int status = -1;
  std::string output;
};

// Runs `body` in a child inside a new network namespace; its output (one
// line per finding) comes back through a pipe. Exit kSkip: no namespace.
template <class Body>
Outcome in_private_namespace(Body body) {
  int fds[2];
  if (::pipe(fds) != 0) return {-1, std::string("pipe: ") + std::strerror(errno)};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    FILE* out = ::fdopen(fds[1], "w");
    if (out == nullptr) ::_exit(1);
    if (::unshare(CLONE_NEWNET) != 0) {
      std::fprintf(out, "cannot make a network namespace: %s\n", std::strerror(errno));
      std::fclose(out);
      ::_exit(kSkip);
    }
    const int rc = body(out);
    std::fclose(out);
    ::_exit(rc);
  }
  ::close(fds[1]);
  Outcome o;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) o.output.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid) o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return o;
}

// `ip -batch` of the given commands, those that start with "-6 " by
// `ip -6 -batch` after the others (a batch line takes no option); false
// (and why, on `out`) if any fails.
bool ip_batch(FILE* out, const std::vector<std::string>& commands) {
  std::vector<std::string> plain, v6;
  for (const auto& c : commands) (c.rfind("-6 ", 0) == 0 ? v6 : plain).push_back(c.rfind("-6 ", 0) == 0 ? c.substr(3) : c);
  for (const auto* list : {&plain, &v6}) {
    if (list->empty()) continue;
    const char* program = list == &v6 ? "ip -6 -batch - 2>&1" : "ip -batch - 2>&1";
    FILE* ip = ::popen(program, "w");
    if (ip == nullptr) {
      std::fprintf(out, "cannot run ip: %s\n", std::strerror(errno));
      return false;
    }
    for (const auto& c : *list) std::fprintf(ip, "%s\n", c.c_str());
    const int status = ::pclose(ip);
    if (status != 0) {
      std::fprintf(out, "%s failed (status %d) on one of:\n", program, status);
      for (const auto& c : *list) std::fprintf(out, "  %s\n", c.c_str());
      return false;
    }
  }
  return true;
}

std::string describe(const Route& r) {
  if (!r.found) return "no route (" + r.error + ")";
  return "type " + std::to_string(r.type) + " oif " + std::to_string(r.oif) + " gateway " +
         (r.gateway ? r.gateway->to_string() : "-") + " src " + (r.preferred_source ? r.preferred_source->to_string() : "-");
}

bool same(const Route& a, const Route& b) {
  return a.found == b.found && a.error == b.error && a.type == b.type && a.oif == b.oif && a.gateway == b.gateway &&
         a.preferred_source == b.preferred_source;
}

// Addresses in and around every prefix the tables below use, and beyond.
std::vector<net::IpAddress> destinations(net::Family family) {
  std::vector<net::IpAddress> out;
  auto add = [&](const std::string& text) {
    auto a = net::IpAddress::parse(text);
    if (a && a->family() == family) out.push_back(*a);
  };
  for (int i = 0; i < 256; i += 7) {
    add("10.9.0." + std::to_string(i));
    add("10.9.1." + std::to_string(i));
    add("fd00:9::" + std::to_string(i));
    add("fd00:9:1::" + std::to_string(i));
  }
  for (const char* net : {"10.20", "10.30", "10.40", "10.41", "10.42", "10.50", "10.60", "10.70", "10.80"}) {
    for (int third : {0, 5, 200}) {
      for (int fourth : {1, 77, 254}) add(std::string(net) + "." + std::to_string(third) + "." + std::to_string(fourth));
    }
  }
  for (const char* net : {"fd00:20", "fd00:30", "fd00:40", "fd00:41", "fd00:42", "fd00:60", "fd00:70"}) {
    for (const char* rest : {":0::1", ":5::77", ":200::fe"}) add(std::string(net) + rest);
  }
  for (const char* other : {"192.0.2.1", "198.51.100.7", "203.0.113.200", "8.8.8.8", "172.16.3.4", "10.9.0.2",
                            "10.9.0.3", "10.9.0.255", "127.0.0.1", "224.0.0.1", "255.255.255.255", "2001:db8::1",
                            "2001:db8:1::2", "fd00:9::2", "fd00:9::", "fe80::1", "ff02::1", "::1", "::ffff:10.9.0.7",
                            // by the default route, each nearest another of two sources on d0 (below)
                            "fd00:aa:1::5", "fd00:aa:2::9", "fd00:9:5::1"}) {
    add(other);
  }
  return out;
}

enum class Expect { Grouped, Alone };

// Every destination of a family asked grouped and alone; one line per
// disagreement, and whether the lookup grouped as expected.
int compare(FILE* out, net::Family family, Expect expect) {
  auto socket = net::NetlinkSocket::open();
  if (!socket) {
    std::fprintf(out, "cannot open netlink: %s\n", socket.error().summary().c_str());
    return 1;
  }
  KernelRoutes routes(std::move(socket.value()));
  const auto d = destinations(family);
  const std::vector<Route> grouped = routes.lookup(d);
  const size_t questions = routes.last_questions();
  const std::vector<Route> alone = routes.lookup_each(d);
  int rc = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    if (same(grouped[i], alone[i])) continue;
    std::fprintf(out, "%s: grouped %s, alone %s\n", d[i].to_string().c_str(), describe(grouped[i]).c_str(),
                 describe(alone[i]).c_str());
    rc = 1;
  }
  const char* name = family == net::Family::V4 ? "IPv4" : "IPv6";
  std::fprintf(out, "%s: %zu destinations, %zu questions\n", name, d.size(), questions);
  if (expect == Expect::Grouped && questions * 2 > d.size()) {
    std::fprintf(out, "%s: expected the lookup to group\n", name);
    rc = 1;
  }
  if (expect == Expect::Alone && questions != d.size()) {
    std::fprintf(out, "%s: expected every destination asked alone\n", name);
    rc = 1;
  }
  return rc;
}

// Two links, routes of every kind the snapshot must tell apart. IPv6:
// one global address (nodad: not tentative), so its source is certain.
const std::vector<std::string> kTables = {
    "link set lo up",
    // veth pairs (the dummy driver may be missing), both ends up so the
    // links have carrier.
    "link add d0 type veth peer name p0",
    "link set p0 up",
    "link set d0 up",
    "address add 10.9.0.2/24 dev d0",
    "address add 10.9.0.3/24 dev d0",
    "address add fd00:9::2/64 dev d0 nodad",
    "link add d1 type veth peer name p1",
    "link set p1 up",
    "link set d1 up",
    "address add 10.9.1.2/24 dev d1",
    "route add 10.20.0.0/16 via 10.9.0.1",
    "route add 10.20.5.0/24 via 10.9.1.1",
    "route add 10.30.0.0/16 dev d1 metric 5",
    "route add 10.30.0.0/16 dev d0 metric 10",
    "route add unreachable 10.40.0.0/16",
    "route add prohibit 10.41.0.0/16",
    "route add blackhole 10.42.0.0/16",
    "route add 10.50.0.0/16 tos 0x10 via 10.9.0.1",
    "route add 10.60.0.0/16 nexthop via 10.9.0.1 nexthop via 10.9.1.1",
    "route add 10.70.0.0/16 via 10.9.1.1 src 10.9.1.2",
    "route add default via 10.9.0.1",
    "route add fd00:9:1::/64 dev d1",
    "route add fd00:20::/32 via fd00:9::1",
    "route add fd00:20:5::/48 via fe80::1 dev d1",
    "route add fd00:30::/32 dev d1 metric 5",
    "route add fd00:30::/32 dev d0 metric 10",
    "route add unreachable fd00:40::/32",
    "route add prohibit fd00:41::/32",
    "route add blackhole fd00:42::/32",
    "route add fd00:60::/32 nexthop via fe80::1 dev d0 nexthop via fe80::2 dev d1",
    "route add fd00:70::/32 via fd00:9::1 src fd00:9::2",
    "route add default via fd00:9::1",
};

Outcome run(const std::vector<std::string>& extra, Expect v4, Expect v6) {
  return in_private_namespace([&](FILE* out) {
    std::vector<std::string> commands = kTables;
    commands.insert(commands.end(), extra.begin(), extra.end());
    if (!ip_batch(out, commands)) return 1;
    const int a = compare(out, net::Family::V4, v4);
    const int b = compare(out, net::Family::V6, v6);
    return a | b;
  });
}

void check(const Outcome& o) {
  if (o.status == kSkip) GTEST_SKIP() << o.output;
  EXPECT_EQ(o.status, 0) << o.output;
}

TEST(KernelRoutesInANamespace, GroupedAnswersAreTheKernelsAnswers) {
  check(run({}, Expect::Grouped, Expect::Grouped));
}

TEST(KernelRoutesInANamespace, WithoutADefaultRouteTooOrWithTwo) {
  check(run({"route del default", "route del ::/0"}, Expect::Grouped, Expect::Grouped));
  check(run({"route add default via 10.9.1.1 metric 50", "route add default via fd00:9::1 dev d0 metric 50"},
            Expect::Grouped, Expect::Grouped));
}

TEST(KernelRoutesInANamespace, AnotherRuleMeansEveryDestinationIsAskedAlone) {
  check(run({"rule add from 10.9.0.3 table 100", "route add 10.20.0.0/16 via 10.9.1.1 table 100",
             "-6 rule add from fd00:9::2 table 100", "route add fd00:20::/32 dev d1 table 100"},
            Expect::Alone, Expect::Alone));
}

TEST(KernelRoutesInANamespace, ASecondGlobalIpv6AddressMeansIpv6IsAskedAlone) {
  // Two sources on d0: the kernel takes the one sharing the longer prefix
  // with each destination (RFC 6724 rule 8), so one route gives
  // destinations different sources. And one on another link.
  check(run({"address add fd00:aa::2/64 dev d0 nodad"}, Expect::Grouped, Expect::Alone));
  check(run({"address add fd00:9:1::2/64 dev d1 nodad"}, Expect::Grouped, Expect::Alone));
}

TEST(KernelRoutesInANamespace, AFewDestinationsAreAskedAlone) {
  const Outcome o = in_private_namespace([](FILE* out) {
    if (!ip_batch(out, kTables)) return 1;
    auto socket = net::NetlinkSocket::open();
    if (!socket) return 1;
    KernelRoutes routes(std::move(socket.value()));
    std::vector<net::IpAddress> few;
    for (size_t i = 1; i < KernelRoutes::kGroupFrom; ++i) {
      few.push_back(*net::IpAddress::parse("10.9.0." + std::to_string(10 + i)));
    }
    routes.lookup(few);
    std::fprintf(out, "%zu questions for %zu destinations\n", routes.last_questions(), few.size());
    return routes.last_questions() == few.size() ? 0 : 1;
  });
  check(o);
}

}  // namespace
}  // namespace orca::reach::netlink
