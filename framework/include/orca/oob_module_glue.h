/*
 * OobModuleGlue: the C function table of an oob module, generated from a
 * C++ class, so that every component exposes the same guarded boundary.
 *
 * Module must provide:
 *   Status start(const orca_oob_host&);
 *   const std::string& contact() const;
 *   Status add_peer(ProcessName, const std::string& uri);  // ErrorKind::Declined: not mine
 *   Status send(ProcessName, uint32_t tag, Payload);        // bytes kept by their owner
 *   Status would_accept(ProcessName, size_t bytes);        // before a copy
 *   std::string describe(ProcessName) const;
 *   void stop();
 *   void forget_peer(ProcessName);
 *   const orca_oob_interface_filter* interface_filter() const;  // NULL: no interfaces
 * No exception crosses: each entry point catches and reports a reason.
 */
#ifndef ORCA_OOB_MODULE_GLUE_H
#define ORCA_OOB_MODULE_GLUE_H

#include <orca/component_glue.h>
#include <orca/oob.h>
#include <orca/oob_engine.h>

#include <cstdio>
#include <utility>
#include <memory>
#include <string>
#include <vector>

namespace orca::oob {

template <typename Module>
class OobModuleGlue {
 public:
  static orca_oob_module table(Module* module) {
    return orca_oob_module{.self = module,
                           .interface_filter = module->interface_filter(),
                           .start = &start,
                           .contact = &contact,
                           .add_peer = &add_peer,
                           .send = &send,
                           .send_shared = &send_shared,
                           .describe_peer = &describe,
                           .stop = &stop,
                           .forget_peer = &forget_peer};
  }

  /* Runs `f` (returning orca_mca_rc); an exception becomes FAILED with its text. */
  template <typename F>
  static orca_mca_rc guarded(orca_mca_reason* why, F&& f) noexcept {
    return mca::guarded(why, std::forward<F>(f));
  }

  /* Points the module's C table at it and hands it to the framework as
   * open()'s state (ComponentGlue<Module> queries and closes it). */
  static orca_mca_rc keep(std::unique_ptr<Module> module, void** state) noexcept {
    *module->c_module() = table(module.get());
    return mca::ComponentGlue<Module>::keep(std::move(module), state);
  }

  static orca_mca_rc report(const Status& st, orca_mca_reason* why) {
    if (st) return ORCA_MCA_OK;
    std::string text = st.error().arg("why");
    if (text.empty()) text = st.error().summary();
    std::snprintf(why->text, sizeof why->text, "%s", text.c_str());
    // Back-pressure is the one refusal a retry cures: the caller must be
    // able to tell it from the rest.
    const ErrorKind kind = st.error().kind();
    return kind == ErrorKind::Declined || kind == ErrorKind::Busy ? ORCA_MCA_DECLINED : ORCA_MCA_FAILED;
  }

 private:
  static Module* self_of(void* self) { return static_cast<Module*>(self); }

  static orca_mca_rc start(void* self, const orca_oob_host* host, orca_mca_reason* why) {
    return guarded(why, [&] { return report(self_of(self)->start(*host), why); });
  }
  static const char* contact(void* self) { return self_of(self)->contact().c_str(); }
  static orca_mca_rc add_peer(void* self, orca_process_name peer, const char* uri, orca_mca_reason* why) {
    return guarded(why, [&] { return report(self_of(self)->add_peer(ProcessName::from_c(peer), uri), why); });
  }
  static orca_mca_rc send(void* self, orca_process_name peer, uint32_t tag, const uint8_t* data, size_t length,
                          orca_mca_reason* why) {
    return guarded(why, [&] {
      Module* m = self_of(self);
      // Refuse before copying what would only be refused.
      if (Status st = m->would_accept(ProcessName::from_c(peer), length); !st) return report(st, why);
      return report(m->send(ProcessName::from_c(peer), tag, Payload(std::vector<std::uint8_t>(data, data + length))), why);
    });
  }
  static orca_mca_rc send_shared(void* self, orca_process_name peer, uint32_t tag, const uint8_t* data,
                                 size_t length, void* owner, void (*release)(void*), orca_mca_reason* why) {
    // The owner is released when the last copy of the Payload goes, on
    // success or failure alike.
    std::shared_ptr<const void> keep;
    try {
      keep = std::shared_ptr<const void>(owner, release);
    } catch (...) {
      return ORCA_MCA_FAILED;  // shared_ptr released the owner already
    }
    return guarded(why, [&] {
      return report(self_of(self)->send(ProcessName::from_c(peer), tag, Payload(std::move(keep), data, length)), why);
    });
  }
  static void describe(void* self, orca_process_name peer, char* buffer, size_t length) {
    if (length == 0) return;
    buffer[0] = '\0';
    try {
      std::snprintf(buffer, length, "%s", self_of(self)->describe(ProcessName::from_c(peer)).c_str());
    } catch (...) {
    }
  }
  static void stop(void* self) {
    try {
      self_of(self)->stop();
    } catch (...) {
    }
  }
  static void forget_peer(void* self, orca_process_name peer) {
    try {
      self_of(self)->forget_peer(ProcessName::from_c(peer));
    } catch (...) {
    }
  }
};

}  // namespace orca::oob

#endif  // ORCA_OOB_MODULE_GLUE_H
