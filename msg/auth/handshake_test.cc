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
  std::vector<std::byte> reply;
};

std::vector<std::byte> WithNonce(std::string_view text, const Nonce& n) {
  auto out = Bytes(text);
  out.insert(out.end(), n.begin(), n.end());
  return out;
}

Transcript RunHandshake() {
  Transcript t;
  t.client_nonce = *NewNonce();
  t.server_nonce = *NewNonce();
  t.hello = WithNonce("hello client.app ", t.client_nonce);
  t.reply = WithNonce("reply osd.0 ", t.server_nonce);
  return t;
}

TEST(Handshake, BothSidesProveTheKey) {
  const CryptoKey k = NewKey();
  const Transcript t = RunHandshake();
  // Each side computes the other's proof with its own copy of the key.
  const Proof pc = ClientProof(k, t.hello, t.reply);
  const Proof ps = ServerProof(k, t.hello, t.reply);
  EXPECT_EQ(ClientProof(k, t.hello, t.reply), pc);
  EXPECT_EQ(ServerProof(k, t.hello, t.reply), ps);
  // The proofs of the two directions differ (no reflection).
  EXPECT_NE(pc, ps);
}

// The checks the two sides make: the right proof only, never the other direction's, a proof of
// zeros (what a side whose library failed sends) or one made with another key.
TEST(Handshake, ChecksPassTheRightProofOnly) {
  const CryptoKey k = NewKey();
  const CryptoKey other = NewKey();
  const Transcript t = RunHandshake();
  EXPECT_TRUE(CheckClientProof(k, t.hello, t.reply, ClientProof(k, t.hello, t.reply)));
  EXPECT_TRUE(CheckServerProof(k, t.hello, t.reply, ServerProof(k, t.hello, t.reply)));
  EXPECT_FALSE(CheckClientProof(k, t.hello, t.reply, ServerProof(k, t.hello, t.reply)));
  EXPECT_FALSE(CheckServerProof(k, t.hello, t.reply, ClientProof(k, t.hello, t.reply)));
  EXPECT_FALSE(CheckClientProof(k, t.hello, t.reply, Proof{}));
  EXPECT_FALSE(CheckServerProof(k, t.hello, t.reply, Proof{}));
  EXPECT_FALSE(CheckClientProof(k, t.hello, t.reply, ClientProof(other, t.hello, t.reply)));
}

TEST(Handshake, AWrongKeyFailsEitherWay) {
  const CryptoKey right = NewKey();
  const CryptoKey wrong = NewKey();
  const Transcript t = RunHandshake();
  EXPECT_NE(ClientProof(wrong, t.hello, t.reply), ClientProof(right, t.hello, t.reply));
  EXPECT_NE(ServerProof(wrong, t.hello, t.reply), ServerProof(right, t.hello, t.reply));
}

TEST(Handshake, AReplayedHandshakeMeetsANewNonce) {
  const CryptoKey k = NewKey();
  const Transcript captured = RunHandshake();
  const Proof captured_pc = ClientProof(k, captured.hello, captured.reply);
  const Proof captured_ps = ServerProof(k, captured.hello, captured.reply);
  // The attacker replays the captured Hello and proof to a server: it answers with a fresh nonce,
  // and the proof it now expects is another.
  const Transcript to_server{captured.client_nonce, *NewNonce(), captured.hello,
                             WithNonce("reply osd.0 ", *NewNonce())};
  EXPECT_NE(ClientProof(k, to_server.hello, to_server.reply), captured_pc);
  // A captured HelloReply and server proof replayed to a client: its fresh nonce changes H.
  const Transcript to_client{*NewNonce(), captured.server_nonce,
                             WithNonce("hello client.app ", *NewNonce()), captured.reply};
  EXPECT_NE(ServerProof(k, to_client.hello, to_client.reply), captured_ps);
}

TEST(Handshake, SessionKeysDependOnBothNoncesAndDirection) {
  const CryptoKey k = NewKey();
  const Transcript t = RunHandshake();
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

// The wire format: frame n's MAC is GMAC under the direction key with nonce 0x00000000 | u64 n
// (little-endian) over fixed header | message header | payload (PROTOCOL.md, "Authentication").
TEST(FrameMac, IsGmacWithTheSequenceAsNonce) {
  std::array<std::byte, 32> key{};
  key[0] = std::byte{0x42};
  auto tx = NewMac(key);
  auto g = Gmac::Create(key);
  ASSERT_TRUE(g.ok());
  for (std::uint64_t n = 0; n < 3; ++n) {
    const Frame f = MakeFrame(*tx, "hdr", "payload " + std::to_string(n));
    std::array<std::byte, kGmacNonceLen> nonce{};
    nonce[4] = static_cast<std::byte>(n);
    g->Begin(nonce);
    g->Update(f.fixed);
    g->Update(f.header);
    g->Update(f.payload);
    EXPECT_EQ(g->Final(), f.tag) << "frame " << n;
  }
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
