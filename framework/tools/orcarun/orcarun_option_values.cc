// The values orcarun's options take.
#include "orcarun_option_values.h"

#include "mca/var/text.h"

#include <cmath>
#include <cstdlib>

namespace orca::orcarun {

Message bad_option(const std::string& option, const std::string& why) {
  return Message("orcarun", "bad-option", {{"option", option}, {"why", why}});
}

// Why `name` cannot name a forwarded variable, or "" if it can. Any byte
// but NUL and '=' may: the environment is C strings of NAME=VALUE.
std::string bad_variable_name(std::string_view name) {
  if (name.empty()) return "the variable's name is empty";
  if (name.find('=') != std::string_view::npos) return "a variable's name cannot hold '='";
  if (name.find('\0') != std::string_view::npos) return "a variable's name cannot hold a NUL byte";
  return "";
}

// "--opt=value" is accepted for options that take a value.
OptionWord split_option(const std::string& a) {
  OptionWord w{.name = a};
  if (a.rfind("--", 0) == 0) {
    if (size_t eq = a.find('='); eq != std::string::npos) {
      w.name = a.substr(0, eq);
      w.inline_value = a.substr(eq + 1);
      w.has_inline = true;
    }
  }
  return w;
}

// The option's value: the inline one, or the next word (args[i] moves on to it).
Result<std::string> take_value(const std::vector<std::string>& args, size_t& i, const OptionWord& w) {
  if (w.has_inline) return w.inline_value;
  if (i + 1 >= args.size()) return bad_option(w.name, "it needs a value");
  return args[++i];
}

namespace {

// -x WORD: NAME=VALUE, PREFIX* or NAME.
Result<ForwardRequest> forward_request(const std::string& word) {
  ForwardRequest r{.option = "-x " + word};
  if (const size_t eq = word.find('='); eq != std::string::npos) {
    r.kind = ForwardRequest::Kind::Value;
    r.name = word.substr(0, eq);
    r.value = word.substr(eq + 1);
    r.option = "-x " + r.name + "=...";  // a value may be long; messages name the variable
  } else if (!word.empty() && word.back() == '*') {
    // An empty prefix ("*") forwards all of orcarun's environment.
    r.kind = ForwardRequest::Kind::Prefix;
    r.name = word.substr(0, word.size() - 1);
    if (r.name.find('\0') != std::string::npos) return bad_option("-x", "a variable's name cannot hold a NUL byte");
    return r;
  } else {
    r.kind = ForwardRequest::Kind::FromEnvironment;
    r.name = word;
  }
  if (std::string why = bad_variable_name(r.name); !why.empty()) return bad_option("-x", why + " (-x NAME=VALUE, -x NAME or -x 'PREFIX*')");
  if (r.value.find('\0') != std::string::npos) return bad_option("-x", "a value cannot hold a NUL byte");
  return r;
}

// -genvlist NAME,NAME...: each as -x NAME.
Result<std::vector<ForwardRequest>> forward_list(const std::string& option, const std::string& list) {
  std::vector<ForwardRequest> out;
  size_t from = 0;
  while (true) {
    const size_t comma = std::min(list.find(',', from), list.size());
    std::string name = list.substr(from, comma - from);
    if (std::string why = bad_variable_name(name); !why.empty()) {
      return bad_option(option, why + " in \"" + printable(list) + "\" (it takes names between commas: a,b,c)");
    }
    out.push_back({.kind = ForwardRequest::Kind::FromEnvironment, .name = std::move(name), .option = option + " " + list});
    if (comma == list.size()) return out;
    from = comma + 1;
  }
}

}  // namespace

Status add_host(const std::string& /*name*/, const std::string& value, Options& o) {
  o.hosts.push_back(value);
  return {};
}

Status add_hostfile(const std::string& /*name*/, const std::string& value, Options& o) {
  o.hostfiles.push_back(value);
  return {};
}

Status set_processes(const std::string& name, const std::string& value, Options& o) {
  unsigned n = 0;
  if (!whole_number(value, n)) return bad_option(name, "\"" + value + "\" is not a whole number");
  if (n == 0) return bad_option(name, "0 processes is no job; give at least 1, or leave -n out for one per slot");
  o.processes = n;
  return {};
}

Status set_per_node(const std::string& name, const std::string& value, Options& o) {
  unsigned n = 0;
  if (!whole_number(value, n) || n == 0) return bad_option(name, "\"" + value + "\" is not a number of ranks above 0");
  o.per_node = n;
  return {};
}

// pe=N and --cpus-per-rank: CPUs per rank; two different counts are an error.
Status set_cpus_per_rank(const std::string& name, const std::string& count, Options& o) {
  unsigned n = 0;
  if (!whole_number(count, n) || n == 0 || n > launch::kMaxPe) {
    return bad_option(name, "\"" + count + "\" is not a number of CPUs per rank from 1 to " + std::to_string(launch::kMaxPe));
  }
  if (o.cpu.pe != 1 && o.cpu.pe != n) {
    return bad_option(name, "CPUs per rank were given as " + std::to_string(o.cpu.pe) + " already; give one count");
  }
  o.cpu.pe = n;
  return {};
}

// One ":" modifier of --map-by: pe=N, span, oversubscribe (any case:
// Open MPI's documents write PE=N).
Status map_by_modifier(const std::string& name, const std::string& written, Options& o) {
  const std::string modifier = mca::lower(written);
  if (modifier.rfind("pe=", 0) == 0) return set_cpus_per_rank(name, modifier.substr(3), o);
  if (modifier == "oversubscribe") {
    o.oversubscribe = true;
  } else if (modifier == "span") {
    o.map_by = MapBy::Node;
  } else {
    return bad_option(name, "\"" + modifier + "\" is none of the modifiers pe=N, span and oversubscribe");
  }
  return {};
}

// ppr:N:RESOURCE: N ranks on every node (as -N), or on every object of
// a resource of each node (the map is made once the daemons report their
// processors: launch/object_map.h).
Status set_per_object(const std::string& name, const std::string& count, const std::string& resource, Options& o) {
  if (resource == "node") return set_per_node(name, count, o);
  auto r = launch::parse_resource(resource);
  if (!r) return bad_option(name, "\"" + resource + "\" is none of node, hwthread, core, numa and package (socket)");
  unsigned n = 0;
  if (!whole_number(count, n) || n == 0 || n > launch::kMaxPerNode) {
    return bad_option(name, "\"" + count + "\" is not a number of ranks from 1 to " + std::to_string(launch::kMaxPerNode));
  }
  o.cpu.map_by = r.value();
  o.cpu.per_object = n;
  return {};
}

// POLICY[:MODIFIER...]: slot, node, hwthread, core, numa, package
// (socket), or ppr:N:RESOURCE (N ranks on every node or object).
Status set_map_by(const std::string& name, const std::string& value, Options& o) {
  std::vector<std::string> words;
  for (size_t from = 0;;) {
    const size_t colon = std::min(value.find(':', from), value.size());
    words.push_back(value.substr(from, colon - from));
    if (colon == value.size()) break;
    from = colon + 1;
  }
  size_t modifiers = 1;
  const std::string& policy = words[0];
  o.cpu.per_object = 0;  // a later --map-by replaces an earlier ppr
  if (policy == "node") {
    o.map_by = MapBy::Node;
  } else if (policy == "slot") {
    o.map_by = MapBy::Slot;
  } else if (policy == "ppr") {
    if (words.size() < 3) {
      return bad_option(name + " " + value, "ppr takes a count and a resource: ppr:2:node, ppr:1:numa, ppr:2:core");
    }
    if (Status st = set_per_object(name + " " + value, words[1], mca::lower(words[2]), o); !st) return st;
    modifiers = 3;
  } else if (auto r = launch::parse_resource(policy); r) {
    o.cpu.map_by = r.value();
  } else {
    return bad_option(name,
                      "\"" + policy + "\" is none of slot, node, hwthread, core, numa, package and ppr:N:RESOURCE");
  }
  for (size_t i = modifiers; i < words.size(); ++i) {
    if (Status st = map_by_modifier(name + " " + value, words[i], o); !st) return st;
  }
  return {};
}

Status set_timeout(const std::string& name, const std::string& value, Options& o) {
  char* end = nullptr;
  const double s = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 1e7) {
    return bad_option(name, "\"" + value + "\" is not a number of seconds above 0");
  }
  o.timeout_seconds = s;
  return {};
}

Status set_stdin(const std::string& name, const std::string& value, Options& o) {
  if (value == "none") {
    o.stdin_target = StdinTarget::None;
  } else if (value == "all") {
    o.stdin_target = StdinTarget::All;
  } else if (unsigned r = 0; whole_number(value, r)) {
    o.stdin_target = StdinTarget::Rank;
    o.stdin_rank = r;
  } else {
    return bad_option(name, "\"" + value + "\" is none, all or a rank");
  }
  return {};
}

Status add_forward(const std::string& /*name*/, const std::string& value, Options& o) {
  auto r = forward_request(value);
  if (!r) return r.error();
  o.forwards.push_back(std::move(r.value()));
  return {};
}

Status add_forward_list(const std::string& name, const std::string& value, Options& o) {
  auto list = forward_list(name, value);
  if (!list) return list.error();
  for (auto& r : list.value()) o.forwards.push_back(std::move(r));
  return {};
}

Status add_tune_file(const std::string& /*name*/, const std::string& value, Options& o) {
  o.tool.tune_files.push_back(value);
  return {};
}

// --bind-to none|hwthread|core|numa|package.
Status set_bind_to(const std::string& name, const std::string& value, Options& o) {
  auto b = launch::parse_bind_to(value);
  if (!b) {
    return bad_option(name + " " + value, "it takes none, hwthread, core, numa or package (socket)" +
                                              std::string(value.find(':') != std::string::npos
                                                              ? ", without modifiers (--oversubscribe lets ranks share CPUs)"
                                                              : ""));
  }
  o.cpu.bind = b.value();
  return {};
}

// --rank-by slot|node. Open MPI also ranks by a resource (core, numa, ...);
// here ranks within a host already follow --map-by's objects, so that is
// refused with the way to get it.
Status set_rank_by(const std::string& name, const std::string& value, Options& o) {
  auto r = launch::parse_rank_by(value);
  if (!r) {
    const std::string first = value.substr(0, value.find(':'));
    if (launch::parse_resource(first)) {
      return bad_option(name + " " + value, "orcarun ranks by slot or node; within a host, ranks already go over its " +
                                                first + " objects in order with --map-by " + first);
    }
    return bad_option(name + " " + value, "it takes slot (each host's ranks consecutive) or node (round-robin over hosts)");
  }
  o.rank_by = r.value();
  return {};
}

// --output LIST (Open MPI 5's and PRRTE's): tag, tag-detailed,
// timestamp, merge-stderr-to-stdout, dir=DIR, between commas.
Status set_output(const std::string& name, const std::string& value, Options& o) {
  for (std::size_t from = 0; from <= value.size();) {
    const std::size_t comma = std::min(value.find(',', from), value.size());
    const std::string word = value.substr(from, comma - from);
    from = comma + 1;
    if (word == "tag") {
      o.tag_output = true;
    } else if (word == "tag-detailed" || word == "tag-fullname") {
      o.tag_output = o.tag_host = true;
    } else if (word == "timestamp") {
      o.timestamp_output = true;
    } else if (word == "merge-stderr-to-stdout") {
      o.merge_stderr = true;
    } else if (word.rfind("dir=", 0) == 0) {
      if (Status st = set_path<&Options::output_filename>(name + " dir=", word.substr(4), o); !st) return st;
    } else {
      return bad_option(name + " " + value, "\"" + word + "\" is none of tag, tag-detailed, timestamp, "
                                            "merge-stderr-to-stdout and dir=DIR");
    }
  }
  return {};
}

}  // namespace orca::orcarun
