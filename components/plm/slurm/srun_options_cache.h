// SrunOptionsCache: the options `srun --help` listed, remembered per srun
// file, so that later launches start the daemons' step without running
// srun once more first (2-2.5 ms of a job's start, and srun's CPU).
//
// The cache is one text file of the user's own, a line per srun file:
//   srun1 DEVICE INODE SIZE MODIFIED_NS CHANGED_NS OVERLAP EXTERNAL PATH
// An upgraded or rebuilt srun (or wrapper script) differs in one of the
// numbers and is probed again. The text is parsed with no trust: a line
// that does not parse is dropped, and the file is read only when it is a
// regular file of this user that nobody else may write.
#ifndef ORCA_COMPONENTS_PLM_SLURM_SRUN_OPTIONS_CACHE_H
#define ORCA_COMPONENTS_PLM_SLURM_SRUN_OPTIONS_CACHE_H

#include "srun_step.h"

#include <orca/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orca::plm::slurm {

/* The file that runs as srun, as the kernel knows it. */
struct SrunFile {
  std::string path;  // as found: absolute when PATH's entry is
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t modified_ns = 0;
  std::int64_t changed_ns = 0;
};

/* The file execvp would run for `name`: `name` itself when it holds a
 * '/', else the first executable regular file NAME in PATH (`lookup`'s;
 * an empty entry is the working directory). Errors (why): none found. */
Result<SrunFile> find_srun_file(const std::string& name, const Lookup& lookup);

/* What the cache text records for `file`, if a well-formed line of it does. */
std::optional<SrunFeatures> cached_features(std::string_view text, const SrunFile& file);

/* The cache text with `file`'s line first, then the other well-formed lines
 * of `text` not about the same path, kMaxCachedSruns lines at most. `text`
 * unchanged when the path cannot be written on one line. */
constexpr std::size_t kMaxCachedSruns = 16;
std::string with_features(std::string_view text, const SrunFile& file, const SrunFeatures& features);

/* $XDG_CACHE_HOME/orca/srun-options, else $HOME/.cache/orca/srun-options;
 * "" when neither variable is an absolute path. */
std::string cache_file_path(const Lookup& lookup);

/* The cache's text; "" when it is missing or not to be trusted: not a
 * regular file, not owned by this user, writable by group or others, or
 * larger than kMaxCacheBytes. */
constexpr std::size_t kMaxCacheBytes = 64 * 1024;
std::string read_cache(const std::string& path);

/* Replaces the cache with `text`: its directory made (0700) when missing,
 * the file written beside it (0600) and renamed over it, so that a reader
 * never sees half of it. Errors (why). */
Status write_cache(const std::string& path, std::string_view text);

}  // namespace orca::plm::slurm

#endif
