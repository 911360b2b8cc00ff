// ec-clay-bench: CLAY against isa Reed-Solomon of the same (k, m), side by side in one process.
//
//   encode  bytes counted = k x chunk_size per stripe (the data), for both codes;
//   repair  bytes counted = chunk_size per stripe (the bytes rebuilt): CLAY single-chunk repair
//           from d helpers x 1/q (ErasureCodeClay::repair) vs isa decode of one lost data chunk
//           from k chunks (decode_chunks).
// Each measurement alternates A and B, `reps` times, and reports the median and min-max of the
// throughput and the median of the per-rep ratios. Buffers are reused (warm caches); --cold uses
// a pool of stripes larger than the last-level cache.
//
// Usage: ec-clay-bench [--reps N] [--cold] [--json FILE] [--stripe-units 4k,64k,...] (--help)
// Plugins are loaded from $EC_PLUGIN_DIR (or the build's lib/ folder).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli.h"
#include "ec/plugin.h"
#include "plugins/clay/clay_code.h"
#include "plugins/clay/clay_plugin.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double median = 0, min = 0, max = 0;
};

Stats Summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// Seconds per call of `fn`, timed over enough calls to last ~40 ms.
double TimePerCall(const std::function<void(int)>& fn) {
  int calls = 1;
  for (;;) {
    auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) fn(i);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > 0.04) return s / calls;
    calls *= s < 0.004 ? 10 : 2;
  }
}

ec::ErasureCodeInterfaceRef Make(const std::string& plugin, ec::Profile profile) {
  ec::ErasureCodeInterfaceRef code;
  ec::Status s = ec::PluginRegistry::instance().factory(
      plugin, ec::PluginRegistry::default_directory(), profile, &code);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", plugin.c_str(), s.ToString().c_str());
    std::exit(1);
  }
  return code;
}

struct Stripe {
  std::vector<ec::Buffer> chunks;  // k+m
};

std::vector<Stripe> MakePool(const ec::ErasureCodeInterface& code, std::size_t chunk, int count,
                             std::mt19937_64& rng) {
  const unsigned n = code.get_chunk_count();
  const unsigned k = code.get_data_chunk_count();
  std::vector<Stripe> pool(count);
  for (auto& s : pool) {
    // Chunks spaced so that equal offsets do not alias in 4 KiB (as a real OSD's buffers).
    ec::Buffer all = ec::Buffer::Allocate((chunk + 320) * n, false);
    for (unsigned i = 0; i < n; ++i) s.chunks.push_back(all.Slice(i * (chunk + 320), chunk));
    for (unsigned i = 0; i < k; ++i)
      for (std::size_t b = 0; b < chunk; ++b) s.chunks[i].udata()[b] = static_cast<uint8_t>(rng());
    ec::ConstChunkSpans in;
    ec::ChunkSpans out;
    for (unsigned i = 0; i < k; ++i) in[i] = s.chunks[i].span();
    for (unsigned i = k; i < n; ++i) out[i] = s.chunks[i].span();
    if (!code.encode_chunks(in, out).ok()) std::exit(2);
  }
  return pool;
}

struct Row {
  std::string what;
  int k, m, d;
  unsigned stripe_unit;
  std::size_t chunk;
  Stats clay_gbs, isa_gbs, ratio;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool cold = false;
  std::string json;
  std::vector<unsigned> units = {4096, 16384, 65536, 262144};
  CLI::App app{
      "ec-clay-bench: CLAY against isa Reed-Solomon of the same (k, m), encode and repair"};
  ec::cli::AddVersionFlag(app, "ec-clay-bench");
  app.add_option("--reps", reps, "repetitions of each A/B pair")->check(CLI::Range(1, 100000));
  app.add_flag("--cold", cold, "use a pool of stripes larger than the last-level cache");
  app.add_option("--json", json, "write the results as JSON to this file");
  app.add_option("--stripe-units", units, "stripe units to measure (sizes such as 4k, 64k)")
      ->delimiter(',')
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(1u, 1u << 30));
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;
  ec::RegisterClayBuiltin();
  std::mt19937_64 rng(42);
  std::vector<Row> rows;
  const int codes[][3] = {{4, 2, 5}, {10, 4, 13}};
  for (const auto& kmd : codes) {
    const int k = kmd[0], m = kmd[1], d = kmd[2];
    auto clay_ref = Make(
        "clay", {{"k", std::to_string(k)}, {"m", std::to_string(m)}, {"d", std::to_string(d)}});
    auto* clay = dynamic_cast<ec::ErasureCodeClay*>(clay_ref.get());
    auto isa = Make("isa", {{"k", std::to_string(k)}, {"m", std::to_string(m)}});
    for (unsigned unit : units) {
      const std::size_t chunk = clay->get_chunk_size(k * unit);
      const int pool_size =
          cold ? std::max<int>(1, static_cast<int>((96u << 20) / (chunk * (k + m)))) : 1;
      auto clay_pool = MakePool(*clay, chunk, pool_size, rng);
      auto isa_pool = MakePool(*isa, chunk, pool_size, rng);
      // --- encode ---
      auto encode = [&](const ec::ErasureCodeInterface& code, std::vector<Stripe>& pool) {
        return [&, pool_size](int i) {
          Stripe& s = pool[i % pool_size];
          ec::ConstChunkSpans in;
          ec::ChunkSpans out;
          for (int j = 0; j < k; ++j) in[j] = s.chunks[j].span();
          for (int j = k; j < k + m; ++j) out[j] = s.chunks[j].span();
          if (!code.encode_chunks(in, out).ok()) std::exit(3);
        };
      };
      // --- repair: a lost data chunk (isa rebuilds it with a plain XOR of k chunks) and the
      // last parity chunk (isa solves it over GF(2^8)) ---
      for (const int lost : {0, k + m - 1}) {
        ec::ShardSet helpers_set;
        for (int j = 0; j < k + m; ++j)
          if (j != lost) helpers_set.insert(j);
        auto plan = clay->minimum_to_decode({lost}, helpers_set);
        auto program =
            clay->plan_repair(lost, {0, static_cast<int>(clay->get_sub_chunk_count())}, [&] {
              ec::ShardSet s;
              for (auto& [id, r] : *plan) s.insert(id);
              return s;
            }());
        if (!plan.ok() || !program.ok()) return 4;
        const std::size_t sub = chunk / clay->get_sub_chunk_count();
        // Helpers' sub-chunks as they arrive from the network: one compact buffer per helper.
        std::vector<std::vector<ec::Buffer>> sent(pool_size);
        for (int p = 0; p < pool_size; ++p) {
          for (auto& [id, ranges] : *plan) {
            int count = 0;
            for (auto& r : ranges) count += r.second;
            ec::Buffer b = ec::Buffer::Allocate(count * sub + 320, false);
            std::size_t off = 0;
            for (auto& r : ranges) {
              std::memcpy(b.data() + off, clay_pool[p].chunks[id].data() + r.first * sub,
                          r.second * sub);
              off += r.second * sub;
            }
            sent[p].push_back(b.Slice(0, count * sub));
          }
        }
        ec::Buffer out = ec::Buffer::Allocate(chunk, false);
        auto clay_repair = [&](int i) {
          const int p = i % pool_size;
          ec::ConstChunkSpans data;
          int h = 0;
          for (auto& [id, ranges] : *plan) data[id] = sent[p][h++].span();
          if (!clay->repair(**program, data, chunk, out.span()).ok()) std::exit(5);
        };
        auto isa_decode = [&](int i) {
          Stripe& s = isa_pool[i % pool_size];
          ec::ConstChunkSpans in;
          for (int j = 0; j < k + m && static_cast<int>(in.size()) < k; ++j)
            if (j != lost) in[j] = s.chunks[j].span();
          if (!isa->decode_chunks({lost}, in, {{lost, out.span()}}).ok()) std::exit(6);
        };
        // Correctness of what is timed.
        clay_repair(0);
        if (std::memcmp(out.data(), clay_pool[0].chunks[lost].data(), chunk) != 0) return 7;

        auto measure = [&](const char* what, std::function<void(int)> a, std::function<void(int)> b,
                           double bytes) {
          std::vector<double> ga, gb, ratio;
          for (int r = 0; r < reps; ++r) {
            double ta = TimePerCall(a), tb = TimePerCall(b);
            ga.push_back(bytes / ta / 1e9);
            gb.push_back(bytes / tb / 1e9);
            ratio.push_back(tb / ta);
          }
          Row row{what, k, m, d, unit, chunk, Summarise(ga), Summarise(gb), Summarise(ratio)};
          std::printf(
              "%-8s clay(%d,%d,%d) vs isa(%d,%d) unit %7u chunk %8zu: clay %6.2f GB/s "
              "[%5.2f-%5.2f]  isa %6.2f GB/s [%5.2f-%5.2f]  ratio %.2f [%.2f-%.2f]\n",
              what, k, m, d, k, m, unit, chunk, row.clay_gbs.median, row.clay_gbs.min,
              row.clay_gbs.max, row.isa_gbs.median, row.isa_gbs.min, row.isa_gbs.max,
              row.ratio.median, row.ratio.min, row.ratio.max);
          std::fflush(stdout);
          rows.push_back(row);
        };
        if (lost == 0)
          measure("encode", encode(*clay, clay_pool), encode(*isa, isa_pool),
                  static_cast<double>(k) * chunk);
        measure(lost == 0 ? "repair0" : "repairP", clay_repair, isa_decode,
                static_cast<double>(chunk));
      }
    }
  }
  if (!json.empty()) {
    FILE* f = std::fopen(json.c_str(), "w");
    if (f == nullptr) return 8;
    std::fprintf(f, "{\"cold\":%s,\"reps\":%d,\"results\":[\n", cold ? "true" : "false", reps);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f,
                   "  {\"what\":\"%s\",\"k\":%d,\"m\":%d,\"d\":%d,\"stripe_unit\":%u,"
                   "\"chunk\":%zu,\"bytes_counted\":\"%s\",\"clay_gbs\":%.3f,\"isa_gbs\":%.3f,"
                   "\"ratio\":%.3f,\"ratio_min\":%.3f,\"ratio_max\":%.3f}%s\n",
                   r.what.c_str(), r.k, r.m, r.d, r.stripe_unit, r.chunk,
                   r.what == "encode"
                       ? "k*chunk data"
                       : (r.what == "repair0" ? "chunk 0 rebuilt (isa: XOR)"
                                              : "last parity chunk rebuilt (isa: GF solve)"),
                   r.clay_gbs.median, r.isa_gbs.median, r.ratio.median, r.ratio.min, r.ratio.max,
                   i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
  return 0;
}
