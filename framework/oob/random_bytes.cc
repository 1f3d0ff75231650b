// random_bytes: getrandom(2), looping over short reads and signals.
#include <orca/oob_random.h>

#include <errno.h>
#include <sys/random.h>

#include <cstring>

namespace orca::oob {

bool random_bytes(std::span<std::uint8_t> out, std::string* why) {
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (why != nullptr) *why = std::string("getrandom failed: ") + std::strerror(errno);
      return false;
    }
    got += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace orca::oob
