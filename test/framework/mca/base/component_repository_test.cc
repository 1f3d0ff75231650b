// ComponentRepository: real dlopen of the fixture components, each test on
// its own directory of copies so it controls exactly what is on the path.
#include <orca/mca_component.h>
#include <orca/mca_repository.h>

#include "lib/component_fixtures.h"
#include "lib/expect_text.h"
#include "lib/temp_dir.h"

#include <gtest/gtest.h>

#include <link.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace orca::mca {
namespace {

using ::orca::test::copy_fixture;
using ::orca::test::TempDir;
using ::orca::test::Contains;

std::string dir_of(const TempDir& d) { return d.path().string(); }

const RejectedFile* rejected_at(const ComponentRepository& repo, const std::string& path) {
  for (const auto& r : repo.rejected()) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

std::vector<std::string> loaded_paths(const ComponentRepository& repo) {
  std::vector<std::string> out;
  for (const auto& c : repo.loaded()) out.push_back(c.path);
  return out;
}

// Whether the dynamic linker has an object loaded from `path`.
bool is_mapped(const std::string& path) {
  struct Query {
    const std::string* path;
    bool found;
  } q{&path, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* query = static_cast<Query*>(data);
        if (info->dlpi_name != nullptr && *query->path == info->dlpi_name) query->found = true;
        return 0;
      },
      &q);
  return q.found;
}

// --- parse_component_file_name ----------------------------------------------

TEST(ParseComponentFileName, SplitsFrameworkAndComponent) {
  std::string fw, comp;
  ASSERT_TRUE(parse_component_file_name("mca_oob_tcp.so", &fw, &comp));
  EXPECT_EQ(fw, "oob");
  EXPECT_EQ(comp, "tcp");
}

TEST(ParseComponentFileName, ComponentNameMayContainUnderscores) {
  std::string fw, comp;
  ASSERT_TRUE(parse_component_file_name("mca_oob_tcp_v2.so", &fw, &comp));
  EXPECT_EQ(fw, "oob");
  EXPECT_EQ(comp, "tcp_v2");
  ASSERT_TRUE(parse_component_file_name("mca_test_a_b_c.so", &fw, &comp));
  EXPECT_EQ(fw, "test");
  EXPECT_EQ(comp, "a_b_c");
}

TEST(ParseComponentFileName, RejectsNamesWithMissingParts) {
  for (const char* name : {
           "",                   // nothing
           "mca_.so",            // neither part
           "mca_oob.so",         // no component
           "mca_oob_.so",        // empty component
           "mca__tcp.so",        // empty framework
           "mca_oob_tcp",        // no .so
           "mca_oob_tcp.so.1",   // versioned name
           "mca_oob_tcp.la",     // libtool archive
           "libmca_oob_tcp.so",  // lib prefix
           "oob_tcp.so",         // no mca_ prefix
           "mca_oob_tcp.SO",     // suffix is case-sensitive
           ".so",
           "mca_",
       }) {
    std::string fw = "unchanged", comp = "unchanged";
    EXPECT_FALSE(parse_component_file_name(name, &fw, &comp)) << "file name: \"" << name << "\"";
  }
}

// --- scan: single files -----------------------------------------------------

TEST(ComponentRepositoryScan, LoadsTheGoodComponent) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "good");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.rejected().empty());
  ASSERT_EQ(repo.loaded().size(), 1u);
  const LoadedComponent& c = repo.loaded()[0];
  EXPECT_EQ(c.framework(), "test");
  EXPECT_EQ(c.name(), "good");
  EXPECT_EQ(c.version(), "1.2.3");
  EXPECT_EQ(c.path, path);
  ASSERT_NE(c.descriptor, nullptr);
  EXPECT_EQ(c.descriptor->abi_version, ORCA_MCA_COMPONENT_ABI_VERSION);
  EXPECT_EQ(c.descriptor->framework_version, 3u);
  EXPECT_STREQ(c.descriptor->description, "A component that works");
  EXPECT_NE(c.descriptor->query, nullptr);
  EXPECT_NE(c.object.get(), nullptr);
}

// What the launcher says this process will not use is never dlopen'ed:
// not mapped, not loaded, kept with the reason; the others load as ever.
TEST(ComponentRepositoryScan, ALeftOutComponentIsNeverLoaded) {
  TempDir dir;
  const std::string good = copy_fixture(dir, "good");
  const std::string second = copy_fixture(dir, "second");
  std::vector<std::string> lines;
  const LeaveOut leave_out{.components = {"test/good", "oob/good", "test/goo"}, .why = "the job does not use it"};
  ComponentRepository repo =
      ComponentRepository::scan({dir_of(dir)}, [&](const std::string& l) { lines.push_back(l); }, leave_out);

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{second}));
  EXPECT_FALSE(is_mapped(good));
  EXPECT_TRUE(repo.rejected().empty());
  const auto left = repo.left_out_of("test");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]->name, "good");
  EXPECT_EQ(left[0]->path, good);
  EXPECT_EQ(left[0]->reason, "the job does not use it");
  EXPECT_TRUE(repo.left_out_of("oob").empty());
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l == "did not load " + good + ": the job does not use it";
  }));
}

// mca_test_oldabi claims ABI 1, from before variable declarations had ranges.
TEST(ComponentRepositoryScan, RejectsAnOlderComponentAbiVersion) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "oldabi");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  const std::string& why = repo.rejected()[0].reason;
  EXPECT_TRUE(Contains(why, "ABI version"));
  EXPECT_TRUE(Contains(why, "ABI version 1,"));  // what it has
  EXPECT_TRUE(Contains(why, "version " + std::to_string(ORCA_MCA_COMPONENT_ABI_VERSION)));  // what we use
}

TEST(ComponentRepositoryScan, RejectsADescriptorWhoseNameDiffersFromTheFileName) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "misnamed");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "'other'"));
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "'misnamed'"));
}

TEST(ComponentRepositoryScan, RejectsAFileWithoutTheDescriptorSymbol) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "nosym");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "mca_test_nosym_component"));
}

TEST(ComponentRepositoryScan, LookingUpTheSymbolNamedAfterTheFile) {
  // good's bytes under another component's name: the descriptor symbol
  // looked up is mca_test_renamed_component, which good does not export.
  TempDir dir;
  const std::string path = copy_fixture(dir, "good", "mca_test_renamed.so");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "mca_test_renamed_component"));
}

TEST(ComponentRepositoryScan, RejectsAFileThatIsNotAnElfObject) {
  TempDir dir;
  const std::string path = dir.write("mca_oob_junk.so", "this is not a shared object\n");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  // The reason is dlopen's, which names the file.
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "cannot be loaded"));
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "mca_oob_junk.so"));
}

TEST(ComponentRepositoryScan, RejectsAnEmptyFile) {
  TempDir dir;
  const std::string path = dir.write("mca_oob_empty.so", "");
  ASSERT_EQ(std::filesystem::file_size(path), 0u);
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  EXPECT_TRUE(repo.loaded().empty());
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, path);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "cannot be loaded"));
}

TEST(ComponentRepositoryScan, IgnoresFilesWhoseNameIsNotAComponentName) {
  TempDir dir;
  copy_fixture(dir, "good", "libmca_test_good.so");
  copy_fixture(dir, "good", "mca_test_good.so.1");
  copy_fixture(dir, "good", "mca_test.so");
  copy_fixture(dir, "good", "good.so");
  copy_fixture(dir, "good", "mca_test_good.la");
  dir.write("README", "not a component\n");
  std::vector<std::string> lines;
  ComponentRepository repo =
      ComponentRepository::scan({dir_of(dir)}, [&](const std::string& line) { lines.push_back(line); });

  EXPECT_TRUE(repo.loaded().empty());
  EXPECT_TRUE(repo.rejected().empty());
  EXPECT_TRUE(lines.empty());
}

TEST(ComponentRepositoryScan, SkipsADirectoryThatDoesNotExist) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "good");
  const std::string missing = dir_of(dir) + "/no-such-dir";
  std::vector<std::string> lines;
  ComponentRepository repo = ComponentRepository::scan(
      {missing, dir_of(dir), "", missing + "/deeper"}, [&](const std::string& line) { lines.push_back(line); });

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{path}));
  EXPECT_TRUE(repo.rejected().empty());
  EXPECT_EQ(lines.size(), 1u);
}

TEST(ComponentRepositoryScan, AnEmptyPathFindsNothing) {
  ComponentRepository repo = ComponentRepository::scan({});
  EXPECT_TRUE(repo.loaded().empty());
  EXPECT_TRUE(repo.rejected().empty());
}

// --- scan: several files and directories ------------------------------------

TEST(ComponentRepositoryScan, KeepsLoadingAfterBadFiles) {
  TempDir dir;
  const std::string junk = dir.write("mca_oob_junk.so", "junk");
  const std::string oldabi = copy_fixture(dir, "oldabi");
  const std::string good = copy_fixture(dir, "good");
  const std::string nosym = copy_fixture(dir, "nosym");
  const std::string second = copy_fixture(dir, "second");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});

  // Within a directory, files are taken in name order.
  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{good, second}));
  ASSERT_EQ(repo.rejected().size(), 3u);
  EXPECT_EQ(repo.rejected()[0].path, junk);
  EXPECT_EQ(repo.rejected()[1].path, nosym);
  EXPECT_EQ(repo.rejected()[2].path, oldabi);
}

TEST(ComponentRepositoryScan, TheFirstDirectoryWinsAndLaterCopiesAreShadowed) {
  TempDir a, b;
  const std::string first = copy_fixture(a, "good");
  const std::string later = copy_fixture(b, "good");
  ComponentRepository repo = ComponentRepository::scan({dir_of(a), dir_of(b)});

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{first}));
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, later);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "shadowed"));
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, first));
}

TEST(ComponentRepositoryScan, DirectoryOrderDecidesWhichCopyWins) {
  TempDir a, b;
  const std::string in_a = copy_fixture(a, "good");
  const std::string in_b = copy_fixture(b, "good");
  ComponentRepository repo = ComponentRepository::scan({dir_of(b), dir_of(a)});

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{in_b}));
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, in_a);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, in_b));
}

TEST(ComponentRepositoryScan, ARejectedFileShadowsNothing) {
  // A broken mca_test_good.so earlier on the path does not hide a working
  // one later: only a loaded component shadows.
  TempDir a, b;
  const std::string broken = a.write("mca_test_good.so", "garbage");
  const std::string working = copy_fixture(b, "good");
  ComponentRepository repo = ComponentRepository::scan({dir_of(a), dir_of(b)});

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{working}));
  ASSERT_EQ(repo.rejected().size(), 1u);
  EXPECT_EQ(repo.rejected()[0].path, broken);
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "cannot be loaded"));
}

TEST(ComponentRepositoryScan, LogsOneLinePerLoadedOrSkippedFile) {
  TempDir a, b;
  const std::string good = copy_fixture(a, "good");
  const std::string oldabi = copy_fixture(a, "oldabi");
  const std::string junk = a.write("mca_oob_junk.so", "junk");
  a.write("notes.txt", "ignored");
  const std::string shadowed = copy_fixture(b, "good");
  const std::string second = copy_fixture(b, "second");
  std::vector<std::string> lines;
  ComponentRepository repo =
      ComponentRepository::scan({dir_of(a), dir_of(b)}, [&](const std::string& line) { lines.push_back(line); });

  ASSERT_EQ(repo.loaded().size() + repo.rejected().size(), 5u);
  ASSERT_EQ(lines.size(), 5u);
  // Directory a, in name order: mca_oob_junk, mca_test_good, mca_test_oldabi;
  // then b: mca_test_good (shadowed), mca_test_second.
  EXPECT_TRUE(Contains(lines[0], "skipped"));
  EXPECT_TRUE(Contains(lines[0], junk));
  EXPECT_TRUE(Contains(lines[1], "loaded"));
  EXPECT_TRUE(Contains(lines[1], "test/good"));
  EXPECT_TRUE(Contains(lines[1], "1.2.3"));
  EXPECT_TRUE(Contains(lines[1], good));
  EXPECT_TRUE(Contains(lines[2], "skipped"));
  EXPECT_TRUE(Contains(lines[2], oldabi));
  EXPECT_TRUE(Contains(lines[2], "ABI version"));
  EXPECT_TRUE(Contains(lines[3], "skipped"));
  EXPECT_TRUE(Contains(lines[3], shadowed));
  EXPECT_TRUE(Contains(lines[3], "shadowed"));
  EXPECT_TRUE(Contains(lines[4], "loaded"));
  EXPECT_TRUE(Contains(lines[4], "test/second"));
  EXPECT_TRUE(Contains(lines[4], "0.1.0"));
  EXPECT_TRUE(Contains(lines[4], second));
  // A skipped line carries the same reason the repository keeps.
  const RejectedFile* rejected = rejected_at(repo, oldabi);
  ASSERT_NE(rejected, nullptr);
  EXPECT_TRUE(Contains(lines[2], rejected->reason));
}

TEST(ComponentRepositoryScan, OfFrameworkFiltersInDiscoveryOrder) {
  TempDir a, b;
  const std::string second = copy_fixture(a, "second");
  const std::string good = copy_fixture(b, "good");
  a.write("mca_oob_junk.so", "junk");
  ComponentRepository repo = ComponentRepository::scan({dir_of(a), dir_of(b)});

  const auto test = repo.of_framework("test");
  ASSERT_EQ(test.size(), 2u);
  EXPECT_EQ(test[0]->path, second);  // directory a comes first
  EXPECT_EQ(test[1]->path, good);
  EXPECT_TRUE(repo.of_framework("oob").empty());  // its only file was rejected
  EXPECT_TRUE(repo.of_framework("").empty());
  EXPECT_TRUE(repo.of_framework("tes").empty());
}

TEST(ComponentRepositoryScan, ComponentsStayLoadedForTheRepositorysLifetime) {
  TempDir dir;
  const std::string path = copy_fixture(dir, "second");
  ASSERT_FALSE(is_mapped(path));
  {
    ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});
    ASSERT_EQ(repo.loaded().size(), 1u);
    EXPECT_TRUE(is_mapped(path));

    // Moving the repository keeps the descriptors valid and callable.
    ComponentRepository moved = std::move(repo);
    ASSERT_EQ(moved.loaded().size(), 1u);
    const orca_mca_component* d = moved.loaded()[0].descriptor;
    EXPECT_STREQ(d->name, "second");
    void* module = nullptr;
    int priority = -1;
    orca_mca_reason why{};
    EXPECT_EQ(d->query(nullptr, &module, &priority, &why), ORCA_MCA_OK);
    EXPECT_NE(module, nullptr);
    EXPECT_EQ(priority, 10);
    EXPECT_TRUE(is_mapped(path));
  }
  EXPECT_FALSE(is_mapped(path));  // unloaded with the repository
}

TEST(ComponentRepositoryScan, RejectedFilesAreNotLeftLoaded) {
  TempDir dir;
  const std::string oldabi = copy_fixture(dir, "oldabi");
  const std::string misnamed = copy_fixture(dir, "misnamed");
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)});
  ASSERT_EQ(repo.rejected().size(), 2u);
  EXPECT_FALSE(is_mapped(oldabi));
  EXPECT_FALSE(is_mapped(misnamed));
}

// --- scan: components built into the program ---------------------------------

orca_mca_rc builtin_query(void*, void** module, int* priority, orca_mca_reason*) {
  static int the_module = 0;
  *module = &the_module;
  *priority = 5;
  return ORCA_MCA_OK;
}

// A descriptor as a component linked into the program declares it.
orca_mca_component builtin(const char* framework, const char* name) {
  return orca_mca_component{.abi_version = ORCA_MCA_COMPONENT_ABI_VERSION,
                            .framework = framework,
                            .framework_version = 3,
                            .name = name,
                            .version_major = 4,
                            .version_minor = 5,
                            .version_patch = 6,
                            .description = "built in",
                            .register_vars = nullptr,
                            .open = nullptr,
                            .query = &builtin_query,
                            .close = nullptr};
}

TEST(ComponentRepositoryBuiltins, ComeFirstWithNoFileAndNoHandle) {
  TempDir dir;
  const std::string second = copy_fixture(dir, "second");
  const orca_mca_component good = builtin("test", "good");
  const orca_mca_component* const builtins[] = {&good};
  std::vector<std::string> lines;
  ComponentRepository repo =
      ComponentRepository::scan({dir_of(dir)}, [&](const std::string& l) { lines.push_back(l); }, {}, builtins);

  EXPECT_TRUE(repo.rejected().empty());
  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{std::string(kBuiltinPath), second}));
  const LoadedComponent& c = repo.loaded()[0];
  EXPECT_EQ(c.descriptor, &good);
  EXPECT_EQ(c.object.get(), nullptr);
  EXPECT_EQ(c.version(), "4.5.6");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "loaded component test/good 4.5.6 from (built in) test/good");
}

// The file of a built-in component is rejected by its name alone: never
// opened, so a broken copy costs nothing either.
TEST(ComponentRepositoryBuiltins, ShadowAFileOfTheSameNameWithoutOpeningIt) {
  TempDir dir;
  const std::string file = copy_fixture(dir, "good");
  const std::string garbage = dir.write("mca_test_second.so", "garbage");
  const orca_mca_component good = builtin("test", "good");
  const orca_mca_component second = builtin("test", "second");
  const orca_mca_component* const builtins[] = {&good, &second};
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)}, {}, {}, builtins);

  EXPECT_EQ(repo.loaded().size(), 2u);
  EXPECT_FALSE(is_mapped(file));
  ASSERT_EQ(repo.rejected().size(), 2u);
  EXPECT_EQ(repo.rejected()[0].path, file);
  EXPECT_EQ(repo.rejected()[0].reason, "it is shadowed by the component built into this program");
  EXPECT_EQ(repo.rejected()[1].path, garbage);
  EXPECT_EQ(repo.rejected()[1].reason, "it is shadowed by the component built into this program");
}

// A job left out by the launcher runs the same whichever way orcad was built.
TEST(ComponentRepositoryBuiltins, ALeftOutBuiltinIsNotOfferedNorItsFileOpened) {
  TempDir dir;
  const std::string file = copy_fixture(dir, "good");
  const orca_mca_component good = builtin("test", "good");
  const orca_mca_component* const builtins[] = {&good};
  const LeaveOut leave_out{.components = {"test/good"}, .why = "the job does not use it"};
  ComponentRepository repo = ComponentRepository::scan({dir_of(dir)}, {}, leave_out, builtins);

  EXPECT_TRUE(repo.loaded().empty());
  EXPECT_TRUE(repo.rejected().empty());
  EXPECT_FALSE(is_mapped(file));
  const auto left = repo.left_out_of("test");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]->path, "(built in) test/good");
}

TEST(ComponentRepositoryBuiltins, AreCheckedAsFilesAre) {
  orca_mca_component old_abi = builtin("test", "old");
  old_abi.abi_version = 1;
  orca_mca_component no_query = builtin("test", "noquery");
  no_query.query = nullptr;
  const orca_mca_component unnamed = builtin("test", nullptr);
  const orca_mca_component bad_framework = builtin("te_st", "x");
  const orca_mca_component twice = builtin("test", "twice");
  const orca_mca_component* const builtins[] = {&old_abi, &no_query, &unnamed, &bad_framework, &twice, &twice};
  ComponentRepository repo = ComponentRepository::scan({}, {}, {}, builtins);

  EXPECT_EQ(loaded_paths(repo), (std::vector<std::string>{std::string(kBuiltinPath)}));
  ASSERT_EQ(repo.rejected().size(), 5u);
  EXPECT_EQ(repo.rejected()[0].path, "(built in) test/old");
  EXPECT_TRUE(Contains(repo.rejected()[0].reason, "ABI version 1,"));
  EXPECT_EQ(repo.rejected()[1].reason, "it has no query function");
  EXPECT_EQ(repo.rejected()[2].reason, "it has no valid framework and component name");
  EXPECT_EQ(repo.rejected()[3].reason, "it has no valid framework and component name");
  EXPECT_EQ(repo.rejected()[4].path, "(built in) test/twice");
  EXPECT_EQ(repo.rejected()[4].reason, "it is built in twice");
}

}  // namespace
}  // namespace orca::mca
