// What orcarun tells a job's daemons to leave unloaded.
#include "orcarun/daemon_components.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::orcarun {
namespace {

// The components of this tree, as orcarun's repository finds them.
const std::vector<FoundComponent> kFound = {
    {"oob", "tcp"},        {"oob", "usock"},        {"plm", "local"},         {"plm", "rsh"},
    {"plm", "slurm"},      {"pmi", "pmix"},         {"pmi", "simple"},        {"ras", "hostfile"},
    {"ras", "slurm"},      {"reachable", "netlink"}, {"reachable", "weighted"}, {"routed", "direct"},
    {"routed", "radix"}};

using Names = std::vector<std::string>;

TEST(DaemonComponents, AnSshJobKeepsItsPlmRoutedAndEverythingChosenOnTheHost) {
  EXPECT_EQ(daemon_unused_components(kFound, {.routed = "radix", .plm = "rsh", .pmix_server = false}),
            (Names{"plm/local", "plm/slurm", "pmi/pmix", "ras/hostfile", "ras/slurm", "routed/direct"}));
}

TEST(DaemonComponents, ASlurmJobWithAPmixServer) {
  EXPECT_EQ(daemon_unused_components(kFound, {.routed = "direct", .plm = "slurm", .pmix_server = true}),
            (Names{"plm/local", "plm/rsh", "ras/hostfile", "ras/slurm", "routed/radix"}));
}

TEST(DaemonComponents, AJobWhoseRanksSpeakNoPmiLeavesBothPmiComponentsOut) {
  EXPECT_EQ(daemon_unused_components(kFound, {.routed = "radix", .plm = "local", .pmix_server = false, .simple_server = false}),
            (Names{"plm/rsh", "plm/slurm", "pmi/pmix", "pmi/simple", "ras/hostfile", "ras/slurm", "routed/direct"}));
}

TEST(DaemonComponents, OobReachableAndIofAreNeverLeftOut) {
  const std::vector<FoundComponent> found = {{"oob", "tcp"},          {"reachable", "netlink"}, {"iof", "base"},
                                             {"pmi", "simple"},       {"oob", "usock"},         {"reachable", "weighted"}};
  EXPECT_TRUE(daemon_unused_components(found, {.routed = "radix", .plm = "local", .pmix_server = false}).empty());
  EXPECT_EQ(daemon_unused_components(found, {.routed = "radix", .plm = "local", .simple_server = false}),
            (Names{"pmi/simple"}));
}

TEST(DaemonComponents, AComponentFoundTwiceIsNamedOnce) {
  // The same name in two directories of the component path.
  const std::vector<FoundComponent> found = {{"ras", "hostfile"}, {"ras", "hostfile"}, {"routed", "radix"}};
  EXPECT_EQ(daemon_unused_components(found, {.routed = "radix", .plm = "local"}), (Names{"ras/hostfile"}));
}

}  // namespace
}  // namespace orca::orcarun
