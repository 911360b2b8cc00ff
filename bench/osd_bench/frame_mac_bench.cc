// ec-frame-mac-bench: what authentication adds to one frame (issue 32), apart from everything else
// the messenger does: msg/auth/handshake.h FrameMac signing and checking a frame of a 40-byte
// fixed header, a 64-byte message header and a payload of the benchmark's size (GMAC on OpenSSL's
// libcrypto, one keyed context reused per frame), beside the two alternatives it was chosen over,
// on the same frames: protocol version 7's HMAC-SHA256 (BM_HmacFrame: one HMAC over the sequence
// and the frame, as a sign or a check computes it), and TLS 1.3 carrying the frame (BM_TlsFrame:
// one SSL_write of header and payload and the SSL_read of it on the other end, AES-256-GCM, over
// an in-memory BIO pair, so both ends' record work and copies and no socket); and, for scale, the
// crc32c of the same payload that every frame carries anyway. Bytes counted: the payload's.
//
//   build/bin/ec-frame-mac-bench --benchmark_min_time=0.5
//
// A 4 KiB operation costs one signed and checked 4 KiB frame plus one small frame the other way:
// BM_FrameMacSign/4096 + BM_FrameMacVerify/4096 + BM_FrameMacSign/0 + BM_FrameMacVerify/0, against
// 2 x (BM_HmacFrame/4096 + BM_HmacFrame/0) with HMAC, BM_TlsFrame/4096 + BM_TlsFrame/0 with TLS.
#include <benchmark/benchmark.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/crc32c.h"
#include "msg/auth/crypto.h"
#include "msg/auth/handshake.h"

namespace {

using ec::msg::auth::FrameMac;

std::unique_ptr<FrameMac> MacForBench() {
  std::array<std::byte, 32> key{};
  key[0] = std::byte{1};
  return std::move(FrameMac::Create(key)).value();
}

void BM_FrameMacSign(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  auto mac = MacForBench();
  const std::vector<std::byte> fixed(40), header(64);
  std::vector<ec::Buffer> payload;
  if (size > 0) payload.push_back(ec::Buffer::Allocate(size));
  for (auto _ : state) benchmark::DoNotOptimize(mac->Sign(fixed, header, payload));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

void BM_FrameMacVerify(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  auto mac = MacForBench();
  const std::vector<std::byte> fixed(40), header(64), payload(size);
  const std::array<std::byte, 16> tag{};
  for (auto _ : state) benchmark::DoNotOptimize(mac->Verify(fixed, header, payload, tag));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

// Protocol version 7's frame MAC: HMAC-SHA256(key, u64 seq | fixed | header | payload).
void BM_HmacFrame(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  std::array<std::byte, 32> key{};
  key[0] = std::byte{1};
  auto hmac = std::move(ec::msg::auth::HmacSha256::Create(key)).value();
  const std::vector<std::byte> seq(8), fixed(40), header(64), payload(size);
  for (auto _ : state) {
    hmac.Update(seq);
    hmac.Update(fixed);
    hmac.Update(header);
    hmac.Update(payload);
    benchmark::DoNotOptimize(hmac.Final());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "ec-frame-mac-bench: %s failed\n", what);
  std::exit(1);
}

// A TLS 1.3 session (AES-256-GCM) between two SSL objects over a BIO pair, with a throw-away
// self-signed P-256 certificate: what the stream alternative to the per-frame MAC would cost.
struct TlsPair {
  SSL_CTX* server_ctx = nullptr;
  SSL_CTX* client_ctx = nullptr;
  SSL* server = nullptr;
  SSL* client = nullptr;

  TlsPair() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    if (key == nullptr || cert == nullptr) Die("key generation");
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("bench"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    if (X509_sign(cert, key, EVP_sha256()) == 0) Die("X509_sign");
    server_ctx = SSL_CTX_new(TLS_server_method());
    client_ctx = SSL_CTX_new(TLS_client_method());
    if (server_ctx == nullptr || client_ctx == nullptr) Die("SSL_CTX_new");
    for (SSL_CTX* c : {server_ctx, client_ctx}) {
      SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION);
      SSL_CTX_set_ciphersuites(c, "TLS_AES_256_GCM_SHA384");
    }
    if (SSL_CTX_use_certificate(server_ctx, cert) != 1 ||
        SSL_CTX_use_PrivateKey(server_ctx, key) != 1) {
      Die("SSL_CTX_use_certificate");
    }
    X509_free(cert);
    EVP_PKEY_free(key);
    server = SSL_new(server_ctx);
    client = SSL_new(client_ctx);
    BIO* a = nullptr;
    BIO* b = nullptr;
    if (server == nullptr || client == nullptr || BIO_new_bio_pair(&a, 1 << 18, &b, 1 << 18) != 1)
      Die("SSL_new");
    SSL_set_bio(client, a, a);
    SSL_set_bio(server, b, b);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    for (int i = 0; i < 100; ++i) {
      const int c = SSL_do_handshake(client);
      const int s = SSL_do_handshake(server);
      if (c == 1 && s == 1) return;
    }
    Die("the TLS handshake");
  }
  ~TlsPair() {
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(client_ctx);
    SSL_CTX_free(server_ctx);
  }
};

void BM_TlsFrame(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  TlsPair tls;
  const std::vector<std::byte> frame(40 + 64 + size);
  std::vector<std::byte> in(frame.size());
  for (auto _ : state) {
    if (SSL_write(tls.client, frame.data(), static_cast<int>(frame.size())) !=
        static_cast<int>(frame.size())) {
      Die("SSL_write");
    }
    std::size_t got = 0;
    while (got < in.size()) {
      const int n = SSL_read(tls.server, in.data() + got, static_cast<int>(in.size() - got));
      if (n <= 0) Die("SSL_read");
      got += static_cast<std::size_t>(n);
    }
    benchmark::DoNotOptimize(in.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * size));
}

void BM_Crc32c(benchmark::State& state) {
  const std::vector<std::byte> payload(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ec::Crc32c(payload));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * payload.size()));
}

BENCHMARK(BM_FrameMacSign)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_FrameMacVerify)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_HmacFrame)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_TlsFrame)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_Crc32c)->Arg(4096)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();
