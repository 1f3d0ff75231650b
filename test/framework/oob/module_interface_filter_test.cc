// The host's reading of a module's interface lists (orca_oob_interface_filter):
// the C view becomes the filter net's policy applies, each list's source
// taken from the registry that holds its variable.
#include "oob/module_interface_filter.h"

#include <orca/interface_selection.h>
#include <orca/mca_var.h>

#include <gtest/gtest.h>

namespace orca::oob {
namespace {

mca::Source command_line() { return mca::Source{mca::SourceKind::CommandLine, "", 0, 0}; }

TEST(ModuleInterfaceFilter, NoListsIsNoFilter) {
  mca::Registry r;
  auto f = module_interface_filter(nullptr, r);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->mode, net::InterfaceFilter::Mode::None);
  EXPECT_TRUE(f->entries.empty());
}

TEST(ModuleInterfaceFilter, EntriesAreParsedAndTheSourceIsTheVariables) {
  mca::Registry r;
  ASSERT_TRUE(net::declare_interface_selection_vars(r, "oob", "tcp").ok());
  ASSERT_TRUE(r.add_setting({"oob_tcp_if_include", "eth1,10.1.0.0/16", command_line()}).ok());
  const char* const include[] = {"eth1", "10.1.0.0/16"};
  const orca_oob_interface_filter c{.include = {.variable = "oob_tcp_if_include", .entries = include, .n_entries = 2},
                                    .exclude = {.variable = "oob_tcp_if_exclude", .entries = nullptr, .n_entries = 0}};
  auto f = module_interface_filter(&c, r);
  ASSERT_TRUE(f.ok()) << f.error().summary();
  EXPECT_EQ(f->mode, net::InterfaceFilter::Mode::Include);
  EXPECT_EQ(f->variable, "oob_tcp_if_include");
  EXPECT_EQ(f->source, r.find("oob_tcp_if_include")->source().describe());
  EXPECT_EQ(f->exclude_variable, "oob_tcp_if_exclude");
  ASSERT_EQ(f->entries.size(), 2u);
  EXPECT_EQ(f->entries[0].text, "eth1");
  EXPECT_TRUE(f->entries[1].is_prefix);
}

TEST(ModuleInterfaceFilter, AVariableTheRegistryDoesNotHoldIsTheComponentsWord) {
  mca::Registry r;
  const char* const exclude[] = {"virbr0"};
  const orca_oob_interface_filter c{.include = {.variable = "oob_x_if_include", .entries = nullptr, .n_entries = 0},
                                    .exclude = {.variable = "oob_x_if_exclude", .entries = exclude, .n_entries = 1}};
  auto f = module_interface_filter(&c, r);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->mode, net::InterfaceFilter::Mode::Exclude);
  EXPECT_EQ(f->source, "given by the component");
}

TEST(ModuleInterfaceFilter, BothListsSetIsTheUsersErrorInFull) {
  mca::Registry r;
  const char* const include[] = {"eth0"};
  const char* const exclude[] = {"lo"};
  const orca_oob_interface_filter c{.include = {.variable = "oob_x_if_include", .entries = include, .n_entries = 1},
                                    .exclude = {.variable = "oob_x_if_exclude", .entries = exclude, .n_entries = 1}};
  auto f = module_interface_filter(&c, r);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().topic(), "if-both-set");
  EXPECT_EQ(f.error().arg("include_variable"), "oob_x_if_include");
  EXPECT_EQ(f.error().arg("exclude"), "lo");
}

}  // namespace
}  // namespace orca::oob
