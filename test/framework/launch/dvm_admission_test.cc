// DvmAdmission (framework/launch/dvm_admission.h): a DVM's jobs admitted
// to its hosts' slots in submission order, waiting or refused at once,
// and every slot back once every job has ended.
#include "launch/dvm_admission.h"

#include <gtest/gtest.h>

#include <vector>

namespace orca::launch {
namespace {

using Ids = std::vector<DvmJobId>;

DvmJobRequest job(DvmJobId id, std::vector<unsigned> slots, bool wait = true) {
  return {.id = id, .slots = std::move(slots), .wait = wait};
}

TEST(DvmAdmission, AJobThatFitsStartsAndTakesItsSlots) {
  DvmAdmission a({2, 2});
  EXPECT_EQ(a.submit(job(1, {2, 1})), Admission::Now);
  EXPECT_EQ(a.free(0), 0u);
  EXPECT_EQ(a.free(1), 1u);
  EXPECT_EQ(a.submit(job(2, {0, 1})), Admission::Now);
  EXPECT_EQ(a.running(), 2u);
  EXPECT_EQ(a.waiting(), 0u);
}

TEST(DvmAdmission, WaitingJobsStartInSubmissionOrderAndNoneOvertakes) {
  DvmAdmission a({2, 2});
  ASSERT_EQ(a.submit(job(1, {2, 0})), Admission::Now);
  EXPECT_EQ(a.submit(job(2, {1, 0})), Admission::Waiting);
  // Job 3 would fit on host 1, but job 2 came first.
  EXPECT_EQ(a.submit(job(3, {0, 1})), Admission::Waiting);
  EXPECT_EQ(a.submit(job(4, {2, 2})), Admission::Waiting);
  EXPECT_EQ(a.release(1), (Ids{2, 3})) << "4 needs host 0 whole; it stops the rest";
  EXPECT_EQ(a.waiting(), 1u);
  EXPECT_EQ(a.release(2), Ids{});
  EXPECT_EQ(a.release(3), (Ids{4}));
  EXPECT_EQ(a.release(4), Ids{});
  EXPECT_EQ(a.free(0), 2u);
  EXPECT_EQ(a.free(1), 2u);
}

TEST(DvmAdmission, AClientThatWillNotWaitIsRefusedAtOnce) {
  DvmAdmission a({1});
  ASSERT_EQ(a.submit(job(1, {1})), Admission::Now);
  EXPECT_EQ(a.submit(job(2, {1}, false)), Admission::Busy);
  DvmAdmission queued({2});
  ASSERT_EQ(queued.submit(job(1, {2})), Admission::Now);
  ASSERT_EQ(queued.submit(job(2, {2})), Admission::Waiting);
  ASSERT_EQ(queued.release(1), (Ids{2}));
  ASSERT_EQ(queued.submit(job(3, {2})), Admission::Waiting);
  EXPECT_EQ(queued.submit(job(4, {0}, false)), Admission::Busy) << "a job is waiting before it";
  EXPECT_EQ(queued.waiting(), 1u);
}

TEST(DvmAdmission, MoreThanAHostHasOrAHostItLacksCanNeverRun) {
  DvmAdmission a({2, 1});
  EXPECT_EQ(a.submit(job(1, {3, 0})), Admission::Never);
  EXPECT_EQ(a.submit(job(2, {0, 0, 1})), Admission::Never);
  EXPECT_EQ(a.submit(job(3, {1, 1, 0})), Admission::Now) << "0 on a host it lacks asks nothing there";
  EXPECT_EQ(a.submit(job(3, {1})), Admission::Never) << "the id runs already";
  EXPECT_EQ(a.running(), 1u);
}

TEST(DvmAdmission, AWaitingClientThatLeavesLetsTheNextOneIn) {
  DvmAdmission a({2});
  ASSERT_EQ(a.submit(job(1, {1})), Admission::Now);
  ASSERT_EQ(a.submit(job(2, {2})), Admission::Waiting);
  ASSERT_EQ(a.submit(job(3, {1})), Admission::Waiting);
  EXPECT_EQ(a.release(2), (Ids{3}));
  EXPECT_EQ(a.waiting(), 0u);
  EXPECT_EQ(a.running(), 2u);
  EXPECT_EQ(a.release(99), Ids{}) << "an unknown id changes nothing";
}

TEST(DvmAdmission, AnOversubscribedJobTakesWhatIsFreeAndGivesBackExactlyThat) {
  DvmAdmission a({2, 2});
  ASSERT_EQ(a.submit(job(1, {1, 0})), Admission::Now);
  DvmJobRequest shared = job(2, {4, 1});
  shared.oversubscribe = true;
  EXPECT_EQ(a.submit(shared), Admission::Now);
  EXPECT_EQ(a.free(0), 0u);
  EXPECT_EQ(a.free(1), 1u);
  EXPECT_EQ(a.release(2), Ids{});
  EXPECT_EQ(a.free(0), 1u) << "job 1's slot stays taken";
  EXPECT_EQ(a.release(1), Ids{});
  EXPECT_EQ(a.free(0), 2u);
  EXPECT_EQ(a.free(1), 2u);
}

TEST(DvmAdmission, AHostGoneTakesItsSlotsAndTheWaitingJobsThatNeededIt) {
  DvmAdmission a({1, 1});
  ASSERT_EQ(a.submit(job(1, {1, 1})), Admission::Now);
  ASSERT_EQ(a.submit(job(2, {0, 1})), Admission::Waiting);
  ASSERT_EQ(a.submit(job(3, {1, 0})), Admission::Waiting);
  const auto gone = a.remove_host(1);
  EXPECT_EQ(gone.never, Ids{2});
  EXPECT_EQ(gone.admitted, Ids{}) << "host 0 is still job 1's";
  EXPECT_EQ(a.release(1), Ids{3});
  EXPECT_EQ(a.free(1), 0u) << "job 1's slot on the lost host is not given back";
  EXPECT_EQ(a.submit(job(4, {0, 1})), Admission::Never);
  EXPECT_EQ(a.submit(job(5, {1, 0}, false)), Admission::Busy);
}

TEST(DvmAdmission, ThousandsOfJobsLeaveEverySlotFree) {
  DvmAdmission a({2, 2, 2, 2});
  DvmJobId next = 1;
  std::vector<DvmJobId> running;
  for (int round = 0; round < 1000; ++round) {
    const DvmJobId id = next++;
    const Admission got = a.submit(job(id, {1, 0, 1, 0}));
    ASSERT_NE(got, Admission::Never);
    if (got == Admission::Now) running.push_back(id);
    if (running.size() == 2) {
      for (DvmJobId r : a.release(running.front())) running.push_back(r);
      running.erase(running.begin());
    }
  }
  while (!running.empty()) {
    for (DvmJobId r : a.release(running.front())) running.push_back(r);
    running.erase(running.begin());
  }
  EXPECT_EQ(a.running(), 0u);
  EXPECT_EQ(a.waiting(), 0u);
  for (std::size_t h = 0; h < 4; ++h) EXPECT_EQ(a.free(h), 2u);
}

}  // namespace
}  // namespace orca::launch
