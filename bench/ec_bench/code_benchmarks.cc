#include "bench/ec_bench/code_benchmarks.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <functional>
#include <memory>

#include "bench/ec_bench/bench_report.h"

namespace ecbench {

namespace {

// The data chunks lost in BM_Decode, and the chunk BM_Repair rebuilds.
constexpr int kLostChunk = 0;

struct EncodeState {
  std::vector<ec::ConstChunkSpans> in;
  std::vector<ec::ChunkSpans> out;
};

struct DecodeState {
  ec::ShardSet want;
  std::vector<ec::ConstChunkSpans> in;
  std::vector<ec::ChunkSpans> out;
  std::size_t bytes_read = 0;
};

struct RepairState {
  ec::ShardSet want;
  std::vector<ec::ChunkMap> helpers;
  std::size_t bytes_read = 0;
};

std::string CodeKey(const CodeCase& c, const Layout& layout) {
  return c.parity_id + "|" + layout.Describe();
}

std::string BenchName(const char* kind, const CodeCase& c, const std::string& extra,
                      WorkingSet set) {
  return std::string(kind) + "/" + c.name + extra + "/chunk:" + std::to_string(c.chunk) +
         "/set:" + WorkingSetName(set);
}

Layout LayoutOf(const CodeCase& c, WorkingSet set) {
  return Layout::Make(static_cast<int>(c.code->get_chunk_count()), c.chunk, set);
}

bool BuildDecodeState(const CodeCase& c, const Layout& layout, int erasures, DecodeState* s,
                      std::string* error) {
  if (!EnsureParity(c, layout, error)) return false;
  Arena& arena = Arena::Data();
  const int n = layout.chunks;
  for (int e = 0; e < erasures; ++e) s->want.insert(kLostChunk + e);
  // The first k surviving chunks, whole: a full decode, not a repair.
  ec::ShardSet sources;
  for (int id = 0; id < n && static_cast<int>(sources.size()) < c.k; ++id)
    if (!s->want.count(id)) sources.insert(id);
  if (c.spec.plugin == "lrc" || !c.code->minimum_to_decode(s->want, sources).ok()) {
    // Not every k chunks decode a locally repairable code (lrc), and these k chunks may not
    // rebuild the lost ones of a code that is not MDS (shec): read what the code's own plan over
    // all survivors names instead.
    ec::ShardSet survivors;
    for (int id = 0; id < n; ++id)
      if (!s->want.count(id)) survivors.insert(id);
    auto plan = c.code->minimum_to_decode(s->want, survivors);
    if (!plan.ok()) {
      *error = "minimum_to_decode: " + plan.status().message();
      return false;
    }
    sources.clear();
    for (const auto& [id, ranges] : *plan) sources.insert(id);
  }
  s->bytes_read = sources.size() * layout.chunk;
  s->in.resize(layout.stripes);
  s->out.resize(layout.stripes);
  for (std::size_t st = 0; st < layout.stripes; ++st) {
    for (int id : sources) s->in[st][id] = arena.span(layout.offset(st, id), layout.chunk);
    for (int id : s->want) s->out[st][id] = arena.span(layout.offset(st, id), layout.chunk);
  }
  // Check once: wipe the lost chunks of stripe 0, rebuild them, compare with the originals.
  Arena& scratch = Arena::Scratch();
  scratch.Reserve(s->want.size() * layout.stride);
  std::size_t slot = 0;
  for (int id : s->want) {
    std::memcpy(scratch.at(slot++ * layout.stride), arena.at(layout.offset(0, id)), layout.chunk);
    std::memset(arena.at(layout.offset(0, id)), 0xA5, layout.chunk);
  }
  ec::Status r = c.code->decode_chunks(s->want, s->in[0], s->out[0]);
  slot = 0;
  for (int id : s->want) {
    if (r.ok() && std::memcmp(scratch.at(slot * layout.stride), arena.at(layout.offset(0, id)),
                              layout.chunk) != 0) {
      r = ec::Status::DataLoss("decode_chunks rebuilt chunk " + std::to_string(id) + " wrongly");
    }
    ++slot;
  }
  if (!r.ok()) {
    arena.set_parity_owner("");
    *error = r.message();
    return false;
  }
  return true;
}

bool BuildRepairState(const CodeCase& c, const Layout& layout, RepairState* s, std::string* error) {
  if (!EnsureParity(c, layout, error)) return false;
  Arena& arena = Arena::Data();
  const int n = layout.chunks;
  s->want = {kLostChunk};
  ec::ShardSet available;
  for (int id = 0; id < n; ++id)
    if (id != kLostChunk) available.insert(id);
  auto plan = c.code->minimum_to_decode(s->want, available);
  if (!plan.ok()) {
    *error = "minimum_to_decode: " + plan.status().message();
    return false;
  }
  const int sub_chunks = static_cast<int>(c.code->get_sub_chunk_count());
  const std::size_t sub_size = layout.chunk / static_cast<std::size_t>(sub_chunks);
  std::size_t per_stripe = 0;
  bool partial = false;
  for (const auto& [id, ranges] : *plan) {
    std::size_t count = 0;
    for (const auto& [first, len] : ranges) count += static_cast<std::size_t>(len);
    per_stripe += count * sub_size;
    if (static_cast<int>(count) != sub_chunks) partial = true;
  }
  s->bytes_read = per_stripe;
  Arena& scratch = Arena::Scratch();
  if (partial) scratch.Reserve(per_stripe * layout.stripes);
  s->helpers.resize(layout.stripes);
  std::size_t cursor = 0;
  for (std::size_t st = 0; st < layout.stripes; ++st) {
    for (const auto& [id, ranges] : *plan) {
      const std::size_t base = layout.offset(st, id);
      if (!partial) {
        s->helpers[st][id] = arena.Slice(base, layout.chunk);
        continue;
      }
      // The planned sub-chunks of this helper, concatenated in range order.
      const std::size_t start = cursor;
      for (const auto& [first, len] : ranges) {
        const std::size_t bytes = static_cast<std::size_t>(len) * sub_size;
        std::memcpy(scratch.at(cursor), arena.at(base + static_cast<std::size_t>(first) * sub_size),
                    bytes);
        cursor += bytes;
      }
      s->helpers[st][id] = scratch.Slice(start, cursor - start);
    }
  }
  ec::ChunkMap decoded;
  ec::Status r = c.code->decode(s->want, s->helpers[0], &decoded, layout.chunk);
  if (r.ok()) {
    auto it = decoded.find(kLostChunk);
    if (it == decoded.end() || it->second.size() != layout.chunk ||
        std::memcmp(it->second.data(), arena.at(layout.offset(0, kLostChunk)), layout.chunk) != 0) {
      r = ec::Status::DataLoss("decode rebuilt chunk " + std::to_string(kLostChunk) + " wrongly");
    }
  }
  if (!r.ok()) {
    *error = r.message();
    return false;
  }
  return true;
}

void RunEncode(benchmark::State& state, const CodeCase& c, WorkingSet set,
               const std::string& name) {
  const Layout layout = LayoutOf(c, set);
  Arena& arena = Arena::Data();
  arena.Reserve(layout.bytes());
  EncodeState* s = Reuse<EncodeState>(name, [&](EncodeState* fresh, std::string*) {
    fresh->in.resize(layout.stripes);
    fresh->out.resize(layout.stripes);
    for (std::size_t st = 0; st < layout.stripes; ++st) {
      for (int id = 0; id < layout.chunks; ++id) {
        auto span = arena.span(layout.offset(st, id), layout.chunk);
        if (IsDataChunk(c, id))
          fresh->in[st][id] = span;
        else
          fresh->out[st][id] = span;
      }
    }
    return true;
  });
  std::size_t stripe = 0;
  for (auto _ : state) {
    ec::Status r = c.code->encode_chunks(s->in[stripe], s->out[stripe]);
    if (!r.ok()) {
      state.SkipWithError(("encode_chunks: " + r.message()).c_str());
      break;
    }
    if (++stripe == layout.stripes) stripe = 0;
  }
  const std::string key = CodeKey(c, layout);
  const bool covered = static_cast<std::size_t>(state.iterations()) >= layout.stripes;
  arena.set_parity_owner(arena.parity_owner() == key || covered ? key : "");
  const double data = static_cast<double>(c.k) * static_cast<double>(layout.chunk);
  ReportBytes(state, data, data);
}

void RunDecode(benchmark::State& state, const CodeCase& c, WorkingSet set, int erasures,
               const std::string& name) {
  const Layout layout = LayoutOf(c, set);
  Arena::Data().Reserve(layout.bytes());
  std::string error;
  DecodeState* s = Reuse<DecodeState>(
      name,
      [&](DecodeState* fresh, std::string* err) {
        return BuildDecodeState(c, layout, erasures, fresh, err);
      },
      &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::size_t stripe = 0;
  for (auto _ : state) {
    ec::Status r = c.code->decode_chunks(s->want, s->in[stripe], s->out[stripe]);
    if (!r.ok()) {
      state.SkipWithError(("decode_chunks: " + r.message()).c_str());
      break;
    }
    if (++stripe == layout.stripes) stripe = 0;
  }
  ReportBytes(state, static_cast<double>(erasures) * static_cast<double>(layout.chunk),
              static_cast<double>(s->bytes_read));
}

void RunRepair(benchmark::State& state, const CodeCase& c, WorkingSet set,
               const std::string& name) {
  const Layout layout = LayoutOf(c, set);
  Arena::Data().Reserve(layout.bytes());
  std::string error;
  RepairState* s = Reuse<RepairState>(
      name,
      [&](RepairState* fresh, std::string* err) { return BuildRepairState(c, layout, fresh, err); },
      &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::size_t stripe = 0;
  ec::ChunkMap decoded;
  for (auto _ : state) {
    ec::Status r = c.code->decode(s->want, s->helpers[stripe], &decoded, layout.chunk);
    if (!r.ok()) {
      state.SkipWithError(("decode: " + r.message()).c_str());
      break;
    }
    if (++stripe == layout.stripes) stripe = 0;
  }
  ReportBytes(state, static_cast<double>(layout.chunk), static_cast<double>(s->bytes_read));
  state.counters["helpers"] = static_cast<double>(s->helpers.front().size());
}

}  // namespace

bool EnsureParity(const CodeCase& c, const Layout& layout, std::string* error) {
  Arena& arena = Arena::Data();
  arena.Reserve(layout.bytes());
  const std::string key = CodeKey(c, layout);
  if (arena.parity_owner() == key) return true;
  arena.set_parity_owner("");
  for (std::size_t st = 0; st < layout.stripes; ++st) {
    ec::ConstChunkSpans in;
    ec::ChunkSpans out;
    for (int id = 0; id < layout.chunks; ++id) {
      auto span = arena.span(layout.offset(st, id), layout.chunk);
      if (IsDataChunk(c, id))
        in[id] = span;
      else
        out[id] = span;
    }
    ec::Status r = c.code->encode_chunks(in, out);
    if (!r.ok()) {
      *error = "encode_chunks: " + r.message();
      return false;
    }
  }
  arena.set_parity_owner(key);
  return true;
}

void RegisterCodeBenchmarks(const CodeCase& c, WorkingSet set) {
  const std::string encode = BenchName("BM_Encode", c, "", set);
  benchmark::RegisterBenchmark(encode.c_str(), [c, set, encode](benchmark::State& state) {
    RunEncode(state, c, set, encode);
  });
  for (int erasures = 1; erasures <= std::min(2, c.m); ++erasures) {
    const std::string decode =
        BenchName("BM_Decode", c, "/erasures:" + std::to_string(erasures), set);
    benchmark::RegisterBenchmark(decode.c_str(),
                                 [c, set, erasures, decode](benchmark::State& state) {
                                   RunDecode(state, c, set, erasures, decode);
                                 });
  }
  const std::string repair = BenchName("BM_Repair", c, "/lost:" + std::to_string(kLostChunk), set);
  benchmark::RegisterBenchmark(repair.c_str(), [c, set, repair](benchmark::State& state) {
    RunRepair(state, c, set, repair);
  });
}

}  // namespace ecbench
