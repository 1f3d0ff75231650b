// oob/tcp's variables: read_config through a fake orca_mca_context that
// serves values from maps the test fills in, and the table's ranges through
// the real variable system (Registry, ComponentRegistrar, ComponentContext).
#include "oob/tcp/tcp_config.h"

#include "lib/expect_text.h"
#include "lib/result_assertions.h"
#include "mca/base/component_context.h"
#include "mca/base/component_registrar.h"

#include <orca/interface_selection.h>
#include <orca/mca_var.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace orca::oob::tcp {
namespace {

using namespace std::chrono_literals;
using orca::test::Contains;
using orca::test::FailedWith;
using orca::test::Succeeded;

// Serves text and integer values by short name. Starts with every
// variable of variables() at its declared default, converted the way the
// variable system would (bool 1/0, sizes with binary suffixes).
class FakeContext {
 public:
  FakeContext() {
    context_.host = this;
    context_.get_text = &FakeContext::get_text;
    context_.get_int = &FakeContext::get_int;
    context_.verbosity = 0;
    context_.process_role = ORCA_PROCESS_TOOL;
    for (size_t i = 0; i < variables().size(); ++i) {
      const orca_mca_var_decl& d = variables()[i];
      set(d.name, d.type, d.default_value ? d.default_value : "");
    }
    // The interface lists, which the component declares beside its table.
    for (const orca_mca_var_decl& d : net::interface_selection_decls()) set(d.name, d.type, d.default_value);
  }

  void set_text(const std::string& name, const std::string& value) { text_[name] = value; }
  void set_int(const std::string& name, std::int64_t value) {
    ints_[name] = value;
    text_[name] = std::to_string(value);
  }
  // get_int / get_text of `name` fail from now on, as the real context's do
  // for an unsigned value above INT64_MAX or a too small buffer.
  void fail_int(const std::string& name) { failing_.insert(name); }
  void fail_text(const std::string& name) { failing_text_.insert(name); }

  const orca_mca_context& context() const { return context_; }
  // Names asked for that are not variables of the table.
  const std::set<std::string>& unknown_names() const { return unknown_; }

 private:
  void set(const std::string& name, orca_mca_var_type type, const std::string& value) {
    text_[name] = value;
    switch (type) {
      case ORCA_MCA_VAR_BOOL:
        ints_[name] = value == "true" ? 1 : 0;
        break;
      case ORCA_MCA_VAR_INT:
      case ORCA_MCA_VAR_UNSIGNED:
        ints_[name] = std::stoll(value);
        break;
      case ORCA_MCA_VAR_SIZE: {
        std::int64_t n = std::stoll(value);
        switch (value.back()) {
          case 'k': n <<= 10; break;
          case 'M': n <<= 20; break;
          case 'G': n <<= 30; break;
          case 'T': n <<= 40; break;
          default: break;
        }
        ints_[name] = n;
        break;
      }
      default:
        break;
    }
  }

  static FakeContext* self(const orca_mca_context* c) { return static_cast<FakeContext*>(c->host); }

  static orca_mca_rc get_text(const orca_mca_context* c, const char* name, char* buffer, size_t length) {
    FakeContext* f = self(c);
    if (f->failing_text_.count(name)) return ORCA_MCA_FAILED;
    auto it = f->text_.find(name);
    if (it == f->text_.end()) {
      f->unknown_.insert(name);
      return ORCA_MCA_FAILED;
    }
    if (it->second.size() + 1 > length) return ORCA_MCA_FAILED;
    std::memcpy(buffer, it->second.c_str(), it->second.size() + 1);
    return ORCA_MCA_OK;
  }

  static orca_mca_rc get_int(const orca_mca_context* c, const char* name, std::int64_t* value) {
    FakeContext* f = self(c);
    if (f->failing_.count(name)) return ORCA_MCA_FAILED;
    auto it = f->ints_.find(name);
    if (it == f->ints_.end()) {
      f->unknown_.insert(name);
      return ORCA_MCA_FAILED;
    }
    *value = it->second;
    return ORCA_MCA_OK;
  }

  orca_mca_context context_{};
  std::map<std::string, std::string> text_;
  std::map<std::string, std::int64_t> ints_;
  std::set<std::string> unknown_;
  std::set<std::string> failing_;
  std::set<std::string> failing_text_;
};

// The real host: variables() declared into a Registry that holds `settings`
// (name without the oob_tcp_ prefix = text, from the command line), read
// back through a ComponentContext.
using Settings = std::vector<std::pair<std::string, std::string>>;

class RealHost {
 public:
  explicit RealHost(const Settings& settings = {}) {
    for (const auto& [name, text] : settings) {
      (void)registry_.add_setting(mca::Setting{"oob_tcp_" + name, text, mca::Source{mca::SourceKind::CommandLine}});
    }
    mca::ComponentRegistrar registrar(registry_, "oob", "tcp");
    rc_ = orca_mca_declare_vars(registrar.c_handle(), variables().data(), variables().size());
    const auto lists = net::interface_selection_decls();
    if (rc_ == ORCA_MCA_OK) rc_ = orca_mca_declare_vars(registrar.c_handle(), lists.data(), lists.size());
    declaration_error_ = registrar.error();
    value_error_ = registrar.value_error();
  }

  orca_mca_rc rc() const { return rc_; }
  /* A row of the table that the registry refused: a bug in the table. */
  const std::optional<Message>& declaration_error() const { return declaration_error_; }
  /* The first setting the registry refused. */
  const std::optional<Message>& value_error() const { return value_error_; }
  const mca::Registry& registry() const { return registry_; }
  Result<TcpConfig> config() const {
    mca::ComponentContext context(registry_, "oob", "tcp", 0, ORCA_PROCESS_TOOL);
    return read_config(*context.c_handle());
  }

 private:
  mca::Registry registry_;
  orca_mca_rc rc_ = ORCA_MCA_FAILED;
  std::optional<Message> declaration_error_;
  std::optional<Message> value_error_;
};

bool is_numeric(orca_mca_var_type type) {
  return type == ORCA_MCA_VAR_INT || type == ORCA_MCA_VAR_UNSIGNED || type == ORCA_MCA_VAR_SIZE ||
         type == ORCA_MCA_VAR_DOUBLE;
}

TEST(TcpConfig, DefaultsGiveTheDocumentedConfig) {
  FakeContext f;
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  const TcpConfig& c = r.value();
  std::string unknown;
  for (const auto& n : f.unknown_names()) unknown += n + " ";
  EXPECT_EQ(unknown, "") << "read_config asked for names that are not in variables()";
  EXPECT_FALSE(c.listen_wildcard);
  EXPECT_TRUE(c.ipv4);
  EXPECT_TRUE(c.ipv6);
  EXPECT_TRUE(c.ports_v4.empty());
  EXPECT_TRUE(c.ports_v6.empty());
  EXPECT_FALSE(c.static_ports);
  EXPECT_EQ(c.stagger, 250ms);
  EXPECT_EQ(c.connect_timeout, 5000ms);
  EXPECT_EQ(c.retries, 3);
  EXPECT_EQ(c.retry_backoff, 200ms);
  EXPECT_EQ(c.keepalive_time, 30);
  EXPECT_EQ(c.keepalive_interval, 5);
  EXPECT_EQ(c.keepalive_probes, 3);
  EXPECT_EQ(c.engine.max_message_size, 64ull << 20);
  EXPECT_EQ(c.engine.send_queue_limit, 256ull << 20);
  EXPECT_EQ(c.engine.heartbeat, 500ms);
  EXPECT_EQ(c.engine.heartbeat_misses, 4);
  EXPECT_EQ(c.engine.handshake_timeout, 5000ms);
  EXPECT_EQ(c.engine.max_pending, 256u);
  EXPECT_EQ(c.engine.pending_reserve, 64u);
  EXPECT_EQ(c.engine.max_pending_per_source, 32u);
  EXPECT_EQ(c.user_timeout, 0ms);
  EXPECT_EQ(c.engine.variable_prefix, "oob_tcp_");
}

// The table's defaults and the struct's initialisers say the same thing.
TEST(TcpConfig, TableDefaultsMatchTheStructDefaults) {
  FakeContext f;
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  const TcpConfig d;
  const TcpConfig& c = r.value();
  EXPECT_EQ(c.listen_wildcard, d.listen_wildcard);
  EXPECT_EQ(c.ipv4, d.ipv4);
  EXPECT_EQ(c.ipv6, d.ipv6);
  EXPECT_EQ(c.stagger, d.stagger);
  EXPECT_EQ(c.connect_timeout, d.connect_timeout);
  EXPECT_EQ(c.retries, d.retries);
  EXPECT_EQ(c.retry_backoff, d.retry_backoff);
  EXPECT_EQ(c.keepalive_time, d.keepalive_time);
  EXPECT_EQ(c.keepalive_interval, d.keepalive_interval);
  EXPECT_EQ(c.keepalive_probes, d.keepalive_probes);
  EXPECT_EQ(c.engine.max_message_size, d.engine.max_message_size);
  EXPECT_EQ(c.engine.send_queue_limit, d.engine.send_queue_limit);
  EXPECT_EQ(c.engine.heartbeat, d.engine.heartbeat);
  EXPECT_EQ(c.engine.heartbeat_misses, d.engine.heartbeat_misses);
  EXPECT_EQ(c.engine.handshake_timeout, d.engine.handshake_timeout);
  EXPECT_EQ(c.engine.max_pending, d.engine.max_pending);
  EXPECT_EQ(c.engine.pending_reserve, d.engine.pending_reserve);
  EXPECT_EQ(c.engine.max_pending_per_source, d.engine.max_pending_per_source);
  EXPECT_EQ(c.user_timeout, d.user_timeout);
}

TEST(TcpConfig, ValuesAreReadFromTheirVariables) {
  FakeContext f;
  f.set_int("listen_wildcard", 1);
  f.set_int("ipv6", 0);
  f.set_int("connect_stagger", 75);
  f.set_int("connect_timeout", 1234);
  f.set_int("retries", 0);
  f.set_int("retry_backoff", 9);
  f.set_int("keepalive_time", 11);
  f.set_int("keepalive_intvl", 12);
  f.set_int("keepalive_probes", 13);
  f.set_int("max_msg_size", 4096);
  f.set_int("send_queue_limit", 8192);
  f.set_int("heartbeat", 0);
  f.set_int("heartbeat_misses", 1);
  f.set_int("handshake_timeout", 77);
  f.set_int("max_pending", 1000);
  f.set_int("pending_reserve", 999);
  f.set_int("max_pending_per_source", 7);
  f.set_int("user_timeout", 30000);
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  const TcpConfig& c = r.value();
  EXPECT_TRUE(c.listen_wildcard);
  EXPECT_TRUE(c.ipv4);
  EXPECT_FALSE(c.ipv6);
  EXPECT_EQ(c.stagger, 75ms);
  EXPECT_EQ(c.connect_timeout, 1234ms);
  EXPECT_EQ(c.retries, 0);
  EXPECT_EQ(c.retry_backoff, 9ms);
  EXPECT_EQ(c.keepalive_time, 11);
  EXPECT_EQ(c.keepalive_interval, 12);
  EXPECT_EQ(c.keepalive_probes, 13);
  EXPECT_EQ(c.engine.max_message_size, 4096u);
  EXPECT_EQ(c.engine.send_queue_limit, 8192u);
  EXPECT_EQ(c.engine.heartbeat, 0ms);
  EXPECT_EQ(c.engine.heartbeat_misses, 1);
  EXPECT_EQ(c.engine.handshake_timeout, 77ms);
  EXPECT_EQ(c.engine.max_pending, 1000u);
  EXPECT_EQ(c.engine.pending_reserve, 999u);
  EXPECT_EQ(c.engine.max_pending_per_source, 7u);
  EXPECT_EQ(c.user_timeout, 30000ms);
}

TEST(TcpConfig, StaticPorts) {
  FakeContext f;
  f.set_text("static_ipv4_ports", "5000-5002,6000");
  f.set_text("static_ipv6_ports", "7000");
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  EXPECT_TRUE(r.value().static_ports);
  ASSERT_EQ(r.value().ports_v4.size(), 2u);
  EXPECT_EQ(r.value().ports_v4[0].first, 5000);
  EXPECT_EQ(r.value().ports_v4[0].last, 5002);
  EXPECT_EQ(r.value().ports_v4[1].first, 6000);
  ASSERT_EQ(r.value().ports_v6.size(), 1u);
  EXPECT_EQ(r.value().ports_v6[0].first, 7000);
  EXPECT_EQ(r.value().ports_v6[0].last, 7000);
}

TEST(TcpConfig, DynamicPorts) {
  FakeContext f;
  f.set_text("dynamic_ipv6_ports", "40000-40100");
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  EXPECT_FALSE(r.value().static_ports);
  EXPECT_TRUE(r.value().ports_v4.empty());
  ASSERT_EQ(r.value().ports_v6.size(), 1u);
  EXPECT_EQ(r.value().ports_v6[0].first, 40000);
  EXPECT_EQ(r.value().ports_v6[0].last, 40100);
}

TEST(TcpConfig, StaticAndDynamicPortsBothSet) {
  for (const auto& [s, d] : {std::pair{"static_ipv4_ports", "dynamic_ipv4_ports"},
                             std::pair{"static_ipv4_ports", "dynamic_ipv6_ports"},
                             std::pair{"static_ipv6_ports", "dynamic_ipv4_ports"},
                             std::pair{"static_ipv6_ports", "dynamic_ipv6_ports"}}) {
    SCOPED_TRACE(std::string(s) + " + " + d);
    FakeContext f;
    f.set_text(s, "5000");
    f.set_text(d, "6000-6010");
    EXPECT_TRUE(FailedWith(read_config(f.context()), "oob", "static-and-dynamic-ports"));
  }
}

// A long list of single ports (here 1,3,5,...: about 1.6 KB of text) is a
// valid value; it must not be silently dropped (which would let the
// kernel pick ports while the user asked for static ones).
TEST(TcpConfig, LongStaticPortListIsNotDropped) {
  std::string list;
  for (int p = 40001; p < 40600; p += 2) list += (list.empty() ? "" : ",") + std::to_string(p);
  ASSERT_GT(list.size(), 1024u);
  FakeContext f;
  f.set_text("static_ipv4_ports", list);
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  EXPECT_TRUE(r.value().static_ports);
  ASSERT_EQ(r.value().ports_v4.size(), 300u);
  EXPECT_EQ(r.value().ports_v4.front().first, 40001);
  EXPECT_EQ(r.value().ports_v4.back().first, 40599);
}

TEST(TcpConfig, BadStaticRangeNamesTheVariable) {
  FakeContext f;
  f.set_text("static_ipv4_ports", "5000,10-5");
  auto r = read_config(f.context());
  ASSERT_TRUE(FailedWith(r, "oob", "bad-port-range"));
  EXPECT_EQ(r.error().arg("variable"), "oob_tcp_static_ipv4_ports");
  EXPECT_EQ(r.error().arg("entry"), "10-5");
}

TEST(TcpConfig, BadRangesOfEveryVariable) {
  for (const char* v : {"static_ipv4_ports", "static_ipv6_ports", "dynamic_ipv4_ports", "dynamic_ipv6_ports"}) {
    SCOPED_TRACE(v);
    FakeContext f;
    f.set_text(v, "65536");
    auto r = read_config(f.context());
    ASSERT_TRUE(FailedWith(r, "oob", "bad-port-range"));
    EXPECT_EQ(r.error().arg("variable"), "oob_tcp_" + std::string(v));
    EXPECT_EQ(r.error().arg("entry"), "65536");
  }
}

// Regression: a failed get_int (the context's answer for a size above
// INT64_MAX, such as oob_tcp_max_msg_size=18446744073709551615) was read
// as 0, and nothing could be sent. Every failed read is an error now.
TEST(TcpConfig, AFailedReadIsAnErrorNamingTheVariable) {
  for (size_t i = 0; i < variables().size(); ++i) {
    const orca_mca_var_decl& d = variables()[i];
    SCOPED_TRACE(d.name);
    FakeContext f;
    if (d.type == ORCA_MCA_VAR_STRING) {
      f.fail_text(d.name);
    } else {
      f.fail_int(d.name);
    }
    auto r = read_config(f.context());
    ASSERT_TRUE(FailedWith(r, "mca-var", "unusable-var"));
    EXPECT_EQ(r.error().arg("name"), std::string("oob_tcp_") + d.name);
    EXPECT_TRUE(Contains(r.error().arg("why"), std::string("oob_tcp_") + d.name));
  }
}

// The lists are handed to the host as written, each with its variable;
// the C view stays valid in a copy after the original is gone (the module
// keeps a copy of the config).
TEST(TcpConfig, InterfaceListsAreReadForTheHostAsWritten) {
  std::optional<TcpConfig> copy;
  {
    RealHost host(Settings{{"if_include", "eth0, 10.0.0.0/8"}});
    ASSERT_EQ(host.rc(), ORCA_MCA_OK);
    auto r = host.config();
    ASSERT_TRUE(Succeeded(r));
    copy = r.value();
  }
  const orca_oob_interface_filter* f = copy->interfaces.c_filter();
  EXPECT_STREQ(f->include.variable, "oob_tcp_if_include");
  ASSERT_EQ(f->include.n_entries, 2u);
  EXPECT_STREQ(f->include.entries[0], "eth0");
  EXPECT_STREQ(f->include.entries[1], "10.0.0.0/8");
  EXPECT_STREQ(f->exclude.variable, "oob_tcp_if_exclude");
  EXPECT_EQ(f->exclude.n_entries, 0u);
}

TEST(TcpConfig, AnUnreadableInterfaceListIsAnErrorNamingIt) {
  FakeContext f;
  f.fail_text("if_exclude");
  auto r = read_config(f.context());
  ASSERT_TRUE(FailedWith(r, "mca-var", "unusable-var"));
  EXPECT_EQ(r.error().arg("name"), "oob_tcp_if_exclude");
}

// Whatever a host hands over, a value that does not fit its field is an
// error, not a wrap (2^32 + 3 retries once became 3).
TEST(TcpConfig, AValueThatDoesNotFitItsFieldIsAnError) {
  for (const char* name : {"retries", "keepalive_time", "heartbeat_misses", "max_pending"}) {
    SCOPED_TRACE(name);
    FakeContext f;
    f.set_int(name, (std::int64_t{1} << 32) + 3);
    auto r = read_config(f.context());
    ASSERT_TRUE(FailedWith(r, "mca-var", "unusable-var"));
    EXPECT_EQ(r.error().arg("name"), std::string("oob_tcp_") + name);
  }
  FakeContext f;
  f.set_int("max_msg_size", -1);
  EXPECT_TRUE(FailedWith(read_config(f.context()), "mca-var", "unusable-var"));
}

TEST(TcpConfig, EveryNumericVariableDeclaresAWellFormedRange) {
  for (size_t i = 0; i < variables().size(); ++i) {
    const orca_mca_var_decl& d = variables()[i];
    SCOPED_TRACE(d.name);
    if (!is_numeric(d.type)) {
      EXPECT_EQ(d.min_value, nullptr);
      EXPECT_EQ(d.max_value, nullptr);
      continue;
    }
    EXPECT_NE(d.min_value, nullptr);
    EXPECT_NE(d.max_value, nullptr);
  }
  RealHost host;
  EXPECT_EQ(host.rc(), ORCA_MCA_OK);
  EXPECT_FALSE(host.declaration_error().has_value()) << host.declaration_error()->summary();
  EXPECT_FALSE(host.value_error().has_value());
  for (size_t i = 0; i < variables().size(); ++i) {
    const mca::Variable* v = host.registry().find(std::string("oob_tcp_") + variables()[i].name);
    ASSERT_NE(v, nullptr) << variables()[i].name;
    EXPECT_TRUE(Succeeded(mca::check_range(v->spec()))) << variables()[i].name;
  }
  // Through the real host, the defaults are the documented config.
  auto r = host.config();
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().engine.heartbeat, 500ms);
  EXPECT_EQ(r.value().engine.max_pending, 256u);
}

struct RangeCase {
  const char* name;
  const char* value;
  const char* range;  // as the valid values show it
};

// Values the issue found accepted (and breaking the transport), and the
// edges of each range: refused with the range in the message, naming the
// variable and the source; the variable keeps its default.
TEST(TcpConfig, OutOfRangeValuesAreRefusedWithTheRange) {
  for (const RangeCase& c : {
           RangeCase{"max_msg_size", "18446744073709551615", "from 1k to 1G"},
           RangeCase{"max_msg_size", "1023", "from 1k to 1G"},
           RangeCase{"max_msg_size", "2G", "from 1k to 1G"},
           RangeCase{"send_queue_limit", "65535", "from 64k to 64G"},
           RangeCase{"send_queue_limit", "65G", "from 64k to 64G"},
           RangeCase{"retries", "2147483648", "from 0 to 1000"},
           RangeCase{"retries", "-1", "from 0 to 1000"},
           RangeCase{"connect_timeout", "0", "from 1 to 3600000"},
           RangeCase{"connect_timeout", "-9223372036854775808", "from 1 to 3600000"},
           RangeCase{"connect_timeout", "9223372036854775807", "from 1 to 3600000"},
           RangeCase{"handshake_timeout", "0", "from 1 to 3600000"},
           RangeCase{"handshake_timeout", "9223372036854775807", "from 1 to 3600000"},
           RangeCase{"heartbeat", "9223372036854775807", "from 0 to 3600000"},
           RangeCase{"heartbeat", "-1", "from 0 to 3600000"},
           RangeCase{"heartbeat_misses", "0", "from 1 to 1000"},
           RangeCase{"connect_stagger", "-1", "from 0 to 60000"},
           RangeCase{"connect_stagger", "60001", "from 0 to 60000"},
           RangeCase{"retry_backoff", "0", "from 1 to 600000"},
           RangeCase{"keepalive_time", "32768", "from 1 to 32767"},
           RangeCase{"keepalive_intvl", "0", "from 1 to 32767"},
           RangeCase{"keepalive_probes", "128", "from 1 to 127"},
           RangeCase{"max_pending", "0", "from 1 to 65536"},
           RangeCase{"max_pending_per_source", "65537", "from 1 to 65536"},
           RangeCase{"pending_reserve", "65536", "from 0 to 65535"},
           RangeCase{"user_timeout", "-1", "from 0 to 3600000"},
           RangeCase{"user_timeout", "3600001", "from 0 to 3600000"},
       }) {
    SCOPED_TRACE(std::string(c.name) + "=" + c.value);
    RealHost host(Settings{{c.name, c.value}});
    EXPECT_EQ(host.rc(), ORCA_MCA_OK) << "a bad user value is not a bad component";
    ASSERT_TRUE(host.value_error().has_value());
    const Message& m = *host.value_error();
    EXPECT_EQ(m.topic(), "bad-value");
    EXPECT_EQ(m.arg("name"), std::string("oob_tcp_") + c.name);
    EXPECT_EQ(m.arg("value"), c.value);
    EXPECT_EQ(m.arg("source"), "command line");
    EXPECT_EQ(m.arg("why"), "out of range");
    EXPECT_TRUE(Contains(m.arg("valid"), c.range));
    const mca::Variable* v = host.registry().find(std::string("oob_tcp_") + c.name);
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->is_default());
  }
}

TEST(TcpConfig, TheEdgesOfEachRangeAreAccepted) {
  RealHost low(Settings{{"connect_stagger", "0"}, {"connect_timeout", "1"}, {"retries", "0"}, {"retry_backoff", "1"},
                {"max_msg_size", "1k"}, {"send_queue_limit", "64k"}, {"keepalive_time", "1"},
                {"keepalive_intvl", "1"}, {"keepalive_probes", "1"}, {"heartbeat", "0"},
                {"heartbeat_misses", "1"}, {"handshake_timeout", "1"}, {"max_pending", "1"},
                {"pending_reserve", "0"}, {"max_pending_per_source", "1"}, {"user_timeout", "0"}});
  ASSERT_FALSE(low.value_error().has_value()) << low.value_error()->summary();
  auto l = low.config();
  ASSERT_TRUE(Succeeded(l));
  EXPECT_EQ(l.value().engine.max_message_size, 1024u);
  EXPECT_EQ(l.value().engine.send_queue_limit, 64u << 10);
  EXPECT_EQ(l.value().connect_timeout, 1ms);
  EXPECT_EQ(l.value().engine.max_pending, 1u);

  RealHost high(Settings{{"connect_stagger", "60000"}, {"connect_timeout", "3600000"}, {"retries", "1000"},
                 {"retry_backoff", "600000"}, {"max_msg_size", "1G"}, {"send_queue_limit", "64G"},
                 {"keepalive_time", "32767"}, {"keepalive_intvl", "32767"}, {"keepalive_probes", "127"},
                 {"heartbeat", "3600000"}, {"heartbeat_misses", "1000"}, {"handshake_timeout", "3600000"},
                 {"max_pending", "65536"}, {"pending_reserve", "65535"}, {"max_pending_per_source", "65536"},
                 {"user_timeout", "3600000"}});
  ASSERT_FALSE(high.value_error().has_value()) << high.value_error()->summary();
  auto h = high.config();
  ASSERT_TRUE(Succeeded(h));
  EXPECT_EQ(h.value().retries, 1000);
  EXPECT_EQ(h.value().engine.max_message_size, 1ull << 30);
  EXPECT_EQ(h.value().engine.send_queue_limit, 64ull << 30);
  EXPECT_EQ(h.value().engine.heartbeat, 3600000ms);
  EXPECT_EQ(h.value().engine.heartbeat_misses, 1000);
  EXPECT_EQ(h.value().engine.max_pending_per_source, 65536u);
  EXPECT_EQ(h.value().engine.pending_reserve, 65535u);
  EXPECT_EQ(h.value().user_timeout, 3600000ms);
}

// New sources, a daemon's first connection among them, need a slot the
// reserve does not take: a reserve of max_pending or more is an error
// naming both variables, whichever of them was changed.
TEST(TcpConfig, AReserveOfEveryHandshakeSlotIsAnError) {
  for (const auto& [total, reserve] : {std::pair{256, 256}, std::pair{16, 64}, std::pair{1, 1}}) {
    SCOPED_TRACE(std::to_string(total) + " slots, " + std::to_string(reserve) + " reserved");
    FakeContext f;
    f.set_int("max_pending", total);
    f.set_int("pending_reserve", reserve);
    auto r = read_config(f.context());
    ASSERT_TRUE(FailedWith(r, "oob", "pending-reserve-too-large"));
    EXPECT_EQ(r.error().arg("reserve"), "oob_tcp_pending_reserve");
    EXPECT_EQ(r.error().arg("total"), "oob_tcp_max_pending");
    EXPECT_TRUE(Contains(r.error().arg("why"), "(" + std::to_string(reserve) + ") is not below")) << r.error().arg("why");
  }
  FakeContext f;
  f.set_int("max_pending", 16);
  f.set_int("pending_reserve", 15);
  EXPECT_TRUE(Succeeded(read_config(f.context())));
}

TEST(TcpConfig, ZeroStaggerIsAllowed) {
  FakeContext f;
  f.set_int("connect_stagger", 0);
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  EXPECT_EQ(r.value().stagger, 0ms);
}

TEST(TcpConfig, TheTableNamesEveryVariableOnce) {
  std::set<std::string> names;
  for (size_t i = 0; i < variables().size(); ++i) {
    EXPECT_TRUE(names.insert(variables()[i].name).second) << variables()[i].name;
    EXPECT_NE(variables()[i].description, nullptr) << variables()[i].name;
  }
  EXPECT_EQ(variables().size(), 24u);
}

}  // namespace
}  // namespace orca::oob::tcp
