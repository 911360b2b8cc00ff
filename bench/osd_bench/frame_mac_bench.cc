// ec-frame-mac-bench: what authentication adds to one frame (issue 32), apart from everything else
// the messenger does: msg/auth/handshake.h FrameMac signing and checking a frame of a 40-byte
// fixed header, a 64-byte message header and a payload of the benchmark's size (HMAC-SHA256 on
// OpenSSL's libcrypto, one keyed context reused per frame), and, for scale, the crc32c of the same
// payload that every frame carries anyway. Bytes counted: the payload's.
//
//   build/bin/ec-frame-mac-bench --benchmark_min_time=0.5
//
// A 4 KiB operation costs one signed and checked 4 KiB frame plus one small frame the other way:
// BM_FrameMacSign/4096 + BM_FrameMacVerify/4096 + BM_FrameMacSign/0 + BM_FrameMacVerify/0.
#include <benchmark/benchmark.h>

#include <vector>

#include "common/crc32c.h"
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

void BM_Crc32c(benchmark::State& state) {
  const std::vector<std::byte> payload(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ec::Crc32c(payload));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * payload.size()));
}

BENCHMARK(BM_FrameMacSign)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_FrameMacVerify)->Arg(0)->Arg(4096)->Arg(65536);
BENCHMARK(BM_Crc32c)->Arg(4096)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();
