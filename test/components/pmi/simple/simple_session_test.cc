// SimpleSession: one rank's PMI-1 / PMI-2 server state machine, driven by
// the bytes a client would send, with the test playing the job.
#include "pmi/simple/simple_session.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace orca::pmi {
namespace {

using orca::test::Succeeded;

RankIdentity identity(int rank, int size = 2) {
  return RankIdentity{.rank = rank,
                      .size = size,
                      .appnum = 0,
                      .universe_size = size,
                      .kvsname = "kvs_42",
                      .process_mapping = "(vector,(0,1,2))"};
}

/* Sends `bytes`, returns what the session wrote back. */
std::string say(SimpleSession& s, std::string_view bytes) {
  s.receive(bytes);
  return s.take_output();
}

/* A PMI-2 client message. */
std::string p2(const std::string& command, const Pairs& pairs = {}) {
  auto r = format(Framing::Pmi2, WireMessage{.command = command, .pairs = pairs});
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value() : std::string();
}

/* The single PMI-2 reply in `bytes`. */
WireMessage p2_reply(const std::string& bytes) {
  StreamDecoder d(Framing::Pmi2);
  auto out = d.feed(bytes);
  EXPECT_TRUE(Succeeded(out)) << bytes;
  EXPECT_EQ(d.buffered(), 0u) << bytes;
  if (!out.ok() || out->size() != 1) {
    ADD_FAILURE() << "not one reply: " << bytes;
    return {};
  }
  return out->front();
}

std::string field(const WireMessage& m, std::string_view key) {
  const std::string* v = m.find(key);
  return v ? *v : std::string("<absent>");
}

std::vector<BarrierEntered> barriers(SimpleSession& s) {
  std::vector<BarrierEntered> out;
  for (auto& e : s.take_events()) {
    if (auto* b = std::get_if<BarrierEntered>(&e)) out.push_back(std::move(*b));
  }
  return out;
}

TEST(PmiSession, Pmi1ConversationThroughABarrier) {
  SimpleSession a(identity(0));
  SimpleSession b(identity(1));
  EXPECT_EQ(say(a, "cmd=init pmi_version=1 pmi_subversion=1\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  EXPECT_EQ(say(b, "cmd=init pmi_version=1 pmi_subversion=1\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  EXPECT_EQ(say(a, "cmd=get_maxes\n"), "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  EXPECT_EQ(say(a, "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=0\n");
  EXPECT_EQ(say(a, "cmd=get_universe_size\n"), "cmd=universe_size rc=0 size=2\n");
  EXPECT_EQ(say(a, "cmd=get_my_kvsname\n"), "cmd=my_kvsname rc=0 kvsname=kvs_42\n");
  EXPECT_EQ(say(a, "cmd=get kvsname=kvs_42 key=PMI_process_mapping\n"),
            "cmd=get_result rc=0 value=(vector,(0,1,2))\n");
  EXPECT_EQ(say(a, "cmd=put kvsname=kvs_42 key=bc-0 value=addr0\n"), "cmd=put_result rc=0\n");
  EXPECT_EQ(say(b, "cmd=put kvsname=kvs_42 key=bc-1 value=addr1\n"), "cmd=put_result rc=0\n");
  // A rank reads its own put before the barrier.
  EXPECT_EQ(say(a, "cmd=get kvsname=kvs_42 key=bc-0\n"), "cmd=get_result rc=0 value=addr0\n");
  EXPECT_EQ(say(a, "cmd=get kvsname=kvs_42 key=bc-1\n"), "cmd=get_result rc=-1 msg=key_not_found\n");

  EXPECT_EQ(say(a, "cmd=barrier_in\n"), "");
  EXPECT_EQ(say(b, "cmd=barrier_in\n"), "");
  EXPECT_TRUE(a.in_barrier());
  auto ba = barriers(a);
  auto bb = barriers(b);
  ASSERT_EQ(ba.size(), 1u);
  ASSERT_EQ(bb.size(), 1u);
  EXPECT_EQ(ba[0].epoch, 0u);
  EXPECT_EQ(ba[0].puts, (Kvs{{"bc-0", "addr0"}}));
  EXPECT_EQ(bb[0].puts, (Kvs{{"bc-1", "addr1"}}));
  Kvs merged = ba[0].puts;
  merged.insert(bb[0].puts.begin(), bb[0].puts.end());
  ASSERT_TRUE(Succeeded(a.barrier_done(merged)));
  ASSERT_TRUE(Succeeded(b.barrier_done(merged)));
  EXPECT_EQ(a.take_output(), "cmd=barrier_out rc=0\n");
  EXPECT_EQ(b.take_output(), "cmd=barrier_out rc=0\n");
  EXPECT_FALSE(a.in_barrier());

  EXPECT_EQ(say(a, "cmd=get kvsname=kvs_42 key=bc-1\n"), "cmd=get_result rc=0 value=addr1\n");
  EXPECT_EQ(say(b, "cmd=get kvsname=kvs_42 key=bc-0\n"), "cmd=get_result rc=0 value=addr0\n");
  // A second barrier is epoch 1 and carries only the new puts.
  say(a, "cmd=barrier_in\n");
  auto again = barriers(a);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].epoch, 1u);
  EXPECT_TRUE(again[0].puts.empty());
  ASSERT_TRUE(Succeeded(a.barrier_done(merged)));
  a.take_output();

  EXPECT_EQ(say(a, "cmd=finalize\n"), "cmd=finalize_ack rc=0\n");
  auto events = a.take_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<Finalized>(events[0]));
  EXPECT_EQ(a.state(), SimpleSession::State::Finalized);
}

TEST(PmiSession, Pmi1InitackSendsIdentity) {
  SimpleSession s(identity(1, 4));
  EXPECT_EQ(say(s, "cmd=initack pmiid=1\n"), "cmd=initack rc=0\ncmd=set size=4\ncmd=set rank=1\ncmd=set debug=0\n");
  EXPECT_EQ(say(s, "cmd=initack pmiid=1\n"), "cmd=initack rc=-1 msg=initack_after_init_or_twice\n");
  SimpleSession wrong(identity(1, 4));
  EXPECT_EQ(say(wrong, "cmd=initack pmiid=2\n"), "cmd=initack rc=-1 msg=pmiid_is_not_this_rank\n");
}

TEST(PmiSession, Pmi2ConversationAfterPmi1Handshake) {
  SimpleSession a(identity(0));
  SimpleSession b(identity(1));
  // MPICH's PMI-2 client: one PMI-1 init line, then PMI-2 framing.
  for (auto* s : {&a, &b}) {
    EXPECT_EQ(say(*s, "cmd=init pmi_version=2 pmi_subversion=0\n"),
              "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
    EXPECT_EQ(s->state(), SimpleSession::State::AwaitingFullinit);
    EXPECT_EQ(s->framing(), Framing::Pmi2);
  }
  auto init = p2_reply(say(a, p2("fullinit", {{"pmijobid", "kvs_42"}, {"pmirank", "0"}, {"threaded", "FALSE"}})));
  EXPECT_EQ(init.command, "fullinit-response");
  EXPECT_EQ(field(init, "rc"), "0");
  EXPECT_EQ(field(init, "rank"), "0");
  EXPECT_EQ(field(init, "size"), "2");
  EXPECT_EQ(field(init, "pmi-version"), "2");
  auto init_b = p2_reply(say(b, p2("fullinit", {{"pmirank", "1"}})));
  EXPECT_EQ(field(init_b, "rank"), "1");

  auto id = p2_reply(say(a, p2("job-getid")));
  EXPECT_EQ(id.command, "job-getid-response");
  EXPECT_EQ(field(id, "jobid"), "kvs_42");
  auto map = p2_reply(say(a, p2("info-getjobattr", {{"key", "PMI_process_mapping"}})));
  EXPECT_EQ(field(map, "found"), "TRUE");
  EXPECT_EQ(field(map, "value"), "(vector,(0,1,2))");
  auto unknown_attr = p2_reply(say(a, p2("info-getjobattr", {{"key", "nope"}})));
  EXPECT_EQ(field(unknown_attr, "found"), "FALSE");
  EXPECT_EQ(field(unknown_attr, "rc"), "0");

  EXPECT_EQ(field(p2_reply(say(a, p2("kvs-put", {{"key", "k;0"}, {"value", "v a;l 0"}}))), "rc"), "0");
  EXPECT_EQ(field(p2_reply(say(b, p2("kvs-put", {{"key", "k;1"}, {"value", "val1"}}))), "rc"), "0");
  EXPECT_EQ(say(a, p2("kvs-fence")), "");
  EXPECT_EQ(say(b, p2("kvs-fence")), "");
  auto ba = barriers(a);
  auto bb = barriers(b);
  ASSERT_EQ(ba.size(), 1u);
  ASSERT_EQ(bb.size(), 1u);
  Kvs merged = ba[0].puts;
  merged.insert(bb[0].puts.begin(), bb[0].puts.end());
  EXPECT_EQ(merged.size(), 2u);
  ASSERT_TRUE(Succeeded(a.barrier_done(merged)));
  ASSERT_TRUE(Succeeded(b.barrier_done(merged)));
  auto released = p2_reply(a.take_output());
  EXPECT_EQ(released.command, "kvs-fence-response");
  EXPECT_EQ(field(released, "rc"), "0");
  b.take_output();

  auto got = p2_reply(say(b, p2("kvs-get", {{"jobid", "kvs_42"}, {"srcid", "-1"}, {"key", "k;0"}})));
  EXPECT_EQ(got.command, "kvs-get-response");
  EXPECT_EQ(field(got, "found"), "TRUE");
  EXPECT_EQ(field(got, "value"), "v a;l 0");
  auto missing = p2_reply(say(b, p2("kvs-get", {{"key", "none"}})));
  EXPECT_EQ(field(missing, "found"), "FALSE");
  auto other_job = p2_reply(say(b, p2("kvs-get", {{"jobid", "other"}, {"key", "k;0"}})));
  EXPECT_EQ(field(other_job, "rc"), "-1");

  auto fin = p2_reply(say(a, p2("finalize")));
  EXPECT_EQ(fin.command, "finalize-response");
  EXPECT_EQ(field(fin, "rc"), "0");
  auto after = p2_reply(say(a, p2("kvs-put", {{"key", "late"}, {"value", "x"}})));
  EXPECT_EQ(field(after, "rc"), "-1");
  EXPECT_EQ(field(after, "errmsg"), "command after finalize");
}

TEST(PmiSession, Pmi2WithoutHandshake) {
  SimpleSession s(identity(0, 1));
  auto init = p2_reply(say(s, p2("fullinit", {{"pmirank", "0"}})));
  EXPECT_EQ(field(init, "rc"), "0");
  EXPECT_EQ(s.state(), SimpleSession::State::Ready);
  auto twice = p2_reply(say(s, p2("fullinit")));
  EXPECT_EQ(field(twice, "rc"), "-1");
  SimpleSession wrong(identity(0, 1));
  EXPECT_EQ(field(p2_reply(say(wrong, p2("fullinit", {{"pmirank", "5"}}))), "rc"), "-1");
  EXPECT_EQ(wrong.state(), SimpleSession::State::AwaitingInit);
}

TEST(PmiSession, RefusesCommandsBeforeInit) {
  SimpleSession s(identity(0));
  EXPECT_EQ(say(s, "cmd=get kvsname=kvs_42 key=a\n"), "cmd=get_result rc=-1 msg=command_before_init\n");
  EXPECT_EQ(say(s, "cmd=barrier_in\n"), "cmd=barrier_out rc=-1 msg=command_before_init\n");
  EXPECT_EQ(say(s, "cmd=finalize\n"), "cmd=finalize_ack rc=-1 msg=command_before_init\n");
  EXPECT_TRUE(s.take_events().empty());
  EXPECT_EQ(s.state(), SimpleSession::State::AwaitingInit);
  SimpleSession v2(identity(0));
  auto early = p2_reply(say(v2, p2("kvs-fence")));
  EXPECT_EQ(early.command, "kvs-fence-response");
  EXPECT_EQ(field(early, "rc"), "-1");
  EXPECT_TRUE(v2.take_events().empty());
}

TEST(PmiSession, RefusesWrongVersionAndInitTwice) {
  SimpleSession s(identity(0));
  EXPECT_EQ(say(s, "cmd=init pmi_version=3 pmi_subversion=0\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 msg=unsupported_pmi_version\n");
  EXPECT_EQ(say(s, "cmd=init pmi_version=1\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 msg=unsupported_pmi_version\n");
  EXPECT_EQ(say(s, "cmd=init pmi_version=1 pmi_subversion=0\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  EXPECT_EQ(say(s, "cmd=init pmi_version=1 pmi_subversion=1\n"), "cmd=response_to_init rc=-1 msg=init_twice\n");
}

TEST(PmiSession, RefusesBarrierTwiceAndPutAfterFinalize) {
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  EXPECT_EQ(say(s, "cmd=barrier_in\n"), "");
  EXPECT_EQ(say(s, "cmd=barrier_in\n"),
            "cmd=barrier_out rc=-1 msg=barrier_entered_again_before_the_last_one_completed\n");
  EXPECT_EQ(barriers(s).size(), 1u);
  ASSERT_TRUE(Succeeded(s.barrier_done(Kvs{})));
  EXPECT_EQ(s.take_output(), "cmd=barrier_out rc=0\n");
  EXPECT_FALSE(s.barrier_done(Kvs{}).ok());
  EXPECT_EQ(say(s, "cmd=finalize\n"), "cmd=finalize_ack rc=0\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=a value=b\n"), "cmd=put_result rc=-1 msg=command_after_finalize\n");
  EXPECT_EQ(say(s, "cmd=barrier_in\n"), "cmd=barrier_out rc=-1 msg=command_after_finalize\n");
}

TEST(PmiSession, RefusesUnknownAndIncompleteCommands) {
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  EXPECT_EQ(say(s, "cmd=publish_name service=a port=b\n"), "cmd=publish_name_result rc=-1 msg=unknown_command\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=a\n"), "cmd=put_result rc=-1 msg=put_needs_key_and_value\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=other key=a value=b\n"), "cmd=put_result rc=-1 msg=unknown_kvsname\n");
  EXPECT_EQ(say(s, "cmd=get key=a\n"), "cmd=get_result rc=-1 msg=unknown_kvsname\n");
  EXPECT_EQ(say(s, "mcmd=spawn\nnprocs=1\nexecname=x\nendcmd\n"),
            "cmd=spawn_result rc=-1 msg=spawn_is_not_supported\n");
  // Still usable.
  EXPECT_EQ(say(s, "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=0\n");
  SimpleSession v2(identity(0));
  say(v2, p2("fullinit"));
  auto unknown = p2_reply(say(v2, p2("name-publish", {{"name", "x"}})));
  EXPECT_EQ(unknown.command, "name-publish-response");
  EXPECT_EQ(field(unknown, "rc"), "-1");
  EXPECT_EQ(field(unknown, "errmsg"), "unknown command");
}

/* The wire bounds every value to kMaxValueBytes; a KVS key, which travels
 * as the value of "key=", is held to kMaxKeyBytes by the session. */
TEST(PmiSession, RefusesKeysOverKeylenMax) {
  const std::string longest(kMaxKeyBytes, 'k');
  const std::string over(kMaxKeyBytes + 1, 'k');
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=" + longest + " value=v\n"), "cmd=put_result rc=0\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=" + over + " value=v\n"),
            "cmd=put_result rc=-1 msg=key_longer_than_keylen_max\n");
  EXPECT_EQ(say(s, "cmd=get kvsname=kvs_42 key=" + over + "\n"),
            "cmd=get_result rc=-1 msg=key_longer_than_keylen_max\n");
  SimpleSession v2(identity(0));
  say(v2, p2("fullinit"));
  EXPECT_EQ(field(p2_reply(say(v2, p2("kvs-put", {{"key", over}, {"value", "v"}}))), "rc"), "-1");
  EXPECT_EQ(field(p2_reply(say(v2, p2("kvs-get", {{"key", over}}))), "rc"), "-1");
  say(v2, p2("kvs-fence"));
  auto b = barriers(v2);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(b[0].puts.empty());
}

TEST(PmiSession, Pmi1CannotCarryAValueWithASpace) {
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  say(s, "cmd=barrier_in\n");
  ASSERT_TRUE(Succeeded(s.barrier_done({{"spaced", "a b"}})));
  s.take_output();
  EXPECT_EQ(say(s, "cmd=get kvsname=kvs_42 key=spaced\n"), "cmd=get_result rc=-1 msg=reply_not_representable\n");
}

TEST(PmiSession, AbortReportsCodeAndMessage) {
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  s.take_events();  // Initialized
  EXPECT_EQ(say(s, "cmd=abort exitcode=7\ncmd=get_maxes\n"), "");
  auto events = s.take_events();
  ASSERT_EQ(events.size(), 1u);
  const auto* abort = std::get_if<AbortRequested>(&events[0]);
  ASSERT_NE(abort, nullptr);
  EXPECT_EQ(abort->exit_code, 7);
  EXPECT_EQ(s.state(), SimpleSession::State::Aborted);
  SimpleSession v2(identity(0));
  say(v2, p2("fullinit"));
  v2.take_events();  // Initialized
  say(v2, p2("abort", {{"isworldabort", "TRUE"}, {"msg", "bad; input"}}));
  auto e2 = v2.take_events();
  ASSERT_EQ(e2.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<AbortRequested>(e2[0]));
  EXPECT_EQ(std::get<AbortRequested>(e2[0]).message, "bad; input");
  EXPECT_EQ(std::get<AbortRequested>(e2[0]).exit_code, 1);
}

TEST(PmiSession, MalformedBytesEndTheSession) {
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  s.take_events();  // Initialized
  EXPECT_EQ(say(s, "cmd=put key\n"), "cmd=error rc=-1 msg=malformed_message:_a_pair_without_'='\n");
  auto events = s.take_events();
  ASSERT_EQ(events.size(), 1u);
  const auto* failed = std::get_if<ProtocolFailed>(&events[0]);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->why.topic(), "wire-malformed");
  EXPECT_EQ(s.state(), SimpleSession::State::Failed);
  EXPECT_EQ(say(s, "cmd=get_maxes\n"), "");
  EXPECT_TRUE(s.take_events().empty());

  SimpleSession v2(identity(0));
  auto reply = p2_reply(say(v2, "12xx  "));
  EXPECT_EQ(reply.command, "error-response");
  EXPECT_EQ(field(reply, "rc"), "-1");
}

/* The same conversation cut into two chunks at every offset answers the
 * same bytes as sent whole. */
TEST(PmiSession, ChunkingDoesNotChangeTheAnswers) {
  const std::string conversation = "cmd=init pmi_version=2 pmi_subversion=0\n" + p2("fullinit", {{"pmirank", "0"}}) +
                                   p2("kvs-put", {{"key", "a"}, {"value", "b"}}) + p2("job-getid") +
                                   p2("kvs-get", {{"key", "a"}}) + p2("finalize");
  SimpleSession whole(identity(0, 1));
  const std::string expected = say(whole, conversation);
  EXPECT_FALSE(expected.empty());
  for (std::size_t cut = 0; cut <= conversation.size(); ++cut) {
    SimpleSession s(identity(0, 1));
    std::string out = say(s, std::string_view(conversation).substr(0, cut));
    out += say(s, std::string_view(conversation).substr(cut));
    ASSERT_EQ(out, expected) << "cut at " << cut;
    EXPECT_EQ(s.state(), SimpleSession::State::Finalized);
  }
}


/* Initialized comes first, once: on PMI-1 init of version 1, and on PMI-2
 * fullinit (after the PMI-1 handshake or without it), never for a refused
 * init or for the handshake alone. */
TEST(PmiSession, InitializedIsTheFirstEvent) {
  SimpleSession v1(identity(0));
  say(v1, "cmd=init pmi_version=1 pmi_subversion=1\n");
  auto e1 = v1.take_events();
  ASSERT_EQ(e1.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<Initialized>(e1[0]));
  say(v1, "cmd=put kvsname=kvs_42 key=a value=b\ncmd=barrier_in\n");
  auto later = v1.take_events();
  ASSERT_EQ(later.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<BarrierEntered>(later[0]));

  SimpleSession handshake(identity(0));
  say(handshake, "cmd=init pmi_version=2 pmi_subversion=0\n");
  EXPECT_TRUE(handshake.take_events().empty());
  say(handshake, p2("fullinit", {{"pmirank", "0"}}));
  auto e2 = handshake.take_events();
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<Initialized>(e2[0]));

  // Initialized and the next event from one chunk: in that order.
  SimpleSession direct(identity(0));
  say(direct, p2("fullinit") + p2("kvs-fence"));
  auto e3 = direct.take_events();
  ASSERT_EQ(e3.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<Initialized>(e3[0]));
  EXPECT_TRUE(std::holds_alternative<BarrierEntered>(e3[1]));

  SimpleSession refused(identity(0));
  say(refused, "cmd=init pmi_version=3 pmi_subversion=0\n");
  EXPECT_TRUE(refused.take_events().empty());
  SimpleSession wrong_rank(identity(0));
  say(wrong_rank, p2("fullinit", {{"pmirank", "1"}}));
  EXPECT_TRUE(wrong_rank.take_events().empty());
  // A second init is refused and initializes nothing again.
  say(v1, "cmd=init pmi_version=1 pmi_subversion=1\n");
  EXPECT_TRUE(v1.take_events().empty());
}

/* MPICH's PMI-1 client with PMI_ID set: initack first, then init. */
TEST(PmiSession, Pmi1InitackThenInit) {
  SimpleSession s(identity(1, 2));
  EXPECT_EQ(say(s, "cmd=initack pmiid=1\n"), "cmd=initack rc=0\ncmd=set size=2\ncmd=set rank=1\ncmd=set debug=0\n");
  EXPECT_TRUE(s.take_events().empty());
  EXPECT_EQ(say(s, "cmd=init pmi_version=1 pmi_subversion=1\n"),
            "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  auto events = s.take_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<Initialized>(events[0]));
  EXPECT_EQ(say(s, "cmd=initack pmiid=1\n"), "cmd=initack rc=-1 msg=initack_after_init_or_twice\n");
}

TEST(PmiSession, Pmi2RefusesFenceTwice) {
  SimpleSession s(identity(0));
  say(s, p2("fullinit"));
  EXPECT_EQ(say(s, p2("kvs-put", {{"key", "a"}, {"value", "1"}}) + p2("kvs-fence")),
            p2("kvs-put-response", {{"rc", "0"}}));
  auto again = p2_reply(say(s, p2("kvs-fence")));
  EXPECT_EQ(again.command, "kvs-fence-response");
  EXPECT_EQ(field(again, "rc"), "-1");
  EXPECT_EQ(field(again, "errmsg"), "barrier entered again before the last one completed");
  auto b = barriers(s);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].epoch, 0u);
  EXPECT_EQ(b[0].puts, (Kvs{{"a", "1"}}));
  ASSERT_TRUE(Succeeded(s.barrier_done(Kvs{{"a", "1"}})));
  EXPECT_EQ(field(p2_reply(s.take_output()), "rc"), "0");
  // The next fence is epoch 1.
  say(s, p2("kvs-fence"));
  auto next = barriers(s);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].epoch, 1u);
}

// ---------------------------------------------------------------------------
// Every command the session knows, in a table, fed truncated, without its
// required keys, with values over their bounds, with unknown keys, and in
// the wrong state.

/* Where a command is answered normally: before init (init, initack), after
 * the PMI-1 handshake of a PMI-2 client (fullinit), or once initialized. */
enum class Start : std::uint8_t { Fresh, Handshake, Ready, Finalized };

struct CommandCase {
  Framing framing;
  std::string command;
  Pairs pairs;                        // a complete form
  std::vector<std::string> required;  // refused without any of these
  std::string response;               // the reply's command; empty: none (abort)
  Start start = Start::Ready;
  bool barrier = false;       // answered only when released
  bool always_refused = false;  // spawn
};

std::vector<CommandCase> command_cases() {
  using F = Framing;
  return {
      {F::Pmi1, "init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}, {"pmi_version", "pmi_subversion"},
       "response_to_init", Start::Fresh},
      {F::Pmi1, "initack", {{"pmiid", "0"}}, {"pmiid"}, "initack", Start::Fresh},
      {F::Pmi1, "get_maxes", {}, {}, "maxes"},
      {F::Pmi1, "get_appnum", {}, {}, "appnum"},
      {F::Pmi1, "get_universe_size", {}, {}, "universe_size"},
      {F::Pmi1, "get_my_kvsname", {}, {}, "my_kvsname"},
      {F::Pmi1, "put", {{"kvsname", "kvs_42"}, {"key", "k"}, {"value", "v"}}, {"kvsname", "key", "value"},
       "put_result"},
      {F::Pmi1, "get", {{"kvsname", "kvs_42"}, {"key", "PMI_process_mapping"}}, {"kvsname", "key"}, "get_result"},
      {F::Pmi1, "barrier_in", {}, {}, "barrier_out", Start::Ready, true},
      {F::Pmi1, "finalize", {}, {}, "finalize_ack"},
      {F::Pmi1, "abort", {{"exitcode", "3"}, {"message", "bye"}}, {}, ""},
      // A one-line spawn: MPICH sends spawn as an mcmd block (tested apart);
      // as a line it is an unknown command.
      {F::Pmi1, "spawn", {{"nprocs", "1"}, {"execname", "x"}}, {}, "spawn_result", Start::Ready, false, true},
      {F::Pmi2, "fullinit", {{"pmijobid", "kvs_42"}, {"pmirank", "0"}, {"threaded", "FALSE"}}, {},
       "fullinit-response", Start::Handshake},
      {F::Pmi2, "job-getid", {}, {}, "job-getid-response"},
      {F::Pmi2, "kvs-put", {{"key", "k"}, {"value", "v"}}, {"key", "value"}, "kvs-put-response"},
      {F::Pmi2, "kvs-get", {{"jobid", "kvs_42"}, {"srcid", "-1"}, {"key", "PMI_process_mapping"}}, {"key"},
       "kvs-get-response"},
      {F::Pmi2, "kvs-fence", {}, {}, "kvs-fence-response", Start::Ready, true},
      {F::Pmi2, "info-getjobattr", {{"key", "universeSize"}}, {"key"}, "info-getjobattr-response"},
      {F::Pmi2, "finalize", {}, {}, "finalize-response"},
      {F::Pmi2, "abort", {{"isworldabort", "TRUE"}, {"msg", "bye"}}, {}, ""},
      {F::Pmi2, "spawn", {{"ncmds", "1"}, {"subcmd", "x"}, {"maxprocs", "1"}}, {}, "spawn-response",
       Start::Ready, false, true},
  };
}

std::string label(const CommandCase& c) { return std::string(framing_name(c.framing)) + " " + c.command; }

/* A client message in a framing. */
std::string wire(Framing framing, const std::string& command, const Pairs& pairs) {
  auto r = format(framing, WireMessage{.command = command, .pairs = pairs});
  EXPECT_TRUE(Succeeded(r)) << command;
  return r.ok() ? r.value() : std::string();
}

/* A session of rank 0 of 2 in `start`, output and events drained. */
std::unique_ptr<SimpleSession> session_in(Framing framing, Start start) {
  auto s = std::make_unique<SimpleSession>(identity(0));
  if (start == Start::Fresh) return s;
  if (framing == Framing::Pmi1) {
    s->receive("cmd=init pmi_version=1 pmi_subversion=1\n");
  } else {
    s->receive("cmd=init pmi_version=2 pmi_subversion=0\n");
    if (start != Start::Handshake) s->receive(p2("fullinit"));
  }
  if (start == Start::Finalized) s->receive(framing == Framing::Pmi1 ? "cmd=finalize\n" : p2("finalize"));
  s->take_output();
  s->take_events();
  return s;
}

SimpleSession::State state_of(Start start) {
  switch (start) {
    case Start::Fresh:
      return SimpleSession::State::AwaitingInit;
    case Start::Handshake:
      return SimpleSession::State::AwaitingFullinit;
    case Start::Ready:
      return SimpleSession::State::Ready;
    case Start::Finalized:
      return SimpleSession::State::Finalized;
  }
  return SimpleSession::State::Failed;
}

/* Every message in `bytes` (a session's replies in `framing`). */
std::vector<WireMessage> replies(Framing framing, const std::string& bytes) {
  StreamDecoder d(framing);
  auto out = d.feed(bytes);
  EXPECT_TRUE(Succeeded(out)) << bytes;
  EXPECT_EQ(d.buffered(), 0u) << bytes;
  return out.ok() ? out.value() : std::vector<WireMessage>();
}

/* The session in `start` still answers: a refusal did not end it. */
::testing::AssertionResult StillUsable(SimpleSession& s, Framing framing, Start start) {
  std::string probe;
  std::string expect_command;
  switch (start) {
    case Start::Fresh:
      probe = framing == Framing::Pmi1 ? "cmd=init pmi_version=1 pmi_subversion=1\n" : p2("fullinit");
      expect_command = framing == Framing::Pmi1 ? "response_to_init" : "fullinit-response";
      break;
    case Start::Handshake:
      probe = p2("fullinit");
      expect_command = "fullinit-response";
      break;
    case Start::Ready:
    case Start::Finalized:
      probe = framing == Framing::Pmi1 ? "cmd=get_appnum\n" : p2("job-getid");
      expect_command = framing == Framing::Pmi1 ? "appnum" : "job-getid-response";
      break;
  }
  if (s.state() == SimpleSession::State::Failed) return ::testing::AssertionFailure() << "the session failed";
  s.receive(probe);
  const std::string out = s.take_output();
  const auto got = replies(framing, out);
  if (got.size() != 1 || got[0].command != expect_command) {
    return ::testing::AssertionFailure() << "the probe got '" << out << "'";
  }
  const std::string want_rc = start == Start::Finalized ? "-1" : "0";
  if (field(got[0], "rc") != want_rc) {
    return ::testing::AssertionFailure() << "the probe got '" << out << "', expected rc=" << want_rc;
  }
  return ::testing::AssertionSuccess();
}

/* One refusal: a single reply of the case's command with rc=-1 and a
 * message, no event, the state unchanged, the session usable. */
void expect_refused(const CommandCase& c, Start start, const std::string& bytes, const std::string& what) {
  auto s = session_in(c.framing, start);
  s->receive(bytes);
  const std::string out = s->take_output();
  const auto got = replies(c.framing, out);
  ASSERT_EQ(got.size(), 1u) << label(c) << " " << what << ": '" << out << "'";
  EXPECT_EQ(got[0].command, c.response) << label(c) << " " << what;
  EXPECT_EQ(field(got[0], "rc"), "-1") << label(c) << " " << what << ": '" << out << "'";
  EXPECT_NE(field(got[0], c.framing == Framing::Pmi1 ? "msg" : "errmsg"), "<absent>") << label(c) << " " << what;
  EXPECT_TRUE(s->take_events().empty()) << label(c) << " " << what;
  EXPECT_EQ(s->state(), state_of(start)) << label(c) << " " << what;
  EXPECT_FALSE(s->in_barrier()) << label(c) << " " << what;
  EXPECT_TRUE(StillUsable(*s, c.framing, start)) << label(c) << " " << what;
}

/* What a case's command is answered with when accepted: its reply with
 * rc=0, or (barrier, abort) an event and no reply. */
void expect_accepted(const CommandCase& c, const std::string& bytes, const std::string& what) {
  auto s = session_in(c.framing, c.start);
  s->receive(bytes);
  const std::string out = s->take_output();
  const auto events = s->take_events();
  if (c.response.empty()) {
    EXPECT_EQ(out, "") << label(c) << " " << what;
    ASSERT_EQ(events.size(), 1u) << label(c) << " " << what;
    EXPECT_TRUE(std::holds_alternative<AbortRequested>(events[0])) << label(c) << " " << what;
    EXPECT_EQ(s->state(), SimpleSession::State::Aborted) << label(c) << " " << what;
    return;
  }
  if (c.barrier) {
    EXPECT_EQ(out, "") << label(c) << " " << what;
    ASSERT_EQ(events.size(), 1u) << label(c) << " " << what;
    EXPECT_TRUE(std::holds_alternative<BarrierEntered>(events[0])) << label(c) << " " << what;
    EXPECT_TRUE(s->in_barrier()) << label(c) << " " << what;
    ASSERT_TRUE(Succeeded(s->barrier_done(Kvs{})));
    const auto released = replies(c.framing, s->take_output());
    ASSERT_EQ(released.size(), 1u) << label(c) << " " << what;
    EXPECT_EQ(released[0].command, c.response) << label(c) << " " << what;
    EXPECT_EQ(field(released[0], "rc"), "0") << label(c) << " " << what;
    return;
  }
  const auto got = replies(c.framing, out);
  ASSERT_FALSE(got.empty()) << label(c) << " " << what;
  EXPECT_EQ(got[0].command, c.response) << label(c) << " " << what;
  EXPECT_EQ(field(got[0], "rc"), "0") << label(c) << " " << what << ": '" << out << "'";
}

Pairs without(const Pairs& pairs, const std::string& key) {
  Pairs out;
  for (const auto& p : pairs) {
    if (p.first != key) out.push_back(p);
  }
  return out;
}

bool is_required(const CommandCase& c, const std::string& key) {
  return std::find(c.required.begin(), c.required.end(), key) != c.required.end();
}

/* The complete form of every command is answered as it should be (so the
 * refusals below are about what was left out or added, nothing else). */
TEST(PmiSessionCommands, TheCompleteFormIsAnswered) {
  for (const CommandCase& c : command_cases()) {
    const std::string bytes = wire(c.framing, c.command, c.pairs);
    if (c.always_refused) {
      expect_refused(c, c.start, bytes, "complete");
    } else {
      expect_accepted(c, bytes, "complete");
    }
  }
}

/* A message cut anywhere is only buffered: no reply, no event, until the
 * rest arrives, and then the same answer as the whole message. */
TEST(PmiSessionCommands, ATruncatedMessageWaitsForTheRest) {
  for (const CommandCase& c : command_cases()) {
    const std::string bytes = wire(c.framing, c.command, c.pairs);
    auto whole = session_in(c.framing, c.start);
    whole->receive(bytes);
    const std::string expected = whole->take_output();
    const std::size_t expected_events = whole->take_events().size();
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      auto s = session_in(c.framing, c.start);
      s->receive(std::string_view(bytes).substr(0, cut));
      ASSERT_EQ(s->take_output(), "") << label(c) << " cut at " << cut;
      ASSERT_TRUE(s->take_events().empty()) << label(c) << " cut at " << cut;
      ASSERT_EQ(s->state(), state_of(c.start)) << label(c) << " cut at " << cut;
      s->receive(std::string_view(bytes).substr(cut));
      ASSERT_EQ(s->take_output(), expected) << label(c) << " cut at " << cut;
      ASSERT_EQ(s->take_events().size(), expected_events) << label(c) << " cut at " << cut;
    }
  }
}

/* Each key left out in turn, then all of them: without a required key the
 * command is refused and the session goes on; an optional one may go. */
TEST(PmiSessionCommands, MissingKeysAreRefusedOrOptional) {
  std::size_t refusals = 0;
  for (const CommandCase& c : command_cases()) {
    for (const auto& [key, value] : c.pairs) {
      const std::string bytes = wire(c.framing, c.command, without(c.pairs, key));
      const std::string what = "without " + key;
      if (is_required(c, key) || c.always_refused) {
        expect_refused(c, c.start, bytes, what);
        ++refusals;
      } else {
        expect_accepted(c, bytes, what);
      }
    }
    const std::string bare = wire(c.framing, c.command, {});
    if (!c.required.empty() || c.always_refused) {
      expect_refused(c, c.start, bare, "without any key");
    } else {
      expect_accepted(c, bare, "without any key");
    }
  }
  EXPECT_GE(refusals, 12u);
}

/* An empty value of a required key is as good as none. */
TEST(PmiSessionCommands, EmptyRequiredValuesAreRefused) {
  for (const CommandCase& c : command_cases()) {
    for (const std::string& key : c.required) {
      // An empty PUT value is a value (an empty string is a valid KVS value).
      if (key == "value") continue;
      Pairs pairs = c.pairs;
      for (auto& p : pairs) {
        if (p.first == key) p.second.clear();
      }
      expect_refused(c, c.start, wire(c.framing, c.command, pairs), "with an empty " + key);
    }
  }
  // The empty value that is accepted.
  SimpleSession s(identity(0));
  say(s, "cmd=init pmi_version=1 pmi_subversion=1\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=empty value=\n"), "cmd=put_result rc=0\n");
  EXPECT_EQ(say(s, "cmd=get kvsname=kvs_42 key=empty\n"), "cmd=get_result rc=0 value=\n");
}

/* Unknown keys are ignored (the session reads only the keys it knows):
 * the same answer, events and state as without them. */
TEST(PmiSessionCommands, UnknownKeysAreIgnored) {
  for (const CommandCase& c : command_cases()) {
    Pairs extra = c.pairs;
    extra.emplace_back("orca-unknown", "1");
    extra.emplace_back("x", "");
    auto plain = session_in(c.framing, c.start);
    auto with_extra = session_in(c.framing, c.start);
    plain->receive(wire(c.framing, c.command, c.pairs));
    with_extra->receive(wire(c.framing, c.command, extra));
    EXPECT_EQ(with_extra->take_output(), plain->take_output()) << label(c);
    const auto a = plain->take_events();
    const auto b = with_extra->take_events();
    ASSERT_EQ(a.size(), b.size()) << label(c);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].index(), b[i].index()) << label(c);
    EXPECT_EQ(with_extra->state(), plain->state()) << label(c);
    EXPECT_EQ(with_extra->in_barrier(), plain->in_barrier()) << label(c);
  }
}

/* The end of a session that got bytes it cannot frame: one error reply
 * with rc=-1, then ProtocolFailed, then nothing. */
void expect_protocol_failure(const CommandCase& c, const std::string& bytes, const std::string& what) {
  auto s = session_in(c.framing, c.start);
  s->receive(bytes);
  const std::string out = s->take_output();
  const auto got = replies(c.framing, out);
  ASSERT_EQ(got.size(), 1u) << label(c) << " " << what << ": '" << out << "'";
  EXPECT_EQ(got[0].command, c.framing == Framing::Pmi1 ? "error" : "error-response") << label(c) << " " << what;
  EXPECT_EQ(field(got[0], "rc"), "-1") << label(c) << " " << what;
  const auto events = s->take_events();
  ASSERT_EQ(events.size(), 1u) << label(c) << " " << what;
  const auto* failed = std::get_if<ProtocolFailed>(&events[0]);
  ASSERT_NE(failed, nullptr) << label(c) << " " << what;
  EXPECT_EQ(failed->why.topic(), "wire-malformed") << label(c) << " " << what;
  EXPECT_EQ(s->state(), SimpleSession::State::Failed) << label(c) << " " << what;
  // Everything after is ignored, the complete form included.
  s->receive(wire(c.framing, c.command, c.pairs));
  EXPECT_EQ(s->take_output(), "") << label(c) << " " << what;
  EXPECT_TRUE(s->take_events().empty()) << label(c) << " " << what;
}

/* simple_wire.h bounds every value to kMaxValueBytes, every key name to
 * kMaxKeyBytes, a command name to kMaxCommandBytes and a whole message
 * (kMaxPmi1LineBytes, kMaxPmi2BodyBytes): past any of them the stream
 * fails for good. At the value bound exactly, nothing fails. */
TEST(PmiSessionCommands, OversizedValuesFailTheStream) {
  const std::string over(kMaxValueBytes + 1, '7');
  const std::string at(kMaxValueBytes, '7');
  for (const CommandCase& c : command_cases()) {
    Pairs keys = c.pairs;
    keys.emplace_back("orca-unknown", "1");
    for (const auto& [key, value] : keys) {
      Pairs big = keys;
      Pairs bound = keys;
      for (auto& p : big) {
        if (p.first == key) p.second = over;
      }
      for (auto& p : bound) {
        if (p.first == key) p.second = at;
      }
      expect_protocol_failure(c, wire(c.framing, c.command, big), key + " over the value bound");
      auto s = session_in(c.framing, c.start);
      s->receive(wire(c.framing, c.command, bound));
      EXPECT_NE(s->state(), SimpleSession::State::Failed) << label(c) << " " << key << " at the value bound";
      for (const auto& e : s->take_events()) {
        EXPECT_FALSE(std::holds_alternative<ProtocolFailed>(e)) << label(c) << " " << key << " at the value bound";
      }
    }
    // A key name over its bound.
    Pairs long_key = c.pairs;
    long_key.emplace_back(std::string(kMaxKeyBytes + 1, 'k'), "1");
    expect_protocol_failure(c, wire(c.framing, c.command, long_key), "a key name over the bound");
    // The whole message over its bound, every value within its own.
    std::string message;
    if (c.framing == Framing::Pmi1) {
      message = "cmd=" + c.command;
      for (const auto& [k, v] : c.pairs) message += " " + k + "=" + v;
      for (int i = 0; message.size() < kMaxPmi1LineBytes; ++i) message += " pad" + std::to_string(i) + "=" + at;
      message += "\n";
    } else {
      std::string body = "cmd=" + c.command + ";";
      for (const auto& [k, v] : c.pairs) body += k + "=" + v + ";";
      for (int i = 0; body.size() <= kMaxPmi2BodyBytes; ++i) body += "pad" + std::to_string(i) + "=" + at + ";";
      std::string length = std::to_string(body.size());
      length.resize(kPmi2LengthBytes, ' ');
      message = length + body;
    }
    expect_protocol_failure(c, message, "the message over its bound");
  }
  // A command name over its bound.
  const std::string long_command(kMaxCommandBytes + 1, 'c');
  const CommandCase pmi1{.framing = Framing::Pmi1, .command = long_command, .pairs = {}, .required = {}, .response = ""};
  expect_protocol_failure(pmi1, "cmd=" + long_command + "\n", "a command name over the bound");
  const CommandCase pmi2{.framing = Framing::Pmi2, .command = long_command, .pairs = {}, .required = {}, .response = ""};
  expect_protocol_failure(pmi2, p2(long_command), "a command name over the bound");
}

/* The KVS key (the value of "key=") has the session's own, smaller bound
 * (keylen_max): over it, a refusal that keeps the session. */
TEST(PmiSessionCommands, KvsKeysOverKeylenMaxAreRefused) {
  const std::string over(kMaxKeyBytes + 1, 'k');
  for (const CommandCase& c : command_cases()) {
    if (c.command != "put" && c.command != "get" && c.command != "kvs-put" && c.command != "kvs-get") continue;
    Pairs pairs = c.pairs;
    for (auto& p : pairs) {
      if (p.first == "key") p.second = over;
    }
    expect_refused(c, c.start, wire(c.framing, c.command, pairs), "a key over keylen_max");
  }
}

/* Before init (and before fullinit, PMI-2 framing detected or after the
 * handshake) every command but the ones that initialize is refused. An
 * abort is the exception: a rank may end its job at any time. */
TEST(PmiSessionCommands, EveryCommandBeforeInitIsRefused) {
  for (const CommandCase& c : command_cases()) {
    if (c.start != Start::Ready) continue;
    const std::string bytes = wire(c.framing, c.command, c.pairs);
    std::vector<Start> before = {Start::Fresh};
    if (c.framing == Framing::Pmi2) before.push_back(Start::Handshake);
    for (const Start start : before) {
      const std::string what = start == Start::Fresh ? "before init" : "after the handshake, before fullinit";
      if (c.response.empty()) {
        auto s = session_in(c.framing, start);
        s->receive(bytes);
        EXPECT_EQ(s->take_output(), "") << label(c) << " " << what;
        auto events = s->take_events();
        ASSERT_EQ(events.size(), 1u) << label(c) << " " << what;
        EXPECT_TRUE(std::holds_alternative<AbortRequested>(events[0])) << label(c) << " " << what;
        continue;
      }
      expect_refused(c, start, bytes, what);
    }
  }
}

/* After finalize nothing is answered normally any more (abort aside). */
TEST(PmiSessionCommands, EveryCommandAfterFinalizeIsRefused) {
  for (const CommandCase& c : command_cases()) {
    const std::string bytes = wire(c.framing, c.command, c.pairs);
    if (c.response.empty()) {
      auto s = session_in(c.framing, Start::Finalized);
      s->receive(bytes);
      EXPECT_EQ(s->take_output(), "") << label(c);
      auto events = s->take_events();
      ASSERT_EQ(events.size(), 1u) << label(c);
      EXPECT_TRUE(std::holds_alternative<AbortRequested>(events[0])) << label(c);
      continue;
    }
    expect_refused(c, Start::Finalized, bytes, "after finalize");
  }
}

/* The initializing commands once initialized: refused, the session goes on. */
TEST(PmiSessionCommands, InitializingTwiceIsRefused) {
  for (const CommandCase& c : command_cases()) {
    if (c.start == Start::Ready) continue;
    expect_refused(c, Start::Ready, wire(c.framing, c.command, c.pairs), "once initialized");
  }
}

/* PMI-1 spawn, an "mcmd=spawn" block up to "endcmd": refused whatever it
 * holds, but only once the block is whole; bounded per line and in all. */
TEST(PmiSessionCommands, Pmi1SpawnBlock) {
  const std::string block = "mcmd=spawn\nnprocs=1\nexecname=/bin/true\ntotspawns=1\nspawnssofar=1\nendcmd\n";
  const std::string refusal = "cmd=spawn_result rc=-1 msg=spawn_is_not_supported\n";
  for (const Start start : {Start::Fresh, Start::Ready, Start::Finalized}) {
    auto s = session_in(Framing::Pmi1, start);
    EXPECT_EQ(say(*s, block), refusal);
    EXPECT_TRUE(s->take_events().empty());
    EXPECT_EQ(s->state(), state_of(start));
  }
  // Truncated: nothing until "endcmd" and its newline.
  for (std::size_t cut = 0; cut < block.size(); ++cut) {
    auto s = session_in(Framing::Pmi1, Start::Ready);
    ASSERT_EQ(say(*s, std::string_view(block).substr(0, cut)), "") << "cut at " << cut;
    ASSERT_EQ(say(*s, std::string_view(block).substr(cut)), refusal) << "cut at " << cut;
  }
  // Without its keys, and with unknown ones: the same refusal.
  for (const std::string& b :
       {std::string("mcmd=spawn\nendcmd\n"), std::string("mcmd=spawn\nnprocs=1\norca-unknown=x\nendcmd\n")}) {
    auto s = session_in(Framing::Pmi1, Start::Ready);
    EXPECT_EQ(say(*s, b), refusal) << b;
    EXPECT_TRUE(StillUsable(*s, Framing::Pmi1, Start::Ready));
  }
  // A line over the line bound, and a block over the block bound.
  const CommandCase spawn{.framing = Framing::Pmi1,
                          .command = "get_maxes",
                          .pairs = {},
                          .required = {},
                          .response = "maxes"};
  expect_protocol_failure(spawn, "mcmd=spawn\nexecname=" + std::string(kMaxPmi1LineBytes, 'x') + "\nendcmd\n",
                          "a spawn line over the bound");
  std::string huge = "mcmd=spawn\n";
  while (huge.size() <= kMaxPmi1SpawnBytes) huge += "arg=" + std::string(1000, 'a') + "\n";
  expect_protocol_failure(spawn, huge + "endcmd\n", "a spawn block over the bound");
}

}  // namespace
}  // namespace orca::pmi

namespace orca::pmi {
namespace {

/* What orcad holds for one rank is bounded: at most kMaxPutsPerBarrier
 * distinct keys between two barriers (a repeated key replaces its value);
 * the next barrier starts the count again. */
TEST(PmiSession, PutsBetweenBarriersAreBounded) {
  SimpleSession s(identity(0, 1));
  ASSERT_EQ(say(s, "cmd=init pmi_version=1 pmi_subversion=1\n"), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  for (std::size_t i = 0; i < SimpleSession::kMaxPutsPerBarrier; ++i) {
    ASSERT_EQ(say(s, "cmd=put kvsname=kvs_42 key=k" + std::to_string(i) + " value=v\n"), "cmd=put_result rc=0\n") << i;
  }
  const std::string refused = say(s, "cmd=put kvsname=kvs_42 key=one-more value=v\n");
  EXPECT_NE(refused.find("rc=-1"), std::string::npos) << refused;
  EXPECT_NE(refused.find("too_many_puts"), std::string::npos) << refused;
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=k0 value=again\n"), "cmd=put_result rc=0\n") << "a key already put";
  EXPECT_EQ(say(s, "cmd=barrier_in\n"), "");
  ASSERT_TRUE(Succeeded(s.barrier_done(Kvs{})));
  EXPECT_EQ(s.take_output(), "cmd=barrier_out rc=0\n");
  EXPECT_EQ(say(s, "cmd=put kvsname=kvs_42 key=one-more value=v\n"), "cmd=put_result rc=0\n");
}

}  // namespace
}  // namespace orca::pmi
