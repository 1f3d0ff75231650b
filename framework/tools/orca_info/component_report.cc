// orca_info: the framework and component listing.
#include "info_report.h"

#include "runtime/frameworks.h"

#include <set>

namespace orca::info {

void print_components(Runtime& runtime, const ReportOptions& options, std::ostream& out) {
  std::set<std::string> known;
  for (const auto& fw : runtime.frameworks()) {
    const std::string name(fw->decl().name);
    known.insert(name);
    if (!options.parsable) {
      out << "Framework " << name << " (interface " << fw->decl().interface_version << "): "
          << fw->decl().description << "\n";
      if (fw->entries().empty()) out << "    (no component found)\n";
    }
    for (const auto& e : fw->entries()) {
      const std::string comp(e.component->name());
      const std::string state(mca::Framework::state_name(e.state));
      const bool queried = e.state == mca::Framework::State::Selected ||
                           e.state == mca::Framework::State::Available;
      if (options.parsable) {
        const std::string p = "mca:" + name + ":" + comp + ":component:";
        out << p << "version:" << e.component->version() << "\n"
            << p << "file:" << e.component->path << "\n"
            << p << "state:" << state << "\n";
        if (queried) out << p << "priority:" << e.priority << "\n";
        if (!e.reason.empty()) out << p << "reason:" << e.reason << "\n";
        continue;
      }
      out << "    " << comp << " " << e.component->version() << "  " << state;
      if (queried) out << ", priority " << e.priority;
      if (!e.reason.empty()) out << " (" << e.reason << ")";
      out << "\n        " << e.component->path << "\n";
    }
  }
  for (const auto& c : runtime.components().loaded()) {
    if (known.count(std::string(c.framework()))) continue;
    const std::string why = "framework '" + std::string(c.framework()) + "' is not part of this build";
    if (options.parsable) {
      out << "unused:" << c.path << ":reason:" << why << "\n";
    } else {
      out << "Not used: " << c.path << "\n    " << why << "\n";
    }
  }
  for (const auto& r : runtime.components().rejected()) {
    if (options.parsable) {
      out << "rejected:" << r.path << ":reason:" << r.reason << "\n";
    } else {
      out << "Not loaded: " << r.path << "\n    " << r.reason << "\n";
    }
  }
}

}  // namespace orca::info
