// A module's interface lists and their C view.
#include <orca/oob_interface_lists.h>

#include "mca/var/text.h"

namespace orca::oob {

InterfaceLists::InterfaceLists(const InterfaceLists& other) : include_(other.include_), exclude_(other.exclude_) {
  point();
}

InterfaceLists& InterfaceLists::operator=(const InterfaceLists& other) {
  if (this != &other) {
    include_ = other.include_;
    exclude_ = other.exclude_;
    point();
  }
  return *this;
}

Result<InterfaceLists> InterfaceLists::read(const mca::ContextReader& in) {
  InterfaceLists out;
  for (auto [name, list] : {std::pair{"if_include", &out.include_}, std::pair{"if_exclude", &out.exclude_}}) {
    auto text = in.text(name);
    if (!text) return text.error();
    list->variable = in.prefix() + name;
    // The canonical text of a list: its items, trimmed, joined by commas.
    if (!text->empty()) list->entries = mca::split(text.value(), ',');
  }
  out.point();
  return out;
}

void InterfaceLists::point() {
  for (List* list : {&include_, &exclude_}) {
    list->pointers.clear();
    for (const std::string& e : list->entries) list->pointers.push_back(e.c_str());
  }
  auto view = [](const List& l) {
    return orca_oob_interface_list{
        .variable = l.variable.c_str(), .entries = l.pointers.data(), .n_entries = l.pointers.size()};
  };
  view_ = orca_oob_interface_filter{.include = view(include_), .exclude = view(exclude_)};
}

}  // namespace orca::oob
