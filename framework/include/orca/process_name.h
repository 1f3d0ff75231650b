/*
 * Process names: (job id, vpid). The launcher is vpid 0 of the daemon job;
 * daemons are 1..N. Text form "<job>.<vpid>".
 */
#ifndef ORCA_PROCESS_NAME_H
#define ORCA_PROCESS_NAME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orca_process_name {
    uint32_t job;
    uint32_t vpid;
} orca_process_name;

#ifdef __cplusplus
}

#include <orca/export.h>

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace orca {

struct ORCA_EXPORT ProcessName {
  uint32_t job = 0;
  uint32_t vpid = 0;

  static ProcessName from_c(orca_process_name n) { return {n.job, n.vpid}; }
  orca_process_name to_c() const { return {job, vpid}; }
  /* "<job>.<vpid>" */
  std::string to_string() const;
  static std::optional<ProcessName> parse(std::string_view text);

  friend auto operator<=>(const ProcessName&, const ProcessName&) = default;
};

}  // namespace orca
#endif  // __cplusplus

#endif  // ORCA_PROCESS_NAME_H
