// Helpers every ec-bench benchmark uses: how bytes are reported, and reuse of prepared state.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

namespace ecbench {

// Reports `counted` bytes per operation as the benchmark's bytes_per_second (data bytes for
// encode, bytes rebuilt for decode and repair), and the bytes the operation reads as the
// counters bytes_read (per operation) and read_rate (per second).
inline void ReportBytes(benchmark::State& state, double counted, double read) {
  const double ops = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(ops * counted));
  state.counters["bytes_read"] = benchmark::Counter(read);
  state.counters["read_rate"] =
      benchmark::Counter(ops * read, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

// Google Benchmark calls a benchmark function several times (to size the iteration count, then
// once per repetition). The state a function prepares (span maps, gathered sub-chunks, checks)
// is kept for the next call of the same benchmark: `build(T*, std::string* error)` runs only
// when `name` differs from the previous call's. Returns nullptr (and sets *error) when build
// fails. One slot per T: a new name frees the previous state.
template <typename T, typename Build>
T* Reuse(const std::string& name, Build&& build, std::string* error = nullptr) {
  static std::string last_name;
  static std::unique_ptr<T> last;
  if (last && last_name == name) return last.get();
  last.reset();
  last_name.clear();
  auto fresh = std::make_unique<T>();
  std::string message;
  if (!build(fresh.get(), &message)) {
    if (error != nullptr) *error = message;
    return nullptr;
  }
  last = std::move(fresh);
  last_name = name;
  return last.get();
}

}  // namespace ecbench
