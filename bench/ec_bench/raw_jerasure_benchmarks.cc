// Plain jerasure (w=8), called as Ceph's jerasure plugin calls it. See raw_benchmarks.h.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <vector>

extern "C" {
#include <cauchy.h>
#include <jerasure.h>
#include <reed_sol.h>
}

#include "bench/ec_bench/bench_report.h"
#include "bench/ec_bench/raw_benchmarks.h"

namespace ecbench {

namespace {

constexpr int kW = 8;

struct FreeDeleter {
  void operator()(int* p) const { std::free(p); }
};
using IntArray = std::unique_ptr<int, FreeDeleter>;

struct ScheduleDeleter {
  void operator()(int** s) const { jerasure_free_schedule(s); }
};
using Schedule = std::unique_ptr<int*, ScheduleDeleter>;

enum class Kind { kMatrix, kSchedule };

// One jerasure code as Ceph's plugin prepares it: the coding matrix, and for Cauchy the
// bit-matrix and its smart schedule.
struct JerasureCode {
  std::string technique;
  int k = 0;
  int m = 0;
  int packetsize = 0;  // Cauchy only
  IntArray matrix;
  IntArray bitmatrix;
  Schedule schedule;

  Kind kind() const { return packetsize > 0 ? Kind::kSchedule : Kind::kMatrix; }
  std::string Key() const {
    return "raw-jerasure-" + technique + " k=" + std::to_string(k) + " m=" + std::to_string(m) +
           " ps=" + std::to_string(packetsize);
  }
  ec::Profile PluginProfile() const {
    ec::Profile p = {{"plugin", "jerasure"},
                     {"technique", technique},
                     {"k", std::to_string(k)},
                     {"m", std::to_string(m)}};
    if (packetsize > 0) p["packetsize"] = std::to_string(packetsize);
    return p;
  }

  void Encode(std::size_t len, char** data, char** coding) const {
    if (kind() == Kind::kMatrix)
      jerasure_matrix_encode(k, m, kW, matrix.get(), data, coding, static_cast<int>(len));
    else
      jerasure_schedule_encode(k, m, kW, schedule.get(), data, coding, static_cast<int>(len),
                               packetsize);
  }
  // Rebuilds the chunks listed in `erasures` (terminated by -1) in place.
  int Decode(std::size_t len, int* erasures, char** data, char** coding) const {
    if (kind() == Kind::kMatrix)
      return jerasure_matrix_decode(k, m, kW, matrix.get(), 1, erasures, data, coding,
                                    static_cast<int>(len));
    return jerasure_schedule_decode_lazy(k, m, kW, bitmatrix.get(), erasures, data, coding,
                                         static_cast<int>(len), packetsize, 1);
  }
};

std::unique_ptr<JerasureCode> MakeCode(const std::string& technique, int k, int m, int packetsize) {
  auto c = std::make_unique<JerasureCode>();
  c->technique = technique;
  c->k = k;
  c->m = m;
  if (technique == "reed_sol_van") {
    c->matrix.reset(reed_sol_vandermonde_coding_matrix(k, m, kW));
  } else if (technique == "reed_sol_r6_op") {
    c->matrix.reset(reed_sol_r6_coding_matrix(k, kW));
  } else {
    c->packetsize = packetsize;
    c->matrix.reset(technique == "cauchy_good" ? cauchy_good_general_coding_matrix(k, m, kW)
                                               : cauchy_original_coding_matrix(k, m, kW));
    if (c->matrix) {
      c->bitmatrix.reset(jerasure_matrix_to_bitmatrix(k, m, kW, c->matrix.get()));
      c->schedule.reset(jerasure_smart_bitmatrix_to_schedule(k, m, kW, c->bitmatrix.get()));
    }
  }
  return c;
}

// Pointers to the data and coding chunks of every stripe: stripe s, chunk i at [s * n + i].
std::vector<char*> JerasureChunkPointers(const Layout& layout) {
  Arena& arena = Arena::Data();
  std::vector<char*> p(layout.stripes * layout.chunks);
  for (std::size_t s = 0; s < layout.stripes; ++s)
    for (int i = 0; i < layout.chunks; ++i)
      p[s * layout.chunks + i] = reinterpret_cast<char*>(arena.at(layout.offset(s, i)));
  return p;
}

struct RawState {
  std::unique_ptr<JerasureCode> code;
  std::vector<char*> p;
  std::vector<int> erasures;  // -1 terminated
  double identical = -1;
};

bool Prepare(RawState* s, const std::string& technique, const Geometry& g, int packetsize,
             const Layout& layout, std::string* error) {
  s->code = MakeCode(technique, g.k, g.m, packetsize);
  if (!s->code->matrix || (packetsize > 0 && !s->code->schedule)) {
    *error = "jerasure cannot build " + technique + " for k=" + std::to_string(g.k) +
             " m=" + std::to_string(g.m);
    return false;
  }
  s->p = JerasureChunkPointers(layout);
  return true;
}

void EncodeAll(const RawState& s, const Layout& layout) {
  Arena& arena = Arena::Data();
  const std::string key = s.code->Key() + "|" + layout.Describe();
  if (arena.parity_owner() == key) return;
  for (std::size_t st = 0; st < layout.stripes; ++st) {
    char* const* chunks = s.p.data() + st * layout.chunks;
    s.code->Encode(layout.chunk, const_cast<char**>(chunks),
                   const_cast<char**>(chunks + s.code->k));
  }
  arena.set_parity_owner(key);
}

void RunEncode(benchmark::State& state, const std::string& technique, const Geometry& g,
               int packetsize, const Layout& layout, const std::string& name,
               const std::string& plugin_dir) {
  Arena& arena = Arena::Data();
  arena.Reserve(layout.bytes());
  std::string error;
  RawState* s = Reuse<RawState>(
      name,
      [&](RawState* fresh, std::string* err) {
        if (!Prepare(fresh, technique, g, packetsize, layout, err)) return false;
        fresh->code->Encode(layout.chunk, fresh->p.data(), fresh->p.data() + g.k);
        fresh->identical =
            PluginParityMatches(fresh->code->PluginProfile(), layout, g.k, plugin_dir);
        return true;
      },
      &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const int n = layout.chunks;
  std::size_t stripe = 0;
  for (auto _ : state) {
    char** chunks = s->p.data() + stripe * n;
    s->code->Encode(layout.chunk, chunks, chunks + g.k);
    if (++stripe == layout.stripes) stripe = 0;
  }
  const std::string key = s->code->Key() + "|" + layout.Describe();
  const bool covered = static_cast<std::size_t>(state.iterations()) >= layout.stripes;
  arena.set_parity_owner(arena.parity_owner() == key || covered ? key : "");
  const double data = static_cast<double>(g.k) * static_cast<double>(layout.chunk);
  ReportBytes(state, data, data);
  state.counters["plugin_bytes_identical"] = s->identical;
}

void RunDecode(benchmark::State& state, const std::string& technique, const Geometry& g,
               int packetsize, const Layout& layout, int erasures, const std::string& name) {
  Arena::Data().Reserve(layout.bytes());
  std::string error;
  RawState* s = Reuse<RawState>(
      name,
      [&](RawState* fresh, std::string* err) {
        if (!Prepare(fresh, technique, g, packetsize, layout, err)) return false;
        EncodeAll(*fresh, layout);
        std::vector<int> lost;
        for (int e = 0; e < erasures; ++e) lost.push_back(e);
        fresh->erasures = lost;
        fresh->erasures.push_back(-1);
        int r = 0;
        bool ok = CheckRebuild(
            layout, lost,
            [&] {
              r = fresh->code->Decode(layout.chunk, fresh->erasures.data(), fresh->p.data(),
                                      fresh->p.data() + g.k);
            },
            err);
        if (r != 0) *err = "jerasure decode returned " + std::to_string(r);
        return ok && r == 0;
      },
      &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const int n = layout.chunks;
  std::size_t stripe = 0;
  for (auto _ : state) {
    char** chunks = s->p.data() + stripe * n;
    s->code->Decode(layout.chunk, s->erasures.data(), chunks, chunks + g.k);
    if (++stripe == layout.stripes) stripe = 0;
  }
  // jerasure reads the first k surviving chunks.
  ReportBytes(state, static_cast<double>(erasures) * static_cast<double>(layout.chunk),
              static_cast<double>(g.k) * static_cast<double>(layout.chunk));
}

}  // namespace

void RegisterRawJerasureBenchmarks(const Geometry& g, std::size_t chunk, WorkingSet set,
                                   const std::string& plugin_dir) {
  const Layout layout = Layout::Make(g.k + g.m, chunk, set);
  const int packetsize = PacketSizeFor(kW, chunk);
  struct Technique {
    const char* name;
    bool schedule;
  };
  std::vector<Technique> techniques = {{"reed_sol_van", false}};
  if (g.m == 2) techniques.push_back({"reed_sol_r6_op", false});
  techniques.push_back({"cauchy_orig", true});
  techniques.push_back({"cauchy_good", true});

  for (const Technique& t : techniques) {
    const std::string technique = t.name;
    const int ps = t.schedule ? packetsize : 0;
    const std::string code_part = "/technique:" + technique +
                                  (t.schedule ? "/packetsize:" + std::to_string(ps) : "") +
                                  KMPart(g);
    const std::string encode =
        std::string(t.schedule ? "BM_RawJerasureScheduleEncode" : "BM_RawJerasureMatrixEncode") +
        code_part + ChunkSetPart(chunk, set);
    benchmark::RegisterBenchmark(
        encode.c_str(), [technique, g, ps, layout, encode, plugin_dir](benchmark::State& state) {
          RunEncode(state, technique, g, ps, layout, encode, plugin_dir);
        });
    // Ceph decodes reed_sol_r6_op with jerasure_matrix_decode too; reed_sol_van stands for both.
    if (technique == "reed_sol_r6_op") continue;
    for (int erasures = 1; erasures <= std::min(2, g.m); ++erasures) {
      const std::string decode = std::string(t.schedule ? "BM_RawJerasureScheduleDecodeLazy"
                                                        : "BM_RawJerasureMatrixDecode") +
                                 code_part + "/erasures:" + std::to_string(erasures) +
                                 ChunkSetPart(chunk, set);
      benchmark::RegisterBenchmark(
          decode.c_str(), [technique, g, ps, layout, erasures, decode](benchmark::State& state) {
            RunDecode(state, technique, g, ps, layout, erasures, decode);
          });
    }
  }
}

}  // namespace ecbench
