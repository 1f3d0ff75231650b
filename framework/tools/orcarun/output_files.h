// OutputFiles: --output-filename DIR, the ranks' output in a file per rank
// and stream instead of on orcarun's terminal:
//
//   DIR/rank.<N>/stdout     rank N's standard output, byte for byte
//   DIR/rank.<N>/stderr     its standard error
//
// DIR and the rank directories are made as needed (mode 0755, files
// 0644); a file is emptied when its rank first writes to it, so a job run
// again does not append to the last run's. Each write opens, appends and
// closes: a job of thousands of ranks holds no descriptor per rank.
#ifndef ORCA_TOOLS_ORCARUN_OUTPUT_FILES_H
#define ORCA_TOOLS_ORCARUN_OUTPUT_FILES_H

#include <orca/result.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace orca::orcarun {

class OutputFiles {
 public:
  enum class Stream { Stdout, Stderr };

  /* Makes `directory` (and its parents). Errors (orcarun/output-files):
   * it cannot be made or is not a directory, naming why. */
  static Result<OutputFiles> open(std::string directory);

  /* Appends `bytes` to the file of `rank` and `stream`. Errors
   * (orcarun/output-files): the file cannot be made or written (a full
   * disk), naming it and why. */
  Status write(std::uint32_t rank, Stream stream, std::string_view bytes);

  /* The file of `rank` and `stream`. */
  std::string path(std::uint32_t rank, Stream stream) const;

 private:
  explicit OutputFiles(std::string directory) : directory_(std::move(directory)) {}
  std::string directory_;
  std::set<std::pair<std::uint32_t, Stream>> started_;  // files emptied and written to in this run
};

}  // namespace orca::orcarun

#endif  // ORCA_TOOLS_ORCARUN_OUTPUT_FILES_H
