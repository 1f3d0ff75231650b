// simple_wire: the PMI-1 / PMI-2 codec and the stream decoder.
#include "pmi/simple/simple_wire.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orca::pmi {
namespace {

using orca::test::FailedWith;
using orca::test::Succeeded;

WireMessage msg(std::string command, Pairs pairs = {}) {
  return WireMessage{.command = std::move(command), .pairs = std::move(pairs)};
}

std::string framed(Framing f, const WireMessage& m) {
  auto r = format(f, m);
  EXPECT_TRUE(Succeeded(r));
  return r.ok() ? r.value() : std::string();
}

/* Every client message Orca understands, in both framings. */
std::vector<std::string> sample_pmi1() {
  return {
      "cmd=init pmi_version=1 pmi_subversion=1\n",
      "cmd=initack pmiid=3\n",
      "cmd=get_maxes\n",
      "cmd=get_appnum\n",
      "cmd=get_universe_size\n",
      "cmd=get_my_kvsname\n",
      "cmd=put kvsname=kvs_1 key=bc-0 value=tcp://10.0.0.1:4000=x\n",
      "cmd=get kvsname=kvs_1 key=bc-0\n",
      "cmd=barrier_in\n",
      "cmd=finalize\n",
      "cmd=abort exitcode=3\n",
  };
}

std::vector<WireMessage> sample_pmi2() {
  return {
      msg("fullinit", {{"pmijobid", "kvs_1"}, {"pmirank", "0"}, {"threaded", "FALSE"}}),
      msg("job-getid"),
      msg("kvs-put", {{"key", "bc;0"}, {"value", "a;b;;c;"}}),
      msg("kvs-get", {{"jobid", "kvs_1"}, {"srcid", "-1"}, {"key", "bc;0"}}),
      msg("kvs-fence"),
      msg("info-getjobattr", {{"key", "PMI_process_mapping"}}),
      msg("finalize"),
      msg("abort", {{"isworldabort", "TRUE"}, {"msg", "it broke; sorry"}}),
  };
}

TEST(PmiWire, DetectsFramingFromTheFirstByte) {
  EXPECT_EQ(detect_framing('0'), Framing::Pmi2);
  EXPECT_EQ(detect_framing('9'), Framing::Pmi2);
  EXPECT_EQ(detect_framing(' '), Framing::Pmi2);
  EXPECT_EQ(detect_framing('c'), Framing::Pmi1);
  EXPECT_EQ(detect_framing('m'), Framing::Pmi1);
  StreamDecoder d;
  EXPECT_FALSE(d.framing());
  d.append("cm");
  auto none = d.next();
  ASSERT_TRUE(Succeeded(none));
  EXPECT_FALSE(none.value());
  EXPECT_EQ(d.framing(), Framing::Pmi1);
}

TEST(PmiWire, ParsesPmi1Line) {
  auto m = parse_pmi1_line("cmd=put  kvsname=k key=a value=x=y ");
  ASSERT_TRUE(Succeeded(m));
  EXPECT_EQ(m->command, "put");
  ASSERT_EQ(m->pairs.size(), 3u);
  EXPECT_EQ(*m->find("value"), "x=y");
  EXPECT_EQ(m->find("missing"), nullptr);
  auto empty_value = parse_pmi1_line("cmd=put value=");
  ASSERT_TRUE(Succeeded(empty_value));
  EXPECT_EQ(*empty_value->find("value"), "");
}

TEST(PmiWire, Pmi1RoundTrips) {
  for (const auto& line : sample_pmi1()) {
    auto m = parse_pmi1_line(std::string_view(line).substr(0, line.size() - 1));
    ASSERT_TRUE(Succeeded(m)) << line;
    EXPECT_EQ(framed(Framing::Pmi1, m.value()), line);
  }
}

TEST(PmiWire, Pmi2RoundTripsWithEscapes) {
  for (const auto& m : sample_pmi2()) {
    const std::string bytes = framed(Framing::Pmi2, m);
    StreamDecoder d(Framing::Pmi2);
    auto out = d.feed(bytes);
    ASSERT_TRUE(Succeeded(out)) << bytes;
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ(out->front(), m) << bytes;
  }
}

TEST(PmiWire, Pmi2LengthFieldIsLeftJustifiedDecimal) {
  const std::string bytes = framed(Framing::Pmi2, msg("kvs-fence"));
  EXPECT_EQ(bytes, "14    cmd=kvs-fence;");
  EXPECT_EQ(framed(Framing::Pmi2, msg("kvs-put", {{"key", "k"}, {"value", "a;b"}})),
            "29    cmd=kvs-put;key=k;value=a;;b;");
  for (const std::string accepted : {"14    cmd=kvs-fence;", "    14cmd=kvs-fence;", "000014cmd=kvs-fence;",
                                     "13    cmd=kvs-fence"}) {
    StreamDecoder d;
    auto out = d.feed(accepted);
    ASSERT_TRUE(Succeeded(out)) << accepted;
    ASSERT_EQ(out->size(), 1u) << accepted;
    EXPECT_EQ(out->front().command, "kvs-fence");
  }
}

TEST(PmiWire, DecodesManyMessagesFromOneChunkAndByteByByte) {
  std::string stream;
  for (const auto& line : sample_pmi1()) stream += line;
  StreamDecoder whole;
  auto all = whole.feed(stream);
  ASSERT_TRUE(Succeeded(all));
  EXPECT_EQ(all->size(), sample_pmi1().size());

  StreamDecoder bytewise;
  std::vector<WireMessage> got;
  for (const char c : stream) {
    auto some = bytewise.feed(std::string_view(&c, 1));
    ASSERT_TRUE(Succeeded(some));
    for (auto& m : some.value()) got.push_back(std::move(m));
  }
  EXPECT_EQ(got, all.value());
  EXPECT_EQ(bytewise.buffered(), 0u);

  std::string stream2;
  for (const auto& m : sample_pmi2()) stream2 += framed(Framing::Pmi2, m);
  StreamDecoder d2;
  std::vector<WireMessage> got2;
  for (std::size_t i = 0; i < stream2.size(); i += 7) {
    auto some = d2.feed(std::string_view(stream2).substr(i, 7));
    ASSERT_TRUE(Succeeded(some));
    for (auto& m : some.value()) got2.push_back(std::move(m));
  }
  EXPECT_EQ(got2, sample_pmi2());
}

/* Every prefix of every message: the decoder waits, never yields a
 * message early, never fails. Then a truncated PMI-1 line completed by a
 * newline either parses or fails cleanly. */
TEST(PmiWire, EveryTruncationWaitsForMore) {
  std::vector<std::pair<Framing, std::string>> all;
  for (const auto& line : sample_pmi1()) all.emplace_back(Framing::Pmi1, line);
  for (const auto& m : sample_pmi2()) all.emplace_back(Framing::Pmi2, framed(Framing::Pmi2, m));
  all.emplace_back(Framing::Pmi1, "mcmd=spawn\nnprocs=2\nexecname=a.out\nendcmd\n");
  for (const auto& [framing, bytes] : all) {
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      StreamDecoder d;
      auto out = d.feed(std::string_view(bytes).substr(0, cut));
      ASSERT_TRUE(Succeeded(out)) << bytes << " cut at " << cut;
      EXPECT_TRUE(out->empty()) << bytes << " cut at " << cut;
      EXPECT_FALSE(d.failed());
      auto rest = d.feed(std::string_view(bytes).substr(cut));
      ASSERT_TRUE(Succeeded(rest)) << bytes << " cut at " << cut;
      EXPECT_EQ(rest->size(), 1u) << bytes << " cut at " << cut;
      if (framing == Framing::Pmi1 && cut > 0) {
        StreamDecoder early;
        auto closed = early.feed(bytes.substr(0, cut) + "\n");
        if (!closed.ok()) {
          EXPECT_TRUE(FailedWith(closed, "pmi", "wire-malformed"));
          EXPECT_TRUE(early.failed());
        }
      }
    }
  }
}

TEST(PmiWire, RefusesMalformedPmi1) {
  for (const std::string bad : {
           "cmd=\n",                      // empty command
           "cmd=put key\n",               // no '='
           "cmd=put =v\n",                // empty key
           "cmd=put key=a key=b\n",       // duplicate
           "cmd=put cmd=again\n",         // duplicate command
           "key=a cmd=put\n",             // not starting with cmd=
           " cmd=put\n",                  // leading space
           "GET / HTTP/1.1\r\n",          // not PMI at all
           "mcmd=\nendcmd\n",             // empty multi command
       }) {
    StreamDecoder d;
    auto out = d.feed(bad);
    EXPECT_TRUE(FailedWith(out, "pmi", "wire-malformed")) << bad;
  }
  StreamDecoder nul;
  EXPECT_TRUE(FailedWith(nul.feed(std::string("cmd=put key=a\0b\n", 16)), "pmi", "wire-malformed"));
}

TEST(PmiWire, RefusesMalformedPmi2) {
  const auto refused = [](const std::string& bytes) {
    StreamDecoder d(Framing::Pmi2);
    auto out = d.feed(bytes);
    return FailedWith(out, "pmi", "wire-malformed");
  };
  EXPECT_TRUE(refused("0     "));
  EXPECT_TRUE(refused("1a    cmd=x;"));
  EXPECT_TRUE(refused("      cmd=x;"));
  EXPECT_TRUE(refused("1 2   cmd=x;"));
  EXPECT_TRUE(refused("999999cmd=x;"));
  EXPECT_TRUE(refused("65537 "));  // one over kMaxPmi2BodyBytes, refused before the body arrives
  EXPECT_TRUE(refused("6     key=v;"));
  EXPECT_TRUE(refused("5     cmd=;"));
  EXPECT_TRUE(refused("11    cmd=x;k=v;k"));
  EXPECT_TRUE(refused("13    cmd=x;k=1;k=2"));
  EXPECT_TRUE(refused(std::string("9     cmd=x;k=\0", 15)));
  EXPECT_TRUE(refused("x"));  // refused at once, before six bytes arrived
}

TEST(PmiWire, RefusesOversizedFields) {
  const std::string long_key(kMaxKeyBytes + 1, 'k');
  const std::string long_value(kMaxValueBytes + 1, 'v');
  StreamDecoder k;
  EXPECT_TRUE(FailedWith(k.feed("cmd=put " + long_key + "=1\n"), "pmi", "wire-malformed"));
  StreamDecoder v;
  EXPECT_TRUE(FailedWith(v.feed("cmd=put key=" + long_value + "\n"), "pmi", "wire-malformed"));
  StreamDecoder c;
  EXPECT_TRUE(FailedWith(c.feed("cmd=" + std::string(kMaxCommandBytes + 1, 'c') + "\n"), "pmi", "wire-malformed"));
  // The largest fields are accepted.
  StreamDecoder ok;
  auto fine = ok.feed("cmd=put kvsname=" + std::string(kMaxKvsNameBytes, 'n') + " " + std::string(kMaxKeyBytes, 'k') +
                      "=" + std::string(kMaxValueBytes, 'v') + "\n");
  EXPECT_TRUE(Succeeded(fine));
  // A line without a newline is refused once it reaches the bound.
  StreamDecoder line;
  auto partial = line.feed("cmd=put value=" + std::string(kMaxPmi1LineBytes - 20, 'v'));
  EXPECT_TRUE(Succeeded(partial));
  EXPECT_TRUE(FailedWith(line.feed(std::string(20, 'v')), "pmi", "wire-malformed"));
  // PMI-2 value over the bound.
  StreamDecoder p2(Framing::Pmi2);
  const std::string body = "cmd=kvs-put;key=k;value=" + long_value + ";";
  EXPECT_TRUE(FailedWith(p2.feed(std::to_string(body.size()) + "  " + body), "pmi", "wire-malformed"));
}

TEST(PmiWire, FailureIsSticky) {
  StreamDecoder d;
  EXPECT_FALSE(d.feed("cmd=a b\n").ok());
  EXPECT_TRUE(d.failed());
  EXPECT_TRUE(FailedWith(d.feed("cmd=get_maxes\n"), "pmi", "wire-malformed"));
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(PmiWire, SpawnBlockIsOneMultiCommand) {
  StreamDecoder d;
  auto out = d.feed("mcmd=spawn\nnprocs=2\nexecname=a.out\narg1=x\nendcmd\ncmd=get_maxes\n");
  ASSERT_TRUE(Succeeded(out));
  ASSERT_EQ(out->size(), 2u);
  EXPECT_TRUE(out->at(0).multi_command);
  EXPECT_EQ(out->at(0).command, "spawn");
  EXPECT_EQ(out->at(1).command, "get_maxes");
  StreamDecoder huge;
  std::string block = "mcmd=spawn\n";
  while (block.size() <= kMaxPmi1SpawnBytes) block += "arg=" + std::string(100, 'a') + "\n";
  EXPECT_TRUE(FailedWith(huge.feed(block), "pmi", "wire-malformed"));
}

TEST(PmiWire, SwitchesFramingBetweenMessages) {
  StreamDecoder d;
  d.append("cmd=init pmi_version=2 pmi_subversion=0\n14    cmd=kvs-fence;");
  auto first = d.next();
  ASSERT_TRUE(Succeeded(first));
  ASSERT_TRUE(first.value());
  EXPECT_EQ(first.value()->command, "init");
  d.set_framing(Framing::Pmi2);
  auto second = d.next();
  ASSERT_TRUE(Succeeded(second));
  ASSERT_TRUE(second.value());
  EXPECT_EQ(second.value()->command, "kvs-fence");
}

TEST(PmiWire, FormatRefusesWhatTheFramingCannotCarry) {
  EXPECT_TRUE(FailedWith(format(Framing::Pmi1, msg("get_result", {{"value", "a b"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi1, msg("x", {{"v", "a\nb"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"k;", "v"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"k=", "v"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"k", std::string("\0", 1)}})), "pmi",
                         "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"k", "1"}, {"k", "2"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("")), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"", "v"}})), "pmi", "wire-unformattable"));
  EXPECT_TRUE(FailedWith(format(Framing::Pmi2, msg("x", {{"v", std::string(kMaxPmi2BodyBytes, 'v')}})), "pmi",
                         "wire-unformattable"));
  // A PMI-2 value may hold spaces and newlines.
  EXPECT_TRUE(Succeeded(format(Framing::Pmi2, msg("x", {{"v", "a b\nc"}}))));
}

}  // namespace
}  // namespace orca::pmi
