#include "bench/ec_benchmark/workloads.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "ec/plugin.h"

namespace ecbench {

namespace {

using Clock = std::chrono::steady_clock;

struct Bench {
  const BenchOptions& o;
  std::ostream& out;
  std::ostream& err;
  ec::ErasureCodeInterfaceRef code;
  unsigned n = 0;
};

// Ceph prints a utime_t difference: seconds, '.', six digits of microseconds.
void PrintResult(const Bench& b, Clock::duration elapsed) {
  const long long us = std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  char seconds[64];
  std::snprintf(seconds, sizeof seconds, "%lld.%06lld", us / 1000000, us % 1000000);
  const long long kb = static_cast<long long>(b.o.iterations) * (b.o.size / 1024);
  b.out << seconds << "\t" << kb << std::endl;
}

int Fail(const Bench& b, const std::string& what, const ec::Status& s) {
  b.err << what << ": " << s.message() << std::endl;
  return 1;
}

// "chunks  0   1  (2)  3  (X) is an erased chunk", Ceph's display_chunks.
void DisplayChunks(const Bench& b, const ec::ChunkMap& chunks) {
  b.out << "chunks ";
  for (unsigned chunk = 0; chunk < b.n; ++chunk) {
    if (chunks.count(static_cast<int>(chunk)) == 0)
      b.out << "(" << chunk << ")";
    else
      b.out << " " << chunk << " ";
    b.out << " ";
  }
  b.out << "(X) is an erased chunk" << std::endl;
}

int MakeCode(Bench* b) {
  ec::Profile profile = b->o.profile;
  ec::Status s =
      ec::PluginRegistry::instance().factory(b->o.plugin, b->o.plugin_dir, profile, &b->code);
  if (!s.ok()) {
    b->err << s.message() << std::endl;
    return 1;
  }
  const unsigned k = b->code->get_data_chunk_count();
  const unsigned m = b->code->get_chunk_count() - k;
  // lrc adds one local parity per group of l chunks (k=4 m=2 l=3: 2 + 2 coding chunks).
  int local = 0;
  if (auto l = profile.find("l"); b->o.plugin == "lrc" && l != profile.end()) {
    const int groups = std::atoi(l->second.c_str());
    if (groups > 0) local = (b->o.k + b->o.m) / groups;
  }
  if (k != static_cast<unsigned>(b->o.k) || m != static_cast<unsigned>(b->o.m + local)) {
    b->out << "parameter k is " << b->o.k << "/m is " << b->o.m << ". But data chunk count is " << k
           << "/parity chunk count is " << m << std::endl;
    return 1;
  }
  b->n = b->code->get_chunk_count();
  return 0;
}

ec::Status EncodeAll(const Bench& b, ec::ChunkMap* encoded) {
  ec::Buffer in = ec::Buffer::Allocate(static_cast<std::size_t>(b.o.size), false);
  std::memset(in.data(), 'X', in.size());
  ec::ShardSet all;
  for (unsigned i = 0; i < b.n; ++i) all.insert(static_cast<int>(i));
  return b.code->encode(all, in.span(), encoded);
}

int Encode(Bench& b) {
  ec::Buffer in = ec::Buffer::Allocate(static_cast<std::size_t>(b.o.size), false);
  std::memset(in.data(), 'X', in.size());
  ec::ShardSet all;
  for (unsigned i = 0; i < b.n; ++i) all.insert(static_cast<int>(i));
  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < b.o.iterations; ++i) {
    ec::ChunkMap encoded;
    ec::Status s = b.code->encode(all, in.span(), &encoded);
    if (!s.ok()) return Fail(b, "encode", s);
  }
  PrintResult(b, Clock::now() - begin);
  return 0;
}

// Ceph's decode_erasures: erase every combination of `want_erasures` more chunks from `chunks`
// (ids from `first` on), decode each and compare with `originals`.
int DecodeErasures(const Bench& b, const ec::ChunkMap& originals, const ec::ChunkMap& chunks,
                   unsigned first, unsigned want_erasures, std::size_t chunk_size) {
  if (want_erasures == 0) {
    if (b.o.verbose) DisplayChunks(b, chunks);
    ec::ShardSet want;
    for (unsigned chunk = 0; chunk < b.n; ++chunk)
      if (chunks.count(static_cast<int>(chunk)) == 0) want.insert(static_cast<int>(chunk));
    ec::ChunkMap decoded;
    ec::Status s = b.code->decode(want, chunks, &decoded, chunk_size);
    if (!s.ok()) return Fail(b, "decode", s);
    for (int chunk : want) {
      const ec::Buffer& original = originals.at(chunk);
      const ec::Buffer& rebuilt = decoded[chunk];
      if (original.size() != rebuilt.size()) {
        b.err << "chunk " << chunk << " length=" << original.size()
              << " decoded with length=" << rebuilt.size() << std::endl;
        return 1;
      }
      if (std::memcmp(original.data(), rebuilt.data(), original.size()) != 0) {
        b.err << "chunk " << chunk << " content and recovered content are different" << std::endl;
        return 1;
      }
    }
    return 0;
  }
  for (unsigned i = first; i < b.n; ++i) {
    ec::ChunkMap one_less = chunks;
    one_less.erase(static_cast<int>(i));
    if (int r = DecodeErasures(b, originals, one_less, i + 1, want_erasures - 1, chunk_size))
      return r;
  }
  return 0;
}

int CheckErased(const Bench& b) {
  for (int id : b.o.erased) {
    if (id < 0 || static_cast<unsigned>(id) >= b.n) {
      b.err << "ec-benchmark: --erased " << id << " is not a chunk of this code (0.." << b.n - 1
            << ")" << std::endl;
      return 1;
    }
  }
  return 0;
}

int Decode(Bench& b) {
  const unsigned coding = b.n - b.code->get_data_chunk_count();
  if (static_cast<unsigned>(b.o.erasures) > coding) {
    b.err << "ec-benchmark: cannot decode " << b.o.erasures << " erasures: the code has " << coding
          << " coding chunks" << std::endl;
    return 1;
  }
  if (b.o.erased.size() > coding) {
    b.err << "ec-benchmark: cannot decode " << b.o.erased.size() << " erased chunks: the code has "
          << coding << " coding chunks" << std::endl;
    return 1;
  }
  if (CheckErased(b)) return 1;
  ec::ChunkMap originals;
  ec::Status s = EncodeAll(b, &originals);
  if (!s.ok()) return Fail(b, "encode", s);
  const std::size_t chunk_size = originals.begin()->second.size();
  ec::ChunkMap encoded = originals;
  ec::ShardSet want_to_read;
  for (unsigned i = 0; i < b.n; ++i) want_to_read.insert(static_cast<int>(i));
  if (!b.o.erased.empty()) {
    for (int id : b.o.erased) encoded.erase(id);
    DisplayChunks(b, encoded);
  }

  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < b.o.iterations; ++i) {
    if (b.o.exhaustive) {
      if (int r = DecodeErasures(b, originals, encoded, 0, static_cast<unsigned>(b.o.erasures),
                                 chunk_size))
        return r;
    } else if (!b.o.erased.empty()) {
      ec::ChunkMap decoded;
      s = b.code->decode(want_to_read, encoded, &decoded, chunk_size);
      if (!s.ok()) return Fail(b, "decode", s);
    } else {
      ec::ChunkMap chunks = encoded;
      for (int j = 0; j < b.o.erasures; ++j) {
        int erasure;
        do {
          erasure = std::rand() % static_cast<int>(b.n);
        } while (chunks.count(erasure) == 0);
        chunks.erase(erasure);
      }
      ec::ChunkMap decoded;
      s = b.code->decode(want_to_read, chunks, &decoded, chunk_size);
      if (!s.ok()) return Fail(b, "decode", s);
    }
  }
  PrintResult(b, Clock::now() - begin);
  return 0;
}

// What one repair reads: the helpers minimum_to_decode names, each cut down to its planned
// sub-chunks (concatenated in range order, as a sub-chunk read returns them).
struct RepairInput {
  ec::ChunkMap helpers;
  std::size_t bytes_read = 0;
};

ec::Status PrepareRepair(const Bench& b, const ec::ChunkMap& encoded, int lost,
                         std::size_t chunk_size, RepairInput* input) {
  ec::ShardSet available;
  for (const auto& [id, buffer] : encoded)
    if (id != lost) available.insert(id);
  auto plan = b.code->minimum_to_decode({lost}, available);
  if (!plan.ok()) return plan.status();
  const std::size_t sub_chunks = b.code->get_sub_chunk_count();
  const std::size_t sub_size = chunk_size / sub_chunks;
  std::size_t total = 0;
  for (const auto& [id, ranges] : *plan)
    for (const auto& [first, count] : ranges) total += static_cast<std::size_t>(count) * sub_size;
  ec::Buffer gathered = ec::Buffer::Allocate(total, false);
  std::size_t cursor = 0;
  for (const auto& [id, ranges] : *plan) {
    const ec::Buffer& chunk = encoded.at(id);
    const std::size_t start = cursor;
    for (const auto& [first, count] : ranges) {
      const std::size_t bytes = static_cast<std::size_t>(count) * sub_size;
      std::memcpy(gathered.data() + cursor,
                  chunk.data() + static_cast<std::size_t>(first) * sub_size, bytes);
      cursor += bytes;
    }
    input->helpers[id] = gathered.Slice(start, cursor - start);
  }
  input->bytes_read = total;
  if (b.o.verbose) {
    b.out << "repair (" << lost << ") reads " << total << " bytes from " << plan->size()
          << " helpers:";
    for (const auto& [id, ranges] : *plan) {
      b.out << " " << id;
      for (const auto& [first, count] : ranges)
        b.out << "[" << first << "," << first + count << ")";
    }
    b.out << std::endl;
  }
  return ec::Status::OK();
}

int Repair(Bench& b) {
  if (b.o.erasures != 1) {
    b.err << "ec-benchmark: --workload repair rebuilds one chunk: --erasures must be 1"
          << std::endl;
    return 1;
  }
  if (b.o.erased.size() > 1) {
    b.err << "ec-benchmark: --workload repair rebuilds one chunk: give at most one --erased"
          << std::endl;
    return 1;
  }
  if (CheckErased(b)) return 1;
  ec::ChunkMap encoded;
  ec::Status s = EncodeAll(b, &encoded);
  if (!s.ok()) return Fail(b, "encode", s);
  const std::size_t chunk_size = encoded.begin()->second.size();
  std::vector<RepairInput> inputs(b.n);
  for (unsigned lost = 0; lost < b.n; ++lost) {
    const bool needed = b.o.erased.empty() || b.o.erased.front() == static_cast<int>(lost);
    if (!needed) continue;
    s = PrepareRepair(b, encoded, static_cast<int>(lost), chunk_size, &inputs[lost]);
    if (!s.ok()) return Fail(b, "minimum_to_decode", s);
  }

  auto repair = [&](int lost, bool check) -> int {
    ec::ChunkMap decoded;
    ec::Status r = b.code->decode({lost}, inputs[lost].helpers, &decoded, chunk_size);
    if (!r.ok()) return Fail(b, "decode", r);
    if (!check) return 0;
    const ec::Buffer& original = encoded.at(lost);
    const ec::Buffer& rebuilt = decoded[lost];
    if (rebuilt.size() != original.size() ||
        std::memcmp(original.data(), rebuilt.data(), original.size()) != 0) {
      b.err << "chunk " << lost << " content and recovered content are different" << std::endl;
      return 1;
    }
    return 0;
  };

  const Clock::time_point begin = Clock::now();
  for (int i = 0; i < b.o.iterations; ++i) {
    if (b.o.exhaustive) {
      for (unsigned lost = 0; lost < b.n; ++lost)
        if (int r = repair(static_cast<int>(lost), true)) return r;
    } else if (!b.o.erased.empty()) {
      if (int r = repair(b.o.erased.front(), false)) return r;
    } else {
      if (int r = repair(std::rand() % static_cast<int>(b.n), false)) return r;
    }
  }
  PrintResult(b, Clock::now() - begin);
  return 0;
}

}  // namespace

int RunWorkload(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  Bench b{options, out, err, nullptr, 0};
  if (int r = MakeCode(&b)) return r;
  if (options.workload == "encode") return Encode(b);
  if (options.workload == "decode") return Decode(b);
  return Repair(b);
}

}  // namespace ecbench
