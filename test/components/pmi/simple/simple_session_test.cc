// SimpleSession: one rank's PMI-1 / PMI-2 server state machine, driven by
// the bytes a client would send, with the test playing the job.
#include "pmi/simple/simple_session.h"

#include "lib/result_assertions.h"

#include <gtest/gtest.h>

#include <string>
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
  ASSERT_TRUE(Succeeded(s.barrier_done({})));
  EXPECT_EQ(s.take_output(), "cmd=barrier_out rc=0\n");
  EXPECT_FALSE(s.barrier_done({}).ok());
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
  EXPECT_EQ(say(s, "cmd=abort exitcode=7\ncmd=get_maxes\n"), "");
  auto events = s.take_events();
  ASSERT_EQ(events.size(), 1u);
  const auto* abort = std::get_if<AbortRequested>(&events[0]);
  ASSERT_NE(abort, nullptr);
  EXPECT_EQ(abort->exit_code, 7);
  EXPECT_EQ(s.state(), SimpleSession::State::Aborted);
  SimpleSession v2(identity(0));
  say(v2, p2("fullinit"));
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

}  // namespace
}  // namespace orca::pmi
