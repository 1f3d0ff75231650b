// oob/tcp read_config through a fake orca_mca_context that serves values
// from maps the test fills in.
#include "oob/tcp/tcp_config.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>

namespace orca::oob::tcp {
namespace {

using namespace std::chrono_literals;
using orca::test::FailedWith;
using orca::test::Succeeded;

// Serves text and integer values by short name. Starts with every
// variable of kVariables at its declared default, converted the way the
// variable system would (bool 1/0, sizes with binary suffixes).
class FakeContext {
 public:
  FakeContext() {
    context_.host = this;
    context_.get_text = &FakeContext::get_text;
    context_.get_int = &FakeContext::get_int;
    context_.verbosity = 0;
    for (size_t i = 0; i < kVariableCount; ++i) {
      const orca_mca_var_decl& d = kVariables[i];
      set(d.name, d.type, d.default_value ? d.default_value : "");
    }
  }

  void set_text(const std::string& name, const std::string& value) { text_[name] = value; }
  void set_int(const std::string& name, std::int64_t value) {
    ints_[name] = value;
    text_[name] = std::to_string(value);
  }

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
};

TEST(TcpConfig, DefaultsGiveTheDocumentedConfig) {
  FakeContext f;
  auto r = read_config(f.context());
  ASSERT_TRUE(Succeeded(r));
  const TcpConfig& c = r.value();
  std::string unknown;
  for (const auto& n : f.unknown_names()) unknown += n + " ";
  EXPECT_EQ(unknown, "") << "read_config asked for names that are not in kVariables";
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
  EXPECT_EQ(c.engine.heartbeat, 2000ms);
  EXPECT_EQ(c.engine.heartbeat_misses, 3);
  EXPECT_EQ(c.engine.handshake_timeout, 5000ms);
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

TEST(TcpConfig, BadSettings) {
  struct Case {
    const char* name;
    std::int64_t value;
  };
  for (const Case& c : {Case{"connect_timeout", -1}, Case{"connect_timeout", 0}, Case{"connect_stagger", -1},
                        Case{"retries", -1}, Case{"heartbeat_misses", 0}, Case{"handshake_timeout", 0},
                        Case{"handshake_timeout", -5}}) {
    SCOPED_TRACE(std::string(c.name) + "=" + std::to_string(c.value));
    FakeContext f;
    f.set_int(c.name, c.value);
    EXPECT_TRUE(FailedWith(read_config(f.context()), "oob", "bad-tcp-setting"));
  }
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
  for (size_t i = 0; i < kVariableCount; ++i) {
    EXPECT_TRUE(names.insert(kVariables[i].name).second) << kVariables[i].name;
    EXPECT_NE(kVariables[i].description, nullptr) << kVariables[i].name;
  }
  EXPECT_EQ(kVariableCount, 19u);
}

}  // namespace
}  // namespace orca::oob::tcp
