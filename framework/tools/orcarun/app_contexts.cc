// The programs of an MPMD job, from the command line or an app file.
#include "app_contexts.h"

#include "orcarun_option_values.h"

#include <orca/shell_words.h>

namespace orca::orcarun {

Status add_program_env(const std::vector<std::string>& args, std::size_t& i, std::vector<ForwardRequest>& forwards) {
  const std::string& option = args[i];
  if (i + 2 >= args.size()) return bad_option(option, "it needs a variable name and a value");
  if (std::string why = bad_variable_name(args[i + 1]); !why.empty()) {
    return bad_option(option, why + " (" + option + " NAME VALUE)");
  }
  if (args[i + 2].find('\0') != std::string::npos) return bad_option(option, "a value cannot hold a NUL byte");
  forwards.push_back({.kind = ForwardRequest::Kind::Value, .name = args[i + 1], .value = args[i + 2],
                      .option = option + " " + args[i + 1] + " ..."});
  i += 2;
  return {};
}

namespace {

// One option of a program at args[i] (i moves on to its last word).
Status app_option(const std::vector<std::string>& args, std::size_t& i, AppContext& app) {
  if (args[i] == "-env" || args[i] == "--env") return add_program_env(args, i, app.forwards);
  const OptionWord w = split_option(args[i]);
  Options scratch;  // the job's setters, then what they set
  ValueOption apply = nullptr;
  if (w.name == "-n" || w.name == "-np" || w.name == "--np") apply = set_processes;
  if (w.name == "-x") apply = add_forward;
  if (w.name == "--wdir" || w.name == "-wdir") apply = set_path<&Options::working_directory>;
  if (apply == nullptr) {
    return bad_option(args[i], "a program of an MPMD job takes only -n, -x, -env and --wdir; options of the whole job "
                               "go before the first program");
  }
  auto value = take_value(args, i, w);
  if (!value) return value.error();
  if (Status st = apply(w.name, value.value(), scratch); !st) return st;
  if (scratch.processes) app.processes = scratch.processes;
  if (scratch.working_directory) app.working_directory = scratch.working_directory;
  for (auto& f : scratch.forwards) app.forwards.push_back(std::move(f));
  return {};
}

Message syntax(const std::string& source, std::size_t line, const std::string& why) {
  return Message("orcarun", "app-file-syntax", {{"source", source}, {"line", std::to_string(line)}, {"why", why}});
}

}  // namespace

Result<AppContext> parse_app_context(const std::vector<std::string>& args, std::size_t& i) {
  AppContext app;
  for (; i < args.size() && !args[i].empty() && args[i][0] == '-' && args[i] != "--"; ++i) {
    if (Status st = app_option(args, i, app); !st) return st.error();
  }
  if (i < args.size() && args[i] == "--") ++i;
  for (; i < args.size() && args[i] != ":"; ++i) app.command.push_back(args[i]);
  if (i < args.size()) ++i;  // the ':'
  if (app.command.empty()) return bad_option(":", "a program of an MPMD job has no command (-n N CMD between the ':')");
  return app;
}

Result<std::vector<AppContext>> parse_app_file(std::string_view text, const std::string& source) {
  std::vector<AppContext> apps;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    const ShellWords split = split_shell_words(line, true);
    if (split.unclosed_quote != 0) return syntax(source, number, std::string("a ") + split.unclosed_quote + " is not closed");
    const std::vector<std::string>& words = split.words;
    for (std::size_t i = 0; i < words.size();) {
      auto app = parse_app_context(words, i);
      if (!app) return syntax(source, number, app.error().arg("option") + ": " + app.error().arg("why"));
      if (apps.size() == kMaxApps) return syntax(source, number, "more than " + std::to_string(kMaxApps) + " programs");
      apps.push_back(std::move(app.value()));
    }
  }
  if (apps.empty()) return syntax(source, number, "it names no program");
  return apps;
}

std::vector<std::uint32_t> app_first_ranks(const std::vector<AppContext>& apps) {
  std::vector<std::uint32_t> first{0};
  for (const auto& a : apps) first.push_back(first.back() + a.processes.value_or(0));
  return first;
}

}  // namespace orca::orcarun
