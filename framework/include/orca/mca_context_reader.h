/*
 * ContextReader: how a component reads its variables in open(), checked.
 *
 * Over the C context (mca_component.h): a failed read is an error naming
 * the full variable (<prefix><name>), never a silent 0, and a value that
 * does not fit the destination is an error, never a wrap. The variables'
 * declared ranges keep real values far inside the destinations; this is
 * the second line. Errors use the help topic mca-var/unusable-var.
 */
#ifndef ORCA_MCA_CONTEXT_READER_H
#define ORCA_MCA_CONTEXT_READER_H

#include <orca/export.h>
#include <orca/mca_component.h>
#include <orca/result.h>

#include <cstdio>
#include <initializer_list>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace orca::mca {

class ORCA_EXPORT ContextReader {
 public:
  /* `prefix` is the component's ("oob_tcp_"), for messages. */
  ContextReader(const orca_mca_context& context, std::string prefix)
      : context_(context), prefix_(std::move(prefix)) {}

  /* A bool, int, unsigned or size variable into an integer type. */
  template <typename T>
  Status read(const char* name, T& target) const {
    std::int64_t v = 0;
    if (context_.get_int(&context_, name, &v) != ORCA_MCA_OK) {
      return unusable(name, "cannot be read as a number (no such variable, or its value is above 2^63-1)");
    }
    if (!std::in_range<T>(v)) {
      return unusable(name, "is " + std::to_string(v) + ", outside what the component can hold (" +
                                std::to_string(std::numeric_limits<T>::min()) + " to " +
                                std::to_string(std::numeric_limits<T>::max()) + ")");
    }
    target = static_cast<T>(v);
    return {};
  }
  Status read(const char* name, bool& target) const;
  /* A variable in milliseconds. */
  Status read(const char* name, std::chrono::milliseconds& target) const;
  /* A text variable of any length (up to 1 MiB). */
  Result<std::string> text(const char* name) const;

  const std::string& prefix() const noexcept { return prefix_; }

 private:
  Message unusable(const char* name, std::string why) const;
  const orca_mca_context& context_;
  std::string prefix_;
};

/* How open() reports its reads: OK when every one of `reads` succeeded,
 * else FAILED with the first failure's reason in *why. */
inline orca_mca_rc all_read(std::initializer_list<Status> reads, orca_mca_reason* why) {
  for (const Status& st : reads) {
    if (!st) {
      std::snprintf(why->text, sizeof why->text, "%s", st.error().arg("why").c_str());
      return ORCA_MCA_FAILED;
    }
  }
  return ORCA_MCA_OK;
}

}  // namespace orca::mca

#endif  // ORCA_MCA_CONTEXT_READER_H
