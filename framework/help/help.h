/*
 * Help messages: the text of every user-facing error and warning.
 *
 * Topic files are named help-<area>.txt and live in the directories of
 * `mca_base_help_path` (default $pkgdatadir). A file holds sections:
 *
 *   # comment
 *   [topic-name]
 *   Plain text with {placeholder}s, filled from the Message's args.
 *
 * show() prints a topic once per process (per catalog) unless `always` is
 * set; repeated warnings in loops stay readable. A missing file or topic
 * still prints the message's summary, so nothing is ever silently lost.
 */
#ifndef ORCA_HELP_H
#define ORCA_HELP_H

#include <orca/export.h>
#include <orca/message.h>

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace orca {

class ORCA_EXPORT HelpCatalog {
 public:
  /* `program` prefixes every message ("orca_info: ..."). */
  HelpCatalog(std::string program, std::vector<std::string> dirs);

  void set_dirs(std::vector<std::string> dirs);
  const std::vector<std::string>& dirs() const noexcept { return dirs_; }

  /* The full text of a message (no trailing newline). */
  std::string render(const Message& message) const;

  /* Reads the texts of `area` now, so that its messages render later even
   * when this process can no longer open a file (out of descriptors as it
   * reports why a launch of many processes failed). */
  void preload(const std::string& area) const { (void)load(area); }

  /* Writes render() and a newline to `out`, unless this area/topic was
   * already shown and `always` is false. Returns whether it wrote. */
  bool show(const Message& message, std::ostream& out, bool always = false);

 private:
  using Topics = std::map<std::string, std::string>;
  const Topics* load(const std::string& area) const;

  std::string program_;
  std::vector<std::string> dirs_;
  mutable std::map<std::string, Topics> files_;  // area -> topics, loaded lazily
  // Why the last load of a file found but could not read it (EMFILE: a
  // process out of descriptors fails that way as it reports the reason).
  mutable std::string unreadable_;
  std::set<std::string> shown_;
};

/* Replaces every {key} in `text` with its value in `args`; unknown
 * placeholders are left as they are. */
ORCA_EXPORT std::string fill_placeholders(const std::string& text, const Message::Args& args);

}  // namespace orca

#endif  // ORCA_HELP_H
