// FakeEnvironment: environment variables for code that reads them through
// a lookup function (const char* (const char* name), nullptr when unset),
// as the Slurm components do, so tests set exactly what Slurm would.
#ifndef ORCA_TEST_LIB_FAKE_ENVIRONMENT_H
#define ORCA_TEST_LIB_FAKE_ENVIRONMENT_H

#include <functional>
#include <map>
#include <string>

namespace orca::test {

struct FakeEnvironment {
  std::map<std::string, std::string> vars;
  /* Valid while this object lives and `vars` keeps the entry. */
  std::function<const char*(const char*)> lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

}  // namespace orca::test

#endif
