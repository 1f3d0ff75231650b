// What pmi/pmix's server and jobs share in talking to libpmix: its
// status words, info lists and arrays freed on scope exit, a wait for an
// operation's callback, and the callbacks that free what libpmix was lent.
#ifndef ORCA_COMPONENTS_PMI_PMIX_PMIX_INFO_H
#define ORCA_COMPONENTS_PMI_PMIX_PMIX_INFO_H

#include "pmix_library.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace orca::pmi {

/* libpmix's words for `st`, with the number. */
std::string status_text(const PmixLibrary& lib, pmix_status_t st);

// An info list under construction (libpmix's own list API), freed on scope exit.
class InfoList {
 public:
  explicit InfoList(const PmixLibrary& lib) : lib_(lib), list_(lib.PMIx_Info_list_start()) {
    if (list_ == nullptr) throw std::runtime_error("libpmix cannot make an info list");
  }
  ~InfoList() { lib_.PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;
  void add(const char* key, const void* value, pmix_data_type_t type) {
    if (pmix_status_t st = lib_.PMIx_Info_list_add(list_, key, value, type); st != PMIX_SUCCESS) {
      throw std::runtime_error(std::string("libpmix refused info ") + key + ": " + status_text(lib_, st));
    }
  }
  void text(const char* key, const std::string& v) { add(key, v.c_str(), PMIX_STRING); }
  void u32(const char* key, std::uint32_t v) { add(key, &v, PMIX_UINT32); }
  void u16(const char* key, std::uint16_t v) { add(key, &v, PMIX_UINT16); }
  void rank(const char* key, pmix_rank_t v) { add(key, &v, PMIX_PROC_RANK); }
  void flag(const char* key, bool v) { add(key, &v, PMIX_BOOL); }
  void* handle() const noexcept { return list_; }
  const PmixLibrary& library() const noexcept { return lib_; }

 private:
  const PmixLibrary& lib_;
  void* list_;
};

// An array of info made from a list, freed on scope exit.
class InfoArray {
 public:
  explicit InfoArray(const InfoList& list) : lib_(list.library()) {
    if (pmix_status_t st = lib_.PMIx_Info_list_convert(list.handle(), &array_); st != PMIX_SUCCESS) {
      throw std::runtime_error("libpmix cannot convert an info list: " + status_text(lib_, st));
    }
  }
  ~InfoArray() { lib_.PMIx_Data_array_destruct(&array_); }
  InfoArray(const InfoArray&) = delete;
  InfoArray& operator=(const InfoArray&) = delete;
  pmix_info_t* info() noexcept { return static_cast<pmix_info_t*>(array_.array); }
  size_t size() const noexcept { return array_.size; }
  pmix_data_array_t* array() noexcept { return &array_; }

 private:
  const PmixLibrary& lib_;
  pmix_data_array_t array_{};
};

// Waits on the loop thread for a libpmix operation's callback.
class OperationWait {
 public:
  static void done(pmix_status_t status, void* cbdata);
  /* `started`: what the call returned. */
  pmix_status_t wait(pmix_status_t started);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

/* A callback for an operation whose result nobody waits for. */
void ignore_result(pmix_status_t, void*);

/* Frees a std::string lent to libpmix (a fence's or a direct modex's
 * bytes) when libpmix is done with them. */
void release_bytes(void* owner);

}  // namespace orca::pmi

#endif
