// Output flow control's two counters: the window each daemon computes,
// when it stops and starts, and when orcarun's credits go.
#include "iof/iof_flow.h"

#include <gtest/gtest.h>

namespace orca::iof {
namespace {

TEST(OutputWindow, ShareOfTheBufferWithinItsBounds) {
  EXPECT_EQ(output_window(32u << 20, 2), kMaxWindow);       // 16 MiB each: capped at 4 MiB
  EXPECT_EQ(output_window(32u << 20, 64), 512u * 1024);     // 32 MiB / 64
  EXPECT_EQ(output_window(32u << 20, 1024), kMinWindow);    // 32 KiB: raised to 64 KiB
  EXPECT_EQ(output_window(32u << 20, 0), kMaxWindow);       // no daemons counts as one
  EXPECT_EQ(output_window(0, 1), kMinWindow);
}

TEST(OutputWindow, ClosesAtTheWindowAndOpensWithCredit) {
  OutputWindow w(1000);
  EXPECT_TRUE(w.open());
  w.sent(999);
  EXPECT_TRUE(w.open());  // one more piece may go, however large
  w.sent(500);
  EXPECT_FALSE(w.open());
  EXPECT_EQ(w.outstanding(), 1499u);
  w.credited(499);
  EXPECT_FALSE(w.open());
  w.credited(1);
  EXPECT_TRUE(w.open());
  // A credit beyond what is outstanding only empties the count.
  w.credited(1u << 30);
  EXPECT_EQ(w.outstanding(), 0u);
  EXPECT_TRUE(w.open());
}

TEST(CreditLedger, CreditsGoByTheQuarterWindowPerDaemon) {
  CreditLedger ledger(1000);  // threshold 250
  EXPECT_FALSE(ledger.written(1, 100));
  EXPECT_FALSE(ledger.written(2, 249));
  EXPECT_FALSE(ledger.written(1, 149));
  EXPECT_EQ(ledger.owed(1), 249u);
  EXPECT_EQ(ledger.written(1, 1), std::optional<std::uint64_t>(250));
  EXPECT_EQ(ledger.owed(1), 0u);
  EXPECT_EQ(ledger.owed(2), 249u);
  EXPECT_EQ(ledger.written(2, 5000), std::optional<std::uint64_t>(5249));
  EXPECT_FALSE(ledger.written(3, 0));
}

// The no-deadlock argument of iof_flow.h, played out: a daemon that sends
// whenever its window is open, and an orcarun that writes in random-sized
// steps, always make progress until every byte is written.
TEST(CreditLedger, NeverStallsADaemonWhoseOutputIsWritten) {
  const std::uint64_t window = 64 * 1024;
  OutputWindow daemon(window);
  CreditLedger orcarun(window);
  std::uint64_t queued = 0, written = 0, total = 0;
  unsigned seed = 12345;
  auto next = [&seed] { seed = seed * 1103515245u + 12345u; return (seed >> 8) % 70000 + 1; };
  while (total < 50u << 20) {
    bool moved = false;
    if (daemon.open()) {
      const std::uint64_t piece = next();
      daemon.sent(piece);
      queued += piece;
      total += piece;
      moved = true;
    }
    if (queued > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(queued, next());
      queued -= n;
      written += n;
      if (auto c = orcarun.written(1, n)) daemon.credited(*c);
      moved = true;
    }
    ASSERT_TRUE(moved) << "stalled with " << daemon.outstanding() << " outstanding, " << queued << " queued";
    ASSERT_LE(daemon.outstanding(), window + 70000);
  }
  EXPECT_EQ(written + queued, total) << "bytes were lost or made up on the way";
}

}  // namespace
}  // namespace orca::iof
