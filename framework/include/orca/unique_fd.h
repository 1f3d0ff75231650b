/*
 * UniqueFd: owns a file descriptor and closes it exactly once.
 */
#ifndef ORCA_UNIQUE_FD_H
#define ORCA_UNIQUE_FD_H

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

// Sanitized builds (ASan) check every close: EBADF means the descriptor was
// closed already, by someone else or twice here, and its number may since
// have been another object's. Found, it stops the process with a stack.
#include <orca/address_sanitizer.h>
#ifdef ORCA_ADDRESS_SANITIZER
#define ORCA_UNIQUE_FD_CHECKS 1
#endif
#ifdef ORCA_UNIQUE_FD_CHECKS
#include <sanitizer/common_interface_defs.h>
#endif

namespace orca {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) close_checked(fd_);
    fd_ = fd;
  }

 private:
  static void close_checked(int fd) noexcept {
#ifdef ORCA_UNIQUE_FD_CHECKS
    if (::close(fd) != 0 && errno == EBADF) {
      std::fprintf(stderr, "orca: UniqueFd closed descriptor %d, which was closed already (a double close)\n", fd);
      __sanitizer_print_stack_trace();
      std::abort();
    }
#else
    ::close(fd);
#endif
  }
  int fd_ = -1;
};

}  // namespace orca

#endif  // ORCA_UNIQUE_FD_H
