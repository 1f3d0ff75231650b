// HelpCatalog: loads help-<area>.txt topic files lazily and renders messages.
#include "help/help.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace orca {

namespace {

// Parses "[topic]" sections; text before the first section and '#' lines
// are comments. Trailing blank lines of a section are dropped.
std::map<std::string, std::string> parse_topics(std::istream& in) {
  std::map<std::string, std::string> topics;
  std::string line;
  std::string* current = nullptr;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') continue;
    if (line.size() > 2 && line.front() == '[' && line.back() == ']') {
      current = &topics[line.substr(1, line.size() - 2)];
      continue;
    }
    if (current != nullptr) *current += line + "\n";
  }
  for (auto& [name, text] : topics) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  }
  return topics;
}

}  // namespace

std::string fill_placeholders(const std::string& text, const Message::Args& args) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {
      size_t close = text.find('}', i + 1);
      if (close != std::string::npos) {
        std::string_view key(text.data() + i + 1, close - i - 1);
        bool found = false;
        for (const auto& [k, v] : args) {
          if (k == key) {
            out += printable(v);
            found = true;
            break;
          }
        }
        if (found) {
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

HelpCatalog::HelpCatalog(std::string program, std::vector<std::string> dirs)
    : program_(std::move(program)), dirs_(std::move(dirs)) {}

void HelpCatalog::set_dirs(std::vector<std::string> dirs) {
  dirs_ = std::move(dirs);
  files_.clear();
}

const HelpCatalog::Topics* HelpCatalog::load(const std::string& area) const {
  auto it = files_.find(area);
  if (it != files_.end()) return &it->second;
  unreadable_.clear();
  for (const auto& dir : dirs_) {
    const std::string path = dir + "/help-" + area + ".txt";
    std::ifstream in(path);
    if (in) return &files_.emplace(area, parse_topics(in)).first->second;
    const int err = errno;
    if (err != ENOENT && err != ENOTDIR && err != 0) unreadable_ = path + " cannot be read: " + std::strerror(err);
  }
  return nullptr;
}

std::string HelpCatalog::render(const Message& message) const {
  const Topics* topics = load(message.area());
  if (topics != nullptr) {
    auto it = topics->find(message.topic());
    if (it != topics->end()) return program_ + ": " + fill_placeholders(it->second, message.args());
  }
  // The text is missing (an uninstalled tool, a stale file): say so, and
  // still give everything the message carries.
  if (topics == nullptr && !unreadable_.empty()) return program_ + ": " + message.summary() + "\n(its help text: " + unreadable_ + ")";
  std::string where;
  for (const auto& d : dirs_) where += (where.empty() ? "" : ", ") + d;
  return program_ + ": " + message.summary() + "\n(help text help-" + message.area() +
         ".txt [" + message.topic() + "] not found in: " + (where.empty() ? "(no directory)" : where) +
         "; set mca_base_help_path to the directory holding Orca's help files)";
}

bool HelpCatalog::show(const Message& message, std::ostream& out, bool always) {
  const std::string key = message.area() + "/" + message.topic();
  const bool first = shown_.insert(key).second;
  if (!always && !first) return false;
  out << render(message) << '\n';
  out.flush();
  return true;
}

}  // namespace orca
