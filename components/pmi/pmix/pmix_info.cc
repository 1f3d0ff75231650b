// pmi/pmix's helpers around libpmix's info lists and operations.
#include "pmix_info.h"

#include <chrono>
#include <memory>

namespace orca::pmi {

std::string status_text(const PmixLibrary& lib, pmix_status_t st) {
  return std::string(lib.PMIx_Error_string(st)) + " (" + std::to_string(st) + ")";
}

void OperationWait::done(pmix_status_t status, void* cbdata) {
  auto* w = static_cast<OperationWait*>(cbdata);
  const std::lock_guard<std::mutex> lock(w->mutex_);
  w->status_ = status;
  w->done_ = true;
  w->cv_.notify_all();
}

pmix_status_t OperationWait::wait(pmix_status_t started) {
  if (started == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
  if (started != PMIX_SUCCESS) return started;
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, std::chrono::seconds(30), [this] { return done_; })) return PMIX_ERR_TIMEOUT;
  return status_;
}

void ignore_result(pmix_status_t, void*) {}

void release_bytes(void* owner) { std::unique_ptr<std::string>(static_cast<std::string*>(owner)); }

}  // namespace orca::pmi
