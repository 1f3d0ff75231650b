// Replays a fuzz target's checked-in corpus through its
// LLVMFuzzerTestOneInput, so that `make check` runs every seed and every
// regression input on every build, fuzzer or not.
//
// The target is named by the program: test/fuzz/<name>_replay replays
// $ORCA_TEST_SRCDIR/test/fuzz/corpus/<name>/ (or the files and folders
// given as arguments, to reproduce a crash). It reports like GoogleTest,
// one case per target, so the test summary counts it:
//   [ RUN      ] FuzzReplay.<name>
//   [       OK ] FuzzReplay.<name> (N ms)
// A crashing input aborts the program; a signal handler first names the
// file and prints the FAILED line. An empty or missing corpus fails too:
// a replay of nothing would pass forever unnoticed.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

// What the crash handler prints: set before each input, read only there.
std::string g_test;
std::string g_current_file;
timespec g_start{};

long long ms_since(const timespec& from) {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - from.tv_sec) * 1000LL + (now.tv_nsec - from.tv_nsec) / 1000000;
}

void write_text(int fd, const char* s, size_t n) { (void)!::write(fd, s, n); }
void write_text(int fd, const std::string& s) { write_text(fd, s.data(), s.size()); }
void write_text(int fd, const char* s) { write_text(fd, s, std::strlen(s)); }

void on_crash(int signo) {
  // Only async-signal-safe calls: no stdio, no allocation.
  write_text(2, "\nfuzz replay: crashed on ");
  write_text(2, g_current_file);
  write_text(2, "\n");
  char digits[24];
  size_t n = 0;
  for (long long ms = std::max(0LL, ms_since(g_start)); n == 0 || ms > 0; ms /= 10) digits[n++] = static_cast<char>('0' + ms % 10);
  std::reverse(digits, digits + n);
  write_text(1, "[  FAILED  ] ");
  write_text(1, g_test);
  write_text(1, " (");
  write_text(1, digits, n);
  write_text(1, " ms)\n");
  ::signal(signo, SIG_DFL);
  ::raise(signo);
}

std::string target_name(const char* argv0) {
  std::string base = fs::path(argv0).filename().string();
  if (base.rfind("lt-", 0) == 0) base.erase(0, 3);  // a libtool wrapper's real program
  const std::string suffix = "_replay";
  if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
    base.resize(base.size() - suffix.size());
  }
  return base;
}

std::vector<fs::path> inputs_under(const fs::path& p) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (entry.is_regular_file(ec)) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
  } else if (fs::is_regular_file(p, ec)) {
    out.push_back(p);
  }
  return out;
}

std::vector<std::uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = target_name(argv[0]);
  const std::string test = "FuzzReplay." + name;
  ::clock_gettime(CLOCK_MONOTONIC, &g_start);
  g_test = test;
  std::printf("[ RUN      ] %s\n", test.c_str());
  std::fflush(stdout);

  std::vector<fs::path> where;
  for (int i = 1; i < argc; ++i) where.emplace_back(argv[i]);
  if (where.empty()) {
    const char* srcdir = std::getenv("ORCA_TEST_SRCDIR");
    where.push_back(fs::path(srcdir != nullptr ? srcdir : ".") / "test" / "fuzz" / "corpus" / name);
  }
  std::vector<fs::path> files;
  for (const auto& w : where) {
    auto more = inputs_under(w);
    files.insert(files.end(), more.begin(), more.end());
  }
  if (files.empty()) {
    std::fprintf(stderr, "no corpus files in %s (set ORCA_TEST_SRCDIR to the source tree)\n", where.front().c_str());
    std::printf("[  FAILED  ] %s (%lld ms)\n", test.c_str(), ms_since(g_start));
    return 1;
  }

  for (int s : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(s, on_crash);
  for (const auto& f : files) {
    g_current_file = f.string();
    const std::vector<std::uint8_t> bytes = read_all(f);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("%zu inputs replayed\n[       OK ] %s (%lld ms)\n", files.size(), test.c_str(),
              ms_since(g_start));
  return 0;
}
