// split_host_word (host_word.h).
#include "launch/host_word.h"

#include "launch/launch_text.h"

#include <arpa/inet.h>

#include <algorithm>

namespace orca::launch {

namespace {

Message syntax(std::string_view source, std::string_view word, std::string why) {
  return Message("launch", "hostlist-syntax",
                 {{"source", std::string(source)}, {"part", excerpt(word)}, {"why", std::move(why)}});
}

bool is_ipv6(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return false;
  in6_addr parsed{};
  return ::inet_pton(AF_INET6, std::string(text).c_str(), &parsed) == 1;
}

// USER@: what ssh takes as a user name here.
bool is_user_name(std::string_view user) {
  if (user.empty() || user.front() == '-') return false;
  return std::all_of(user.begin(), user.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

// [ADDRESS] or [ADDRESS]:SLOTS.
Result<HostWord> bracketed_address(std::string_view word, std::string_view source) {
  const size_t close = word.find(']');
  if (close == std::string_view::npos) return syntax(source, word, "the '[' before the IPv6 address is never closed");
  const std::string_view address = word.substr(1, close - 1);
  if (!is_ipv6(address)) return syntax(source, word, "\"" + excerpt(address) + "\" is not an IPv6 address");
  HostWord w{.address = std::string(address)};
  const std::string_view rest = word.substr(close + 1);
  if (rest.empty()) return w;
  if (rest.front() != ':') return syntax(source, word, "after [ADDRESS] only :SLOTS may follow, as in [fe80::1]:4");
  w.slots = rest.substr(1);
  return w;
}

// The host after any USER@.
Result<HostWord> split_host(std::string_view word, std::string_view source) {
  const size_t colons = static_cast<size_t>(std::count(word.begin(), word.end(), ':'));
  // "[fe80::1]:2" is an address; "node[1-4]:2" a host list.
  if (!word.empty() && word.front() == '[' && word.substr(0, word.find(']')).find(':') != std::string_view::npos) {
    return bracketed_address(word, source);
  }
  if (colons >= 2) {
    if (is_ipv6(word)) return HostWord{.address = std::string(word)};
    return syntax(source, word,
                  "a host name holds no ':' and this is no IPv6 address; an IPv6 address with slots goes in "
                  "brackets, as in [fe80::1]:4");
  }
  if (colons == 0) return HostWord{.hostlist = word};
  const size_t colon = word.find(':');
  if (colon == 0) return syntax(source, word, "there is no host before the ':'");
  return HostWord{.hostlist = word.substr(0, colon), .slots = word.substr(colon + 1)};
}

}  // namespace

Result<HostWord> split_host_word(std::string_view word, std::string_view source) {
  std::string user;
  if (const size_t at = word.find('@'); at != std::string_view::npos) {
    user = std::string(word.substr(0, at));
    if (user.size() > kMaxUserNameLength) {
      return syntax(source, word, "the user name is longer than " + std::to_string(kMaxUserNameLength) + " characters");
    }
    if (!is_user_name(user)) {
      return syntax(source, word,
                    "\"" + excerpt(user) + "\" before the '@' is no user name (letters, digits, '.', '-' and '_')");
    }
    word.remove_prefix(at + 1);
  }
  auto w = split_host(word, source);
  if (w) w->user = std::move(user);
  return w;
}

Status host_word_names(const HostWord& word, std::string_view source, std::vector<std::string>& names,
                       HostlistBudget& budget) {
  if (word.address.empty()) {
    // A hostfile line may hold a whole list (a,b); a --host item is one.
    return word.hostlist.find(',') == std::string_view::npos
               ? expand_hostlist_item(word.hostlist, source, names, budget)
               : expand_hostlist_into(word.hostlist, source, names, budget);
  }
  // An address is one name, counted as an expanded one is.
  if (budget.names == 0 || word.address.size() > budget.chars) {
    return Message("launch", "hostlist-too-large",
                   {{"source", std::string(source)},
                    {"part", excerpt(word.address)},
                    {"count", std::to_string(kMaxHostNames + 1)},
                    {"limit", std::to_string(kMaxHostNames)},
                    {"problem", "at \"" + excerpt(word.address) + "\" the list has more than " +
                                    std::to_string(kMaxHostNames) + " hosts or characters than it may"}});
  }
  --budget.names;
  budget.chars -= word.address.size();
  names.push_back(word.address);
  return {};
}

Status add_user(const std::string& user, std::vector<std::string>& names, std::string_view word,
                std::string_view source, HostlistBudget& budget) {
  if (user.empty()) return {};
  const std::size_t extra = names.size() * (user.size() + 1);
  if (extra > budget.chars) {
    return Message("launch", "hostlist-too-long",
                   {{"source", std::string(source)},
                    {"part", excerpt(word)},
                    {"count", std::to_string(extra)},
                    {"limit", std::to_string(kMaxHostListChars)},
                    {"problem", "with its user, \"" + excerpt(word) + "\" adds " + std::to_string(extra) +
                                    " characters, above the bound of " + std::to_string(kMaxHostListChars)}});
  }
  budget.chars -= extra;
  for (std::string& n : names) n = user + "@" + n;
  return {};
}

}  // namespace orca::launch
