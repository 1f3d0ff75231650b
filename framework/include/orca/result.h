/*
 * Result<T>: a value or the Message explaining why there is none.
 *
 * The error type inside liborca. Functions that can fail for reasons a user
 * can fix return Result; programming errors (calling value() on an error)
 * abort with the message, since continuing would act on garbage.
 */
#ifndef ORCA_RESULT_H
#define ORCA_RESULT_H

#include <orca/message.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <variant>

namespace orca {

namespace detail {
[[noreturn]] inline void result_misuse(const Message& m) {
  std::fprintf(stderr, "orca: internal error: value() on a failed result: %s\n",
               m.summary().c_str());
  std::abort();
}
}  // namespace detail

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Message error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { check(); return std::get<0>(v_); }
  const T& value() const& { check(); return std::get<0>(v_); }
  T&& value() && { check(); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /* Only on a failed result. */
  const Message& error() const { return std::get<1>(v_); }
  /* Failed, with an error of that kind. */
  bool failed_with(ErrorKind kind) const noexcept { return !ok() && std::get<1>(v_).kind() == kind; }

 private:
  void check() const {
    if (!ok()) detail::result_misuse(std::get<1>(v_));
  }
  std::variant<T, Message> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Message error) : error_(std::move(error)) {}

  bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Message& error() const { return *error_; }
  bool failed_with(ErrorKind kind) const noexcept { return error_ && error_->kind() == kind; }

 private:
  std::optional<Message> error_;
};

using Status = Result<void>;

}  // namespace orca

#endif  // ORCA_RESULT_H
