// DescriptorsExhausted: while it lives, this process can open no more
// descriptors (EMFILE): RLIMIT_NOFILE's soft limit is lowered and every
// number below it taken. The descriptors and the limit come back with it.
#ifndef ORCA_TEST_LIB_DESCRIPTORS_EXHAUSTED_H
#define ORCA_TEST_LIB_DESCRIPTORS_EXHAUSTED_H

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace orca::test {

class DescriptorsExhausted {
 public:
  DescriptorsExhausted() {
    if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) throw std::runtime_error("getrlimit(RLIMIT_NOFILE) failed");
    rlimit low = saved_;
    low.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, 64);
    if (::setrlimit(RLIMIT_NOFILE, &low) != 0) throw std::runtime_error("setrlimit(RLIMIT_NOFILE) failed");
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held_.push_back(fd);
  }
  ~DescriptorsExhausted() {
    for (int fd : held_) ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &saved_);
  }
  DescriptorsExhausted(const DescriptorsExhausted&) = delete;
  DescriptorsExhausted& operator=(const DescriptorsExhausted&) = delete;

 private:
  rlimit saved_{};
  std::vector<int> held_;
};

}  // namespace orca::test

#endif
