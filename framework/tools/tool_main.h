// The outermost frame of every Orca tool. Errors are values everywhere
// below it; what still arrives here as an exception (out of memory, a
// broken invariant) ends the tool with one line saying so and status 70,
// rather than std::terminate's abort and core file on every node.
#ifndef ORCA_TOOLS_TOOL_MAIN_H
#define ORCA_TOOLS_TOOL_MAIN_H

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

namespace orca::tools {

inline constexpr int kInternalErrorStatus = 70;  // EX_SOFTWARE

template <typename Body>
int guarded_main(const char* tool, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of memory; the job needs more than this host can give\n", tool);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s (please report it)\n", tool, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: an unknown exception (please report it)\n", tool);
  }
  return kInternalErrorStatus;
}

/* Ends the process at once with `status`, after flushing standard output
 * and error: no destructor and no atexit handler runs. For a tool whose
 * work is done and whose remaining objects hold only what the kernel
 * takes back at exit (memory, descriptors), never files or children. */
[[noreturn]] inline void exit_without_teardown(int status) noexcept {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(status);
}

}  // namespace orca::tools

#endif
