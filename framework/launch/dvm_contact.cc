// A DVM's contact file: where it is, its text, and finding the one that runs.
#include "launch/dvm_contact.h"

#include "launch/launch_text.h"
#include "oob/oob_host.h"

#include <orca/bounded_file.h>
#include <orca/private_file.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <map>
#include <memory>
#include <vector>

namespace orca::launch {
namespace {

constexpr std::string_view kPrefix = "dvm.";

Message malformed(const std::string& file, const std::string& why) {
  return Message("launch", "dvm-contact-malformed", {{"file", file}, {"why", why}});
}

// A whole number from 1 to `most`, or nothing.
std::optional<std::uint64_t> number(std::string_view text, std::uint64_t most) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n == 0 || n > most) return std::nullopt;
  return n;
}

// The PID of a contact file's name, "dvm.4242"; nothing for other names.
std::optional<pid_t> pid_of_name(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  auto n = number(name.substr(kPrefix.size()), INT_MAX);
  if (!n) return std::nullopt;
  return static_cast<pid_t>(*n);
}

}  // namespace

std::string dvm_log_path(const std::string& contact_file) { return contact_file + ".log"; }

std::string dvm_contact_directory(const std::function<const char*(const char*)>& lookup) {
  const char* runtime = lookup("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] == '/') return std::string(runtime) + "/orca";
  const char* home = lookup("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.orca";
  return "";
}

std::string encode_dvm_contact(const DvmContact& c) {
  return "orca-dvm 1\npid " + std::to_string(c.pid) + "\nuri " + c.uri + "\nsecret " + c.secret_hex + "\nhosts " +
         std::to_string(c.hosts) + "\n";
}

Result<DvmContact> parse_dvm_contact(std::string_view text, const std::string& file) {
  std::map<std::string, std::string, std::less<>> values;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) return malformed(file, "\"" + excerpt(line) + "\" is not \"key value\"");
    const std::string key(line.substr(0, space));
    if (key != "orca-dvm" && key != "pid" && key != "uri" && key != "secret" && key != "hosts") {
      return malformed(file, "the key \"" + excerpt(key) + "\" is unknown");
    }
    if (!values.emplace(key, line.substr(space + 1)).second) return malformed(file, "\"" + key + "\" is given twice");
  }
  for (const char* key : {"orca-dvm", "pid", "uri", "secret", "hosts"}) {
    if (values.count(key) == 0) return malformed(file, std::string("\"") + key + "\" is missing");
  }
  if (values["orca-dvm"] != "1") return malformed(file, "format \"" + excerpt(values["orca-dvm"]) + "\" is not 1");
  DvmContact c;
  const auto pid = number(values["pid"], INT_MAX);
  if (!pid) return malformed(file, "pid \"" + excerpt(values["pid"]) + "\" is not a process id");
  c.pid = static_cast<pid_t>(*pid);
  const auto hosts = number(values["hosts"], UINT32_MAX);
  if (!hosts) return malformed(file, "hosts \"" + excerpt(values["hosts"]) + "\" is not a count above 0");
  c.hosts = static_cast<std::uint32_t>(*hosts);
  c.uri = values["uri"];
  const bool plain = !c.uri.empty() && std::all_of(c.uri.begin(), c.uri.end(), [](char ch) {
    return static_cast<unsigned char>(ch) > 0x20 && ch != 0x7f;
  });
  if (!plain) return malformed(file, "uri \"" + excerpt(c.uri) + "\" is empty or holds blanks or control bytes");
  if (auto secret = oob::parse_job_secret(values["secret"], file); !secret) {
    return malformed(file, "its secret is unusable: " + secret.error().arg("why"));
  }
  c.secret_hex = values["secret"];
  return c;
}

Result<std::string> write_dvm_contact(const std::string& directory, const DvmContact& contact) {
  const std::string path = directory + "/" + std::string(kPrefix) + std::to_string(contact.pid);
  if (std::string why = write_private_file(path, encode_dvm_contact(contact)); !why.empty()) {
    return Message("launch", "dvm-contact-unwritable", {{"file", path}, {"why", why}});
  }
  return path;
}

Result<DvmContact> read_dvm_contact(const std::string& path) {
  const BoundedFile file = read_bounded_file(path, kMaxDvmContactBytes, "a DVM's contact file",
                                             {.no_symlink = true, .private_to_user = true, .secret = true});
  if (!file.ok()) return Message("launch", "dvm-contact-unreadable", {{"file", path}, {"why", file.error}});
  return parse_dvm_contact(file.text, path);
}

namespace {

// The contact files of `directory` whose DVM runs, in name order.
std::vector<std::string> running_dvm_files(const std::string& directory, const std::function<bool(pid_t)>& alive) {
  std::vector<std::string> running;
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory.c_str()), &::closedir);
  if (dir) {
    while (const dirent* e = ::readdir(dir.get())) {
      const auto pid = pid_of_name(e->d_name);
      if (pid && alive(*pid)) running.push_back(directory + "/" + e->d_name);
    }
  }
  std::sort(running.begin(), running.end());
  return running;
}

}  // namespace

Result<std::string> find_running_dvm(const std::string& directory, const std::function<bool(pid_t)>& alive) {
  const std::vector<std::string> running = running_dvm_files(directory, alive);
  if (running.empty()) return Message("launch", "dvm-none-running", {{"directory", directory}});
  if (running.size() > 1) {
    std::string files;
    for (const auto& f : running) files += "\n  " + f;
    return Message("launch", "dvm-several-running", {{"directory", directory}, {"files", files}});
  }
  return running.front();
}

Result<std::string> resolve_dvm_name(const std::string& word, const std::string& directory,
                                     const std::function<bool(pid_t)>& alive) {
  if (word.starts_with("file:")) return word.substr(5);
  struct stat st {};
  if (::stat(word.c_str(), &st) == 0 || !oob::ContactUri::parse(word)) return word;
  for (const auto& file : running_dvm_files(directory, alive)) {
    // Another file's trouble (a stale or foreign one) is not this word's.
    if (auto contact = read_dvm_contact(file); contact && contact->uri == word) return file;
  }
  return Message("launch", "dvm-uri-unknown", {{"uri", word}, {"directory", directory}});
}

}  // namespace orca::launch
