// A model-checked object workload for the cluster tests (tests only): a model of a pool's objects
// that allows for operations whose outcome is unknown, and a random workload of full writes, range
// overwrites, appends, reads and removes through the client library whose every read is compared
// with the model. Used by pool_io_test (kills) and the thrasher (tests/thrash).
//
//   ObjectModel model;                      one per worker thread: its objects are its own
//   WorkloadCounts n;                       shared by the workers (atomic counters)
//   RunWorkload(io, {"w0-", 60}, seed, stop, model, n);     until `stop`
//   VerifyAll(io, model, n);                every object read whole at the end
//
// An operation that fails (the client gave up) may or may not have been applied: the object must
// then be entirely the old or entirely the new content, which the next whole read settles. A read
// that returns an earlier acknowledged content counts as a lost write; any other difference is a
// mismatch. Both are failures for the caller to assert on; read errors (the client gave up while
// PGs peered) are counted, not failures by themselves.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/client/rados.h"
#include "common/status.h"

namespace ectest {

class ObjectModel {
 public:
  using Content = std::optional<std::vector<std::byte>>;  // nullopt: no object
  enum class Verdict { kMatch, kLost, kWrong };

  // `after` the operation on `name`; ok: acknowledged (now certain), else a second candidate.
  void Done(const std::string& name, const Content& after, bool ok);
  // The content when it is certain (the first candidate otherwise: settle with a read first).
  const Content& Known(const std::string& name);
  // False while a failed operation's outcome is unknown.
  bool Certain(const std::string& name);
  // A whole read (nullopt: ENOENT). kMatch if it is one of the candidates (it becomes the content);
  // kLost if it is an earlier acknowledged content; kWrong otherwise. After kLost or kWrong the
  // read becomes the content, so that one fault is counted once.
  Verdict Settle(const std::string& name, const Content& read);
  // A range read of a certain object: `got` against bytes [offset, offset + length) of the
  // content (cut at its end), then of the earlier acknowledged contents.
  Verdict CheckRange(const std::string& name, std::uint64_t offset, std::uint64_t length,
                     const std::vector<std::byte>& got);
  // Every object name the model has seen, sorted.
  std::vector<std::string> names() const;
  // The names whose (certain) content is an object.
  std::vector<std::string> existing() const;

 private:
  struct Entry {
    std::vector<Content> candidates;  // [0] when certain
    std::vector<Content> earlier;     // the last few acknowledged contents, newest last
  };
  Entry& At(const std::string& name);
  std::map<std::string, Entry> objects_;
};

// Counters of one or more workloads; safe to read from another thread while they run.
struct WorkloadCounts {
  std::atomic<std::uint64_t> ops{0};            // operations issued (reads included)
  std::atomic<std::uint64_t> acked{0};          // writes, appends and removes acknowledged
  std::atomic<std::uint64_t> failed{0};         // ... that failed (outcome unknown)
  std::atomic<std::uint64_t> reads_checked{0};  // reads compared with the model
  std::atomic<std::uint64_t> direct_reads{0};   // ... of them answered by a shard's OSD
  std::atomic<std::uint64_t> read_errors{0};    // reads that failed (client gave up)
  std::atomic<std::uint64_t> mismatches{0};     // reads that differ from every allowed content
  std::atomic<std::uint64_t> lost{0};           // reads that show an earlier acknowledged content

  // Keeps the first 200 notes (what failed, what differed, with the time since the first note).
  void Note(const std::string& text);
  std::vector<std::string> Notes() const;
  // "N ops, N acknowledged, N failed, N reads checked (N direct), N read errors, N mismatches,
  // N lost"
  std::string Summary() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> notes_;
};

struct WorkloadOptions {
  std::string prefix = "model-";  // object names are prefix + index
  int objects = 16;
  std::size_t max_full = 70000;   // write_full sizes are 0 .. max_full - 1 bytes
  std::size_t max_write = 20000;  // range overwrites 1 .. max_write bytes, up to 2000 past the end
  std::size_t max_append = 9000;  // appends 1 .. max_append bytes
  std::size_t max_read = 30000;   // range reads 1 .. max_read bytes (half of them) or
  std::size_t max_small_read = 4096;  // 1 .. max_small_read bytes (the other half)
  bool prefill = false;               // write_full every object once before the random operations
};

// Random operations (2/10 write_full, 2/10 range overwrites, 1/10 appends, 1/10 removes, 4/10
// whole or range reads) on objects prefix0 .. prefix(objects-1) of `io` until `stop`; the
// operations are a function of `seed` and of the outcomes (a failed one is settled by reads). One
// thread; `model` is this thread's while it runs; `n` may be shared.
void RunWorkload(ec::cluster::client::IoCtx io, const WorkloadOptions& options, std::uint64_t seed,
                 const std::atomic<bool>& stop, ObjectModel& model, WorkloadCounts& n);

// Reads every object of `model` whole and settles it (counted in `n`); the first read error, or
// OK. Then lists the pool and checks that the objects whose names start with `prefix` are exactly
// the model's existing ones (a difference is a mismatch, noted).
ec::Status VerifyAll(ec::cluster::client::IoCtx io, const std::string& prefix, ObjectModel& model,
                     WorkloadCounts& n);

// The whole content read back (nullopt for ENOENT); another error in *err.
ObjectModel::Content ReadWhole(ec::cluster::client::IoCtx& io, const std::string& name,
                               ec::Status* err);

}  // namespace ectest
