// The handshake's proofs and the per-frame MAC as pure functions: every refusal of a wrong key, a
// replayed handshake, a replayed, reordered or changed frame.
#include "msg/auth/handshake.h"

#include <gtest/gtest.h>

#include <vector>

#include "msg/auth/key_server.h"

namespace ec::msg::auth {
namespace {

std::vector<std::byte> Bytes(std::string_view s) {
  const auto b = AsBytes(s);
  return {b.begin(), b.end()};
}

CryptoKey NewKey() {
  auto k = CryptoKey::Generate();
  EXPECT_TRUE(k.ok());
  return *k;
}

// A handshake as both sides compute it: the Hello and HelloReply bytes stand for the encoded
// messages, each with its side's nonce inside.
struct Transcript {
  Nonce client_nonce{};
  Nonce server_nonce{};
  std::vector<std::byte> hello;
  std::vector<std::byte> reply_prefix;
  std::vector<std::byte> reply;  // prefix | server proof
};

Transcript RunHandshake(const CryptoKey& server_key) {
  Transcript t;
  t.client_nonce = *NewNonce();
  t.server_nonce = *NewNonce();
  t.hello = Bytes("hello client.app ");
  t.hello.insert(t.hello.end(), t.client_nonce.begin(), t.client_nonce.end());
  t.reply_prefix = Bytes("reply osd.0 ");
  t.reply_prefix.insert(t.reply_prefix.end(), t.server_nonce.begin(), t.server_nonce.end());
  const Proof ps = ServerProof(server_key, t.hello, t.reply_prefix);
  t.reply = t.reply_prefix;
  t.reply.insert(t.reply.end(), ps.begin(), ps.end());
  return t;
}

Proof ServerProofIn(const Transcript& t) {
  Proof p;
  std::copy(t.reply.end() - kProofLen, t.reply.end(), p.begin());
  return p;
}

TEST(Handshake, BothSidesProveTheKey) {
  const CryptoKey k = NewKey();
  const Transcript t = RunHandshake(k);
  // The client checks the server's proof with its own copy of the key, and answers.
  EXPECT_EQ(ServerProof(k, t.hello, t.reply_prefix), ServerProofIn(t));
  const Proof pc = ClientProof(k, t.hello, t.reply);
  EXPECT_EQ(ClientProof(k, t.hello, t.reply), pc);
  // The proofs of the two directions differ (no reflection).
  EXPECT_NE(pc, ServerProofIn(t));
}

TEST(Handshake, AWrongKeyFailsEitherWay) {
  const CryptoKey right = NewKey();
  const CryptoKey wrong = NewKey();
  // A server without the client's key cannot prove it ...
  const Transcript t = RunHandshake(wrong);
  EXPECT_NE(ServerProof(right, t.hello, t.reply_prefix), ServerProofIn(t));
  // ... and a client with a wrong key makes a proof the server refuses.
  const Transcript u = RunHandshake(right);
  EXPECT_NE(ClientProof(wrong, u.hello, u.reply), ClientProof(right, u.hello, u.reply));
}

TEST(Handshake, AReplayedHandshakeMeetsANewNonce) {
  const CryptoKey k = NewKey();
  const Transcript captured = RunHandshake(k);
  const Proof captured_pc = ClientProof(k, captured.hello, captured.reply);
  // The attacker replays the captured Hello; the server answers with a fresh nonce, so the
  // captured client proof is not the one the server now expects.
  Transcript replay = captured;
  replay.server_nonce = *NewNonce();
  replay.reply_prefix = Bytes("reply osd.0 ");
  replay.reply_prefix.insert(replay.reply_prefix.end(), replay.server_nonce.begin(),
                             replay.server_nonce.end());
  const Proof ps = ServerProof(k, replay.hello, replay.reply_prefix);
  replay.reply = replay.reply_prefix;
  replay.reply.insert(replay.reply.end(), ps.begin(), ps.end());
  EXPECT_NE(ClientProof(k, replay.hello, replay.reply), captured_pc);
  // And a captured HelloReply replayed to a client does not prove anything for its new nonce.
  Transcript fresh = captured;
  fresh.client_nonce = *NewNonce();
  fresh.hello = Bytes("hello client.app ");
  fresh.hello.insert(fresh.hello.end(), fresh.client_nonce.begin(), fresh.client_nonce.end());
  EXPECT_NE(ServerProof(k, fresh.hello, captured.reply_prefix), ServerProofIn(captured));
}

TEST(Handshake, SessionKeysDependOnBothNoncesAndDirection) {
  const CryptoKey k = NewKey();
  const Transcript t = RunHandshake(k);
  auto a = DeriveSessionKeys(k, t.client_nonce, t.server_nonce, t.hello, t.reply);
  auto b = DeriveSessionKeys(k, t.client_nonce, t.server_nonce, t.hello, t.reply);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->client_to_server, b->client_to_server);
  EXPECT_NE(a->client_to_server, a->server_to_client);
  Nonce other = t.server_nonce;
  other[0] ^= std::byte{1};
  auto c = DeriveSessionKeys(k, t.client_nonce, other, t.hello, t.reply);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->client_to_server, a->client_to_server);
  auto d = DeriveSessionKeys(NewKey(), t.client_nonce, t.server_nonce, t.hello, t.reply);
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d->server_to_client, a->server_to_client);
}

std::unique_ptr<FrameMac> NewMac(std::span<const std::byte> key) {
  auto m = FrameMac::Create(key);
  EXPECT_TRUE(m.ok());
  return std::move(m).value();
}

struct Frame {
  std::vector<std::byte> fixed;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
  MacTag tag{};
};

Frame MakeFrame(FrameMac& signer, std::string_view header, std::string_view payload) {
  Frame f;
  f.fixed.assign(40, std::byte{0x11});
  f.header = Bytes(header);
  f.payload = Bytes(payload);
  std::vector<Buffer> bufs{Buffer::Copy(f.payload)};
  f.tag = signer.Sign(f.fixed, f.header, bufs);
  return f;
}

bool Check(FrameMac& verifier, const Frame& f) {
  return verifier.Verify(f.fixed, f.header, f.payload, f.tag);
}

TEST(FrameMac, InOrderFramesPass) {
  std::array<std::byte, 32> key{};
  key[3] = std::byte{9};
  auto tx = FrameMac::Create(key);
  auto rx = FrameMac::Create(key);
  ASSERT_TRUE(tx.ok() && rx.ok());
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(Check(**rx, MakeFrame(**tx, "hdr", "payload " + std::to_string(i))));
  }
  EXPECT_EQ((*tx)->sequence(), 5u);
  EXPECT_EQ((*rx)->sequence(), 5u);
}

TEST(FrameMac, ReplayedReorderedAndChangedFramesFail) {
  std::array<std::byte, 32> key{};
  auto tx = NewMac(key);
  auto rx = NewMac(key);
  const Frame first = MakeFrame(*tx, "h1", "p1");
  const Frame second = MakeFrame(*tx, "h2", "p2");
  // Reordered: the second frame arrives first.
  EXPECT_FALSE(Check(*rx, second));
  // Replayed: the first frame again, one sequence later.
  auto rx2 = NewMac(key);
  EXPECT_TRUE(Check(*rx2, first));
  EXPECT_FALSE(Check(*rx2, first));
  // Every bit of the fixed header, message header, payload and MAC matters.
  const auto flipped_fails = [&](auto change) {
    auto tx3 = NewMac(key);
    auto rx3 = NewMac(key);
    Frame f = MakeFrame(*tx3, "header", "payload");
    change(f);
    return !Check(*rx3, f);
  };
  for (std::size_t bit = 0; bit < 8; ++bit) {
    const auto mask = static_cast<std::byte>(1u << bit);
    EXPECT_TRUE(flipped_fails([&](Frame& f) { f.fixed[7] ^= mask; }));
    EXPECT_TRUE(flipped_fails([&](Frame& f) { f.header[2] ^= mask; }));
    EXPECT_TRUE(flipped_fails([&](Frame& f) { f.payload[6] ^= mask; }));
    EXPECT_TRUE(flipped_fails([&](Frame& f) { f.tag[15] ^= mask; }));
  }
  // A frame of the other direction (another key) fails.
  std::array<std::byte, 32> other{};
  other[0] = std::byte{1};
  auto wrong = NewMac(other);
  auto rx4 = NewMac(key);
  EXPECT_FALSE(Check(*rx4, MakeFrame(*wrong, "h", "p")));
}

TEST(KeyringKeyServer, FindsPeersWithParsedCaps) {
  Keyring ring;
  ring.entries["client.app"] = KeyringEntry{NewKey(), {{"osd", "allow r pool=a"}}};
  ring.entries["client.bare"] = KeyringEntry{NewKey(), {}};
  ring.entries["mon."] = KeyringEntry{NewKey(), {}};
  auto ks = KeyringKeyServer::Create(ring);
  ASSERT_TRUE(ks.ok());
  auto app = (*ks)->Find("client.app");
  ASSERT_TRUE(app.has_value());
  ASSERT_NE(app->osd_caps, nullptr);
  EXPECT_TRUE(app->osd_caps->Allows("a", kCapRead));
  EXPECT_EQ((*ks)->Find("client.bare")->osd_caps, nullptr);
  EXPECT_FALSE((*ks)->Find("mon.").has_value());
  EXPECT_FALSE((*ks)->Find("client.none").has_value());
  ring.entries["client.bad"] = KeyringEntry{NewKey(), {{"osd", "allow q"}}};
  EXPECT_EQ(KeyringKeyServer::Create(ring).status().code(), EINVAL);
  EXPECT_TRUE(ParseAuthMode("cephx").ok());
  EXPECT_EQ(*ParseAuthMode("none"), AuthMode::kNone);
  EXPECT_EQ(ParseAuthMode("krb").status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::msg::auth
