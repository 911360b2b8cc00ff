// Plain ISA-L: what the isa plugin (and jerasure reed_sol_van w=8, which runs on ISA-L) is
// measured against. See raw_benchmarks.h.
#include <benchmark/benchmark.h>
#include <isa-l/erasure_code.h>

#include <cstdint>
#include <vector>

#include "bench/ec_bench/bench_report.h"
#include "bench/ec_bench/raw_benchmarks.h"

namespace ecbench {

namespace {

using Bytes = std::vector<std::uint8_t>;

struct IsaMatrix {
  int k = 0;
  int m = 0;
  Bytes matrix;  // (k+m) x k, identity on top
  Bytes tables;  // ec_init_tables of the m parity rows
};

IsaMatrix MakeIsaMatrix(int k, int m) {
  IsaMatrix x;
  x.k = k;
  x.m = m;
  x.matrix.resize(static_cast<std::size_t>(k + m) * k);
  gf_gen_rs_matrix(x.matrix.data(), k + m, k);
  x.tables.resize(static_cast<std::size_t>(k) * m * 32);
  ec_init_tables(k, m, x.matrix.data() + k * k, x.tables.data());
  return x;
}

// Per-stripe chunk pointers of a layout: stripe s, chunk i at [s * n + i].
std::vector<std::uint8_t*> IsaChunkPointers(const Layout& layout) {
  Arena& arena = Arena::Data();
  std::vector<std::uint8_t*> p(layout.stripes * layout.chunks);
  for (std::size_t s = 0; s < layout.stripes; ++s)
    for (int i = 0; i < layout.chunks; ++i)
      p[s * layout.chunks + i] = reinterpret_cast<std::uint8_t*>(arena.at(layout.offset(s, i)));
  return p;
}

std::string RawKey(const IsaMatrix& x, const Layout& layout) {
  return "raw-isa-rs k=" + std::to_string(x.k) + " m=" + std::to_string(x.m) + "|" +
         layout.Describe();
}

void EncodeAll(IsaMatrix& x, const Layout& layout, std::vector<std::uint8_t*>& p) {
  Arena& arena = Arena::Data();
  if (arena.parity_owner() == RawKey(x, layout)) return;
  for (std::size_t s = 0; s < layout.stripes; ++s) {
    std::uint8_t** stripe = p.data() + s * layout.chunks;
    ec_encode_data(static_cast<int>(layout.chunk), x.k, x.m, x.tables.data(), stripe, stripe + x.k);
  }
  arena.set_parity_owner(RawKey(x, layout));
}

// The decode of Ceph's isa plugin and of ISA-L's examples: invert the k surviving rows, take
// the inverse's rows for lost data, multiply encode rows by it for lost parity.
struct IsaDecoder {
  int k = 0;
  std::vector<int> lost;
  std::vector<int> sources;  // first k surviving chunk ids
  Bytes rows;                // k x k scratch
  Bytes inverse;             // k x k
  Bytes decode_rows;         // lost x k
  Bytes tables;              // 32 x k x lost

  IsaDecoder(int k_, int m, std::vector<int> lost_) : k(k_), lost(std::move(lost_)) {
    for (int id = 0; id < k + m && static_cast<int>(sources.size()) < k; ++id) {
      bool is_lost = false;
      for (int l : lost) is_lost |= l == id;
      if (!is_lost) sources.push_back(id);
    }
    rows.resize(static_cast<std::size_t>(k) * k);
    inverse.resize(rows.size());
    decode_rows.resize(lost.size() * k);
    tables.resize(decode_rows.size() * 32);
  }

  bool BuildTables(const Bytes& matrix) {
    for (int r = 0; r < k; ++r)
      for (int c = 0; c < k; ++c) rows[r * k + c] = matrix[sources[r] * k + c];
    if (gf_invert_matrix(rows.data(), inverse.data(), k) != 0) return false;
    for (std::size_t t = 0; t < lost.size(); ++t) {
      std::uint8_t* out = decode_rows.data() + t * k;
      if (lost[t] < k) {
        for (int c = 0; c < k; ++c) out[c] = inverse[lost[t] * k + c];
        continue;
      }
      for (int c = 0; c < k; ++c) {
        std::uint8_t v = 0;
        for (int j = 0; j < k; ++j) v ^= gf_mul(matrix[lost[t] * k + j], inverse[j * k + c]);
        out[c] = v;
      }
    }
    ec_init_tables(k, static_cast<int>(lost.size()), decode_rows.data(), tables.data());
    return true;
  }

  void Run(std::size_t len, std::uint8_t** stripe, std::uint8_t** src, std::uint8_t** dst) {
    for (int r = 0; r < k; ++r) src[r] = stripe[sources[r]];
    for (std::size_t t = 0; t < lost.size(); ++t) dst[t] = stripe[lost[t]];
    ec_encode_data(static_cast<int>(len), k, static_cast<int>(lost.size()), tables.data(), src,
                   dst);
  }
};

struct IsaEncodeState {
  IsaMatrix x;
  std::vector<std::uint8_t*> p;
  double identical = -1;
};

struct IsaDecodeState {
  IsaMatrix x;
  std::vector<std::uint8_t*> p;
  std::unique_ptr<IsaDecoder> decoder;
};

void RunEncode(benchmark::State& state, const Geometry& g, const Layout& layout,
               const std::string& name, const std::string& plugin_dir) {
  Arena& arena = Arena::Data();
  arena.Reserve(layout.bytes());
  IsaEncodeState* s = Reuse<IsaEncodeState>(name, [&](IsaEncodeState* fresh, std::string*) {
    fresh->x = MakeIsaMatrix(g.k, g.m);
    fresh->p = IsaChunkPointers(layout);
    std::uint8_t** stripe = fresh->p.data();
    ec_encode_data(static_cast<int>(layout.chunk), g.k, g.m, fresh->x.tables.data(), stripe,
                   stripe + g.k);
    const ec::Profile isa = {{"plugin", "isa"},
                             {"technique", "reed_sol_van"},
                             {"k", std::to_string(g.k)},
                             {"m", std::to_string(g.m)}};
    fresh->identical = PluginParityMatches(isa, layout, g.k, plugin_dir);
    return true;
  });
  const int n = layout.chunks;
  std::size_t stripe = 0;
  for (auto _ : state) {
    std::uint8_t** chunks = s->p.data() + stripe * n;
    ec_encode_data(static_cast<int>(layout.chunk), g.k, g.m, s->x.tables.data(), chunks,
                   chunks + g.k);
    if (++stripe == layout.stripes) stripe = 0;
  }
  const std::string key = RawKey(s->x, layout);
  const bool covered = static_cast<std::size_t>(state.iterations()) >= layout.stripes;
  arena.set_parity_owner(arena.parity_owner() == key || covered ? key : "");
  const double data = static_cast<double>(g.k) * static_cast<double>(layout.chunk);
  ReportBytes(state, data, data);
  state.counters["plugin_bytes_identical"] = s->identical;
}

void RunDecode(benchmark::State& state, const Geometry& g, const Layout& layout, int erasures,
               bool cached, const std::string& name) {
  Arena::Data().Reserve(layout.bytes());
  std::string error;
  IsaDecodeState* s = Reuse<IsaDecodeState>(
      name,
      [&](IsaDecodeState* fresh, std::string* err) {
        fresh->x = MakeIsaMatrix(g.k, g.m);
        fresh->p = IsaChunkPointers(layout);
        EncodeAll(fresh->x, layout, fresh->p);
        std::vector<int> lost;
        for (int e = 0; e < erasures; ++e) lost.push_back(e);
        fresh->decoder = std::make_unique<IsaDecoder>(g.k, g.m, lost);
        if (!fresh->decoder->BuildTables(fresh->x.matrix)) {
          *err = "gf_invert_matrix: singular";
          return false;
        }
        std::vector<std::uint8_t*> src(g.k), dst(erasures);
        return CheckRebuild(
            layout, lost,
            [&] { fresh->decoder->Run(layout.chunk, fresh->p.data(), src.data(), dst.data()); },
            err);
      },
      &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<std::uint8_t*> src(g.k), dst(erasures);
  const int n = layout.chunks;
  std::size_t stripe = 0;
  for (auto _ : state) {
    if (!cached) s->decoder->BuildTables(s->x.matrix);
    s->decoder->Run(layout.chunk, s->p.data() + stripe * n, src.data(), dst.data());
    if (++stripe == layout.stripes) stripe = 0;
  }
  ReportBytes(state, static_cast<double>(erasures) * static_cast<double>(layout.chunk),
              static_cast<double>(g.k) * static_cast<double>(layout.chunk));
}

}  // namespace

void RegisterRawIsaBenchmarks(const Geometry& g, std::size_t chunk, WorkingSet set,
                              const std::string& plugin_dir) {
  const Layout layout = Layout::Make(g.k + g.m, chunk, set);
  const std::string encode = "BM_RawIsaEncode" + KMPart(g) + ChunkSetPart(chunk, set);
  benchmark::RegisterBenchmark(encode.c_str(),
                               [g, layout, encode, plugin_dir](benchmark::State& state) {
                                 RunEncode(state, g, layout, encode, plugin_dir);
                               });
  for (int erasures = 1; erasures <= std::min(2, g.m); ++erasures) {
    for (bool cached : {false, true}) {
      const std::string name = std::string("BM_RawIsaDecode/tables:") +
                               (cached ? "cached" : "per_call") + KMPart(g) +
                               "/erasures:" + std::to_string(erasures) + ChunkSetPart(chunk, set);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [g, layout, erasures, cached, name](benchmark::State& state) {
                                     RunDecode(state, g, layout, erasures, cached, name);
                                   });
    }
  }
}

}  // namespace ecbench
