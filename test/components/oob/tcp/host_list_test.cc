// fill_from_host: little room first, more only when a call filled it all.
#include "oob/tcp/host_list.h"

#include <gtest/gtest.h>

#include <vector>

namespace orca::oob::tcp {
namespace {

// A host call that has `have` entries (0, 1, 2, ...) and writes what fits.
struct FakeHost {
  std::size_t have = 0;
  std::vector<std::size_t> rooms;  // the room of each call
  orca_mca_rc operator()(int* out, std::size_t* n) {
    rooms.push_back(*n);
    const std::size_t w = std::min(have, *n);
    for (std::size_t i = 0; i < w; ++i) out[i] = static_cast<int>(i);
    *n = w;
    return ORCA_MCA_OK;
  }
};

std::vector<int> first_n(std::size_t n) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i);
  return v;
}

TEST(FillFromHost, FewEntriesTakeOneCallWithLittleRoom) {
  FakeHost host{.have = 3};
  std::vector<int> out;
  EXPECT_EQ(ORCA_MCA_OK, fill_from_host(out, 16, 4096, std::ref(host)));
  EXPECT_EQ(first_n(3), out);
  EXPECT_EQ((std::vector<std::size_t>{16}), host.rooms);
}

// Exactly the room: the call may have been cut short, so it is asked again.
TEST(FillFromHost, AFullBufferIsAskedAgainWithMoreRoom) {
  for (std::size_t have : {16u, 17u, 100u, 1000u}) {
    FakeHost host{.have = have};
    std::vector<int> out;
    EXPECT_EQ(ORCA_MCA_OK, fill_from_host(out, 16, 4096, std::ref(host)));
    EXPECT_EQ(first_n(have), out) << have;
    EXPECT_LT(host.rooms.back(), 4 * have + 64) << have;
  }
}

TEST(FillFromHost, NeverMoreThanTheMostAndNoneIsFine) {
  FakeHost many{.have = 10000};
  std::vector<int> out;
  EXPECT_EQ(ORCA_MCA_OK, fill_from_host(out, 16, 100, std::ref(many)));
  EXPECT_EQ(first_n(100), out);  // cut at the most, as the host call cuts
  EXPECT_EQ((std::vector<std::size_t>{16, 64, 100}), many.rooms);
  FakeHost none{};
  EXPECT_EQ(ORCA_MCA_OK, fill_from_host(out, 0, 100, std::ref(none)));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((std::vector<std::size_t>{1}), none.rooms);
}

TEST(FillFromHost, AFailureIsReturnedWithNothing) {
  std::vector<int> out{1, 2, 3};
  EXPECT_EQ(ORCA_MCA_FAILED, fill_from_host(out, 16, 100, [](int*, std::size_t*) { return ORCA_MCA_FAILED; }));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace orca::oob::tcp
