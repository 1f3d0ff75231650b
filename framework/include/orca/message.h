/*
 * Message: a user-facing error or warning as a value.
 *
 * A message names a help topic (file help-<area>.txt, section [topic]) and
 * the values of its placeholders. Code that detects a problem builds a
 * Message; the edge of the program (a tool's main) renders it through a
 * HelpCatalog (help.h). Keeping the text in help files means every message
 * can say what happened, why, and what to set, in plain language, without
 * string-building scattered through the code.
 *
 * The topic is for the reader; code that acts on an error (retries it,
 * goes on past it) tests its kind instead, so a help topic can be renamed
 * or split without changing what the program does.
 */
#ifndef ORCA_MESSAGE_H
#define ORCA_MESSAGE_H

#include <orca/export.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orca {

/* What a caller may do about an error. */
enum class ErrorKind : std::uint8_t {
  Failed,    // nothing but report it (the default)
  Busy,      // back-pressure: the same request succeeds once the peer or queue drains
  Declined,  // not this component's to serve: another may
  BadValue,  // a user's setting is invalid; the default stands in while it is reported
};

class ORCA_EXPORT Message {
 public:
  using Args = std::vector<std::pair<std::string, std::string>>;

  Message(std::string area, std::string topic, Args args = {}, ErrorKind kind = ErrorKind::Failed)
      : area_(std::move(area)), topic_(std::move(topic)), args_(std::move(args)), kind_(kind) {}

  const std::string& area() const noexcept { return area_; }
  const std::string& topic() const noexcept { return topic_; }
  const Args& args() const noexcept { return args_; }
  ErrorKind kind() const noexcept { return kind_; }

  /* The value of placeholder `key`, or "" when absent. */
  std::string arg(std::string_view key) const;

  /* One line without the help text: "<area>/<topic>: key=value; ...".
   * For logs and tests; users see the rendered help text. */
  std::string summary() const;

 private:
  std::string area_;
  std::string topic_;
  Args args_;
  ErrorKind kind_;
};

/* `text` safe to show on a terminal: control bytes other than newline
 * and tab, and DEL, become \xNN (a value from the network, a file or the
 * environment must not move the cursor or hide what follows). Bytes
 * from 0x80 are kept, so UTF-8 names read as written. */
ORCA_EXPORT std::string printable(std::string_view text);

}  // namespace orca

#endif  // ORCA_MESSAGE_H
