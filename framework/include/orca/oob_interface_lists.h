/*
 * InterfaceLists: an oob module's if_include / if_exclude as it read them
 * in open(), and the C view of them (orca_oob_interface_filter, oob.h)
 * that its table and its select_local and rank calls hand the host.
 *
 * The module only carries the lists: the host parses and checks them and
 * applies the policy (interface_selection.h), so every component's lists
 * mean the same and are reported the same.
 */
#ifndef ORCA_OOB_INTERFACE_LISTS_H
#define ORCA_OOB_INTERFACE_LISTS_H

#include <orca/export.h>
#include <orca/mca_context_reader.h>
#include <orca/oob.h>
#include <orca/result.h>

#include <string>
#include <vector>

namespace orca::oob {

class ORCA_EXPORT InterfaceLists {
 public:
  InterfaceLists() { point(); }
  InterfaceLists(const InterfaceLists& other);
  InterfaceLists& operator=(const InterfaceLists& other);
  ~InterfaceLists() = default;

  /* <prefix>if_include and <prefix>if_exclude through the context (the
   * component declared both from interface_selection_decls()). Errors:
   * either cannot be read (mca-var/unusable-var). */
  static Result<InterfaceLists> read(const mca::ContextReader& in);

  /* Valid while this object lives unchanged (copies have their own). */
  const orca_oob_interface_filter* c_filter() const noexcept { return &view_; }

 private:
  struct List {
    std::string variable;
    std::vector<std::string> entries;
    std::vector<const char*> pointers;  // into entries, for the C view
  };
  void point();

  List include_;
  List exclude_;
  orca_oob_interface_filter view_{};
};

}  // namespace orca::oob

#endif  // ORCA_OOB_INTERFACE_LISTS_H
