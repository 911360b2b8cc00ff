#include "tools/ec_rados/bench.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "tools/ec_rados/errors.h"

namespace ec::tools::rados {
namespace {

using Clock = std::chrono::steady_clock;
using cluster::client::IoCtx;
using cluster::client::ReadResult;

constexpr std::uint64_t kMaxBenchObjects = 1ULL << 32;
constexpr std::uint64_t kMaxBenchObjectSize = 64ULL << 20;
constexpr int kMaxMismatchReports = 10;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::span<const std::byte> Bytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string DefaultPrefix() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return std::string("benchmark_data_") + host + "_" + std::to_string(::getpid());
}

// One benchmark phase: `concurrency` operations in flight, as rados bench keeps them: each
// completion (on the client's io thread) records its latency and issues the next operation on
// the numbers `next` hands out, until it has none left, time is up or an op fails. No thread
// waits per operation (IoCtx's Aio* calls). The calling thread prints a progress row each second
// and samples the per-second bandwidth and IOPS.
class Phase {
 public:
  // Returns the next object number, or false when there is none left.
  using Next = std::function<bool(std::uint64_t* n)>;
  // Called once an op ends: its status (an error stops the phase) and whether it was a degraded
  // read.
  using Done = std::function<void(Status, bool degraded)>;
  // Starts one op on object n in slot `slot` (0 .. concurrency-1; one op per slot at a time) and
  // calls `done` once, from any thread, when it ends.
  using Op = std::function<void(int slot, std::uint64_t n, Done done)>;

  Phase(const BenchOptions& o, std::uint64_t op_size, std::ostream& out)
      : threads_(o.concurrency),
        seconds_(o.seconds),
        op_size_(op_size),
        progress_(o.progress),
        stop_(o.stop),
        log_(o.latency_log),
        out_(out) {}

  Status Run(const Next& next, const Op& op, BenchResult* result) {
    next_ = &next;
    op_ = &op;
    start_ = Clock::now();
    start_unix_ =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    deadline_ = start_ + std::chrono::seconds(seconds_);
    for (int w = 0; w < threads_; ++w) Issue(w);
    Report(result);  // returns once every slot has ended: no op is in flight any more

    result->seconds = Seconds(last_done_ - start_);
    if (result->seconds <= 0) result->seconds = Seconds(Clock::now() - start_);
    result->ops = finished_.load();
    result->op_size = op_size_;
    std::lock_guard lock(mu_);
    result->latencies.insert(result->latencies.end(), latencies_.begin(), latencies_.end());
    return error_;
  }

 private:
  // Starts slot w's next op, or ends the slot.
  void Issue(int w) {
    std::uint64_t n = 0;
    {
      std::lock_guard lock(mu_);
      if (!error_.ok() || Clock::now() >= deadline_ || (stop_ != nullptr && stop_->load()) ||
          !(*next_)(&n)) {
        // The slot's last touch of the phase: Run may return once every slot got here.
        if (++done_workers_ == threads_) cv_.notify_all();
        return;
      }
      started_.fetch_add(1);
    }
    const auto t0 = Clock::now();
    (*op_)(w, n, [this, w, t0](Status s, bool degraded) {
      const auto t1 = Clock::now();
      {
        std::lock_guard lock(mu_);
        if (!s.ok()) {
          if (error_.ok()) error_ = s;
        } else {
          const double lat = Seconds(t1 - t0);
          latencies_.push_back(lat);
          if (log_ != nullptr) {
            *log_ << FormatLatencyLogLine(start_unix_ + Seconds(t0 - start_), lat, degraded)
                  << std::flush;
          }
          lat_sum_ += lat;
          last_lat_ = lat;
          last_done_ = std::max(last_done_, t1);
          finished_.fetch_add(1);
        }
      }
      Issue(w);  // after a failure this ends the slot
    });
  }

  // Until every worker is done: a row each second (rados's table, its header again every 20
  // rows), and each whole second's bandwidth and IOPS as samples.
  void Report(BenchResult* result) {
    std::uint64_t prev_finished = 0;
    for (int sec = 0;; ++sec) {
      std::unique_lock lock(mu_);
      if (sec > 0) {
        cv_.wait_until(lock, start_ + std::chrono::seconds(sec),
                       [&] { return done_workers_ == threads_; });
      }
      const bool all_done = done_workers_ == threads_;
      const auto now = Clock::now();
      const std::uint64_t finished = finished_.load();
      const std::uint64_t started = started_.load();
      const bool whole_second = sec > 0 && now >= start_ + std::chrono::seconds(sec);
      const double cur_bw =
          static_cast<double>(finished - prev_finished) * static_cast<double>(op_size_) / kMiB;
      if (whole_second) {
        result->bandwidth_per_second.push_back(cur_bw);
        result->iops_per_second.push_back(static_cast<double>(finished - prev_finished));
      }
      if (progress_ && (sec == 0 || whole_second)) {
        if (sec % 20 == 0) out_ << ProgressHeader();
        ProgressRow row;
        row.second = sec;
        row.in_flight = started - finished;
        row.started = started;
        row.finished = finished;
        const double elapsed = Seconds(now - start_);
        row.avg_bandwidth = elapsed <= 0 ? 0
                                         : static_cast<double>(finished) *
                                               static_cast<double>(op_size_) / kMiB / elapsed;
        row.cur_bandwidth = sec == 0 ? 0 : cur_bw;
        row.last_latency = finished == 0 ? -1 : last_lat_;
        row.avg_latency = finished == 0 ? 0 : lat_sum_ / static_cast<double>(finished);
        out_ << FormatProgressRow(row) << std::flush;
      }
      prev_finished = finished;
      if (all_done) return;
    }
  }

  const int threads_;
  const int seconds_;
  const std::uint64_t op_size_;
  const bool progress_;
  const std::atomic<bool>* const stop_;
  std::ostream* const log_;
  std::ostream& out_;
  const Next* next_ = nullptr;
  const Op* op_ = nullptr;
  Clock::time_point start_, deadline_;
  double start_unix_ = 0;
  std::vector<double> latencies_;

  std::mutex mu_;
  std::condition_variable cv_;
  Status error_;
  int done_workers_ = 0;
  std::atomic<std::uint64_t> started_{0}, finished_{0};
  double lat_sum_ = 0;
  double last_lat_ = 0;
  Clock::time_point last_done_{};
};

Result<BenchMetadata> ReadMetadata(IoCtx& io, const std::string& name) {
  auto got = io.Read(name);
  if (!got.ok()) {
    if (got.status().code() == ENOENT) {
      return Status::NotFound(
          "must write data before running a read benchmark (bench SECONDS "
          "write --no-cleanup): " +
          ErrorText("reading " + io.pool_name() + "/" + name, got.status()));
    }
    return Status::Error(got.status().code(),
                         ErrorText("reading benchmark metadata " + name, got.status()));
  }
  const Buffer& b = got->data;
  auto m = DecodeBenchMetadata(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  if (!m.ok()) return m.status().WithPrefix("benchmark metadata " + name);
  return m;
}

Status WriteMetadata(IoCtx& io, const std::string& name, const BenchMetadata& m) {
  const std::string bytes = EncodeBenchMetadata(m);
  auto put = io.WriteFull(name, Bytes(bytes));
  if (!put.ok()) {
    return Status::Error(put.status().code(),
                         ErrorText("writing benchmark metadata " + name, put.status()));
  }
  return Status::OK();
}

// Removes the objects name_of(0) .. name_of(count - 1) (skipping missing ones) with `concurrency`
// threads; returns how many were removed.
Result<std::uint64_t> RemoveMany(IoCtx& io, std::uint64_t count,
                                 const std::function<std::string(std::uint64_t)>& name_of,
                                 int concurrency) {
  std::atomic<std::uint64_t> next{0}, removed{0};
  std::mutex mu;
  Status error;
  std::vector<std::thread> workers;
  const int threads = static_cast<int>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(std::max(1, concurrency)), std::max<std::uint64_t>(count, 1)));
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      for (;;) {
        const std::uint64_t n = next.fetch_add(1);
        if (n >= count) return;
        {
          std::lock_guard lock(mu);
          if (!error.ok()) return;
        }
        const std::string name = name_of(n);
        Status s = io.Remove(name);
        if (s.ok()) {
          removed.fetch_add(1);
        } else if (s.code() != ENOENT) {
          std::lock_guard lock(mu);
          if (error.ok()) error = Status::Error(s.code(), ErrorText("removing " + name, s));
          return;
        }
      }
    });
  }
  for (std::thread& t : workers) t.join();
  if (!error.ok()) return error;
  return removed.load();
}

// Objects 0 .. num_objects-1 of a run.
Result<std::uint64_t> RemoveBenchObjects(IoCtx& io, const BenchMetadata& m, int concurrency) {
  return RemoveMany(
      io, m.num_objects, [&](std::uint64_t n) { return BenchObjectName(m.prefix, n); },
      concurrency);
}

Status RemoveMetadata(IoCtx& io, const std::string& name) {
  Status rm = io.Remove(name);
  if (!rm.ok() && rm.code() != ENOENT) {
    return Status::Error(rm.code(), ErrorText("removing " + name, rm));
  }
  return Status::OK();
}

// Whether `name` is "<prefix>_object<N>".
bool IsObjectOfPrefix(std::string_view name, std::string_view prefix) {
  constexpr std::string_view kInfix = "_object";
  if (name.size() <= prefix.size() + kInfix.size()) return false;
  if (name.substr(0, prefix.size()) != prefix) return false;
  if (name.substr(prefix.size(), kInfix.size()) != kInfix) return false;
  const std::string_view n = name.substr(prefix.size() + kInfix.size());
  return n.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string MetadataName(const BenchOptions& o) {
  return o.run_name.empty() ? kDefaultRunName : o.run_name;
}

Result<BenchResult> RunWrite(IoCtx& io, const BenchOptions& o, std::ostream& out) {
  BenchMetadata meta;
  meta.prefix = !o.object_prefix.empty() ? o.object_prefix
                : !o.run_name.empty()    ? o.run_name
                                         : DefaultPrefix();
  meta.object_size = o.block_size;
  if (o.progress) {
    out << "Maintaining " << o.concurrency << " concurrent writes of " << o.block_size
        << " bytes to objects of size " << o.block_size << " for up to " << o.seconds
        << " seconds or " << o.max_objects << " objects\n"
        << "Object prefix: " << meta.prefix << "\n";
  }
  std::uint64_t next_n = 0;
  Phase phase(o, o.block_size, out);
  BenchResult result;
  result.mode = BenchMode::kWrite;
  result.object_size = o.block_size;
  result.concurrency = o.concurrency;
  result.object_prefix = meta.prefix;
  Status s = phase.Run(
      [&](std::uint64_t* n) {
        if (o.max_objects != 0 && next_n >= o.max_objects) return false;
        *n = next_n++;
        return true;
      },
      [&](int, std::uint64_t n, const Phase::Done& done) {
        Buffer buf = Buffer::Allocate(o.block_size, false);
        FillObjectContent(n, {const_cast<std::byte*>(buf.data()), buf.size()});
        std::string name = BenchObjectName(meta.prefix, n);
        io.AioWriteFull(name, std::move(buf), [name, done](Result<std::uint64_t> put) {
          if (!put.ok()) {
            return done(
                Status::Error(put.status().code(), ErrorText("writing " + name, put.status())),
                false);
          }
          done(Status::OK(), false);
        });
      },
      &result);
  // Every object handed out was written (or the run failed): they are 0 .. next_n - 1.
  meta.num_objects = next_n;
  if (!s.ok()) return s;
  const std::string meta_name = MetadataName(o);
  if (!o.cleanup) {
    EC_RETURN_IF_ERROR(WriteMetadata(io, meta_name, meta));
    return result;
  }
  // With cleanup the run records no metadata (rados writes it and removes it again): the
  // metadata object is left to the run kept with --no-cleanup that wrote it, whose objects seq,
  // rand and cleanup still find through it. Only when that run had this run's prefix (the same
  // --run-name) were its objects overwritten and some removed here: then it goes, objects and
  // metadata.
  const auto t0 = Clock::now();
  if (o.progress) out << "Cleaning up (deleting benchmark objects)\n";
  auto removed = RemoveBenchObjects(io, meta, o.concurrency);
  if (!removed.ok()) return removed.status();
  auto earlier = ReadMetadata(io, meta_name);
  if (earlier.ok() && earlier->prefix == meta.prefix) {
    auto rest = RemoveBenchObjects(io, *earlier, o.concurrency);
    if (!rest.ok()) return rest.status();
    *removed += *rest;
    EC_RETURN_IF_ERROR(RemoveMetadata(io, meta_name));
  }
  if (o.progress) {
    out << "Removed " << *removed << " objects\n"
        << "Clean up completed and total clean up time :" << Seconds(Clock::now() - t0) << "\n";
  }
  return result;
}

// Whether `data` is bytes [offset, offset + length) of object n's content of `size` bytes.
bool ReadMatches(std::uint64_t n, std::uint64_t size, std::uint64_t offset, std::uint64_t length,
                 const Buffer& data) {
  if (offset == 0 && length == size) return CheckObjectContent(n, size, data);
  return data.size() == length && CheckObjectRange(n, size, offset, data);
}

Result<BenchResult> RunRead(IoCtx& io, const BenchOptions& o, std::ostream& out,
                            std::ostream& err) {
  auto meta = ReadMetadata(io, MetadataName(o));
  if (!meta.ok()) return meta.status();
  BenchResult result;
  result.mode = o.mode;
  result.object_size = meta->object_size;
  result.concurrency = o.concurrency;
  std::uint64_t next_n = 0;
  std::mt19937_64 rng(static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()));
  const std::uint64_t read_size = o.mode == BenchMode::kRand ? o.read_size : 0;
  if (read_size != 0 && (read_size > meta->object_size || meta->object_size % read_size != 0)) {
    return Status::Invalid("rand: the read size " + std::to_string(read_size) +
                           " does not divide the objects' size " +
                           std::to_string(meta->object_size));
  }
  const std::uint64_t blocks = read_size == 0 ? 1 : meta->object_size / read_size;
  std::atomic<std::uint64_t> mismatches{0}, degraded{0}, net_bytes{0}, dev_bytes{0}, direct{0};
  std::mutex err_mu;
  std::mutex degraded_mu;
  std::vector<double> degraded_lat;
  const std::uint64_t op_size = read_size == 0 ? meta->object_size : read_size;
  Phase phase(o, op_size, out);
  Status s = phase.Run(
      [&](std::uint64_t* n) {
        if (o.mode == BenchMode::kSeq) {
          if (next_n >= meta->num_objects) return false;
          *n = next_n++;
        } else {
          // The object and the block in one number (split by the op), as rewrite does.
          *n =
              std::uniform_int_distribution<std::uint64_t>(0, meta->num_objects - 1)(rng) * blocks +
              std::uniform_int_distribution<std::uint64_t>(0, blocks - 1)(rng);
        }
        return true;
      },
      [&](int, std::uint64_t nb, const Phase::Done& done) {
        const std::uint64_t n = o.mode == BenchMode::kSeq ? nb : nb / blocks;
        const std::uint64_t offset = o.mode == BenchMode::kSeq ? 0 : (nb % blocks) * op_size;
        std::string name = BenchObjectName(meta->prefix, n);
        const auto t0 = Clock::now();
        io.AioRead(name, offset, op_size, [&, name, n, offset, t0, done](Result<ReadResult> got) {
          const double lat = Seconds(Clock::now() - t0);
          if (!got.ok()) {
            return done(
                Status::Error(got.status().code(), ErrorText("reading " + name, got.status())),
                false);
          }
          if (got->degraded) {
            degraded.fetch_add(1);
            net_bytes.fetch_add(got->network_bytes);
            dev_bytes.fetch_add(got->device_bytes);
            std::lock_guard lock(degraded_mu);
            degraded_lat.push_back(lat);
          }
          if (got->direct) direct.fetch_add(1);
          if (!ReadMatches(n, meta->object_size, offset, op_size, got->data)) {
            if (mismatches.fetch_add(1) < kMaxMismatchReports) {
              std::lock_guard lock(err_mu);
              err << "mismatch: " << name << ": read " << got->data.size() << " bytes at " << offset
                  << (got->direct ? " (direct)" : "") << ", expected " << op_size
                  << " bytes of its pattern\n";
            }
          }
          done(Status::OK(), got->degraded);
        });
      },
      &result);
  if (!s.ok()) return s;
  result.mismatches = mismatches.load();
  result.degraded_reads = degraded.load();
  result.degraded_network_bytes = net_bytes.load();
  result.degraded_device_bytes = dev_bytes.load();
  result.degraded_latencies = std::move(degraded_lat);
  result.direct_reads = direct.load();
  return result;
}

Result<BenchResult> RunRewrite(IoCtx& io, const BenchOptions& o, std::ostream& out) {
  auto meta = ReadMetadata(io, MetadataName(o));
  if (!meta.ok()) return meta.status();
  if (o.block_size > meta->object_size || meta->object_size % o.block_size != 0) {
    return Status::Invalid("rewrite: the block size " + std::to_string(o.block_size) +
                           " does not divide the objects' size " +
                           std::to_string(meta->object_size));
  }
  BenchResult result;
  result.mode = BenchMode::kRewrite;
  result.object_size = meta->object_size;
  result.concurrency = o.concurrency;
  result.object_prefix = meta->prefix;
  const std::uint64_t blocks = meta->object_size / o.block_size;
  std::mt19937_64 rng(static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()));
  Phase phase(o, o.block_size, out);
  Status s = phase.Run(
      [&](std::uint64_t* n) {
        // The object and the block in one number (split by the op): both below 2^32 (the
        // metadata's bounds), so it cannot wrap.
        const std::uint64_t object =
            std::uniform_int_distribution<std::uint64_t>(0, meta->num_objects - 1)(rng);
        *n = object * blocks + std::uniform_int_distribution<std::uint64_t>(0, blocks - 1)(rng);
        return true;
      },
      [&](int, std::uint64_t nb, const Phase::Done& done) {
        const std::uint64_t n = nb / blocks, offset = (nb % blocks) * o.block_size;
        Buffer whole = Buffer::Allocate(meta->object_size, false);
        FillObjectContent(n, {const_cast<std::byte*>(whole.data()), whole.size()});
        std::string name = BenchObjectName(meta->prefix, n);
        io.AioWrite(name, whole.Slice(offset, o.block_size), offset,
                    [name, done](Result<std::uint64_t> put) {
                      if (!put.ok()) {
                        return done(Status::Error(put.status().code(),
                                                  ErrorText("writing " + name, put.status())),
                                    false);
                      }
                      done(Status::OK(), false);
                    });
      },
      &result);
  if (!s.ok()) return s;
  return result;
}

}  // namespace

std::string BenchObjectName(const std::string& prefix, std::uint64_t n) {
  return prefix + "_object" + std::to_string(n);
}

std::string EncodeBenchMetadata(const BenchMetadata& m) {
  nlohmann::json j;
  j["prefix"] = m.prefix;
  j["num_objects"] = m.num_objects;
  j["object_size"] = m.object_size;
  return j.dump();
}

Result<BenchMetadata> DecodeBenchMetadata(std::string_view bytes) {
  const nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Invalid("not a JSON object");
  BenchMetadata m;
  const auto prefix = j.find("prefix");
  if (prefix == j.end() || !prefix->is_string() || prefix->get<std::string>().empty()) {
    return Status::Invalid("no object prefix");
  }
  m.prefix = prefix->get<std::string>();
  for (const auto& [key, field, max] :
       {std::tuple{"num_objects", &m.num_objects, kMaxBenchObjects},
        std::tuple{"object_size", &m.object_size, kMaxBenchObjectSize}}) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) {
      return Status::Invalid(std::string("no unsigned ") + key);
    }
    *field = it->get<std::uint64_t>();
    if (*field == 0 || *field > max) {
      return Status::Invalid(std::string(key) + " " + std::to_string(*field) + " is not in [1, " +
                             std::to_string(max) + "]");
    }
  }
  return m;
}

Result<BenchResult> RunBench(IoCtx& io, const BenchOptions& options, std::ostream& out,
                             std::ostream& err) {
  if (options.seconds <= 0 || options.concurrency <= 0 || options.block_size == 0 ||
      options.block_size > kMaxBenchObjectSize) {
    return Status::Invalid("bad bench options");
  }
  if (options.mode == BenchMode::kWrite) return RunWrite(io, options, out);
  if (options.mode == BenchMode::kRewrite) return RunRewrite(io, options, out);
  return RunRead(io, options, out, err);
}

bool IsBenchObject(std::string_view name, const std::string& run_name) {
  if (!run_name.empty() && IsObjectOfPrefix(name, run_name)) return true;
  if (!run_name.empty() && run_name != kDefaultRunName) return false;
  // benchmark_data_<host>_<pid>_object<N>: any host, any process.
  constexpr std::string_view kDefault = "benchmark_data_";
  if (name.substr(0, kDefault.size()) != kDefault) return false;
  const std::size_t infix = name.rfind("_object");
  return infix != std::string_view::npos && infix > kDefault.size() &&
         IsObjectOfPrefix(name, name.substr(0, infix));
}

Result<std::uint64_t> CleanupBench(IoCtx& io, const std::string& run_name, int concurrency) {
  const std::string meta_name = run_name.empty() ? kDefaultRunName : run_name;
  // The metadata's prefix, when it names one that the run name's pattern does not cover (a
  // caller's BenchOptions::object_prefix). Metadata that does not parse is removed all the same.
  std::string meta_prefix;
  auto meta = ReadMetadata(io, meta_name);
  if (meta.ok()) {
    meta_prefix = meta->prefix;
  } else if (meta.status().code() != ENOENT && meta.status().code() != EINVAL) {
    return meta.status();
  }
  // Every run with this name, not only the one the metadata names: an earlier run's objects stay
  // behind when a later run replaced the metadata (another process's prefix) or wrote fewer
  // objects under the same prefix. So the pool is listed, as rados's cleanup does without
  // metadata.
  auto names = io.List();
  if (!names.ok()) {
    return Status::Error(names.status().code(),
                         ErrorText("listing pool " + io.pool_name(), names.status()));
  }
  std::vector<std::string> doomed;
  for (const std::string& name : *names) {
    if (IsBenchObject(name, run_name) ||
        (!meta_prefix.empty() && IsObjectOfPrefix(name, meta_prefix))) {
      doomed.push_back(name);
    }
  }
  auto removed = RemoveMany(
      io, doomed.size(), [&](std::uint64_t n) { return doomed[n]; }, concurrency);
  if (!removed.ok()) return removed.status();
  EC_RETURN_IF_ERROR(RemoveMetadata(io, meta_name));
  return removed;
}

}  // namespace ec::tools::rados
