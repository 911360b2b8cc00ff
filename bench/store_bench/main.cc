// ec-store-bench: update and fetch runs against an ObjectStore, in the spirit of DAOS's vos_perf.
//
//   ec-store-bench -R "U;p F;p" -o 1000 -s 4096 -d 1 [--no-durable] [--device FILE] [--json OUT]
//
// U writes one value of -s bytes at offset 0 of each of -o objects (one transaction each); F reads
// each object's value back (random order, --passes times); "p" prints the previous run.
// Queue depth -d: for U, -d threads call Apply concurrently (the store commits them in groups,
// sharing flushes and syncs); for F, --fetch-threads threads (default 1) together keep -d reads in
// flight with ReadMany: each submits a batch of -d / threads reads together and the next batch when
// that one completes (-d 1: plain Read calls).
// Bytes counted: the value bytes written or read. Latency is per operation, wall clock: the Apply
// call, the Read call, or for ReadMany the batch that carried the read. CPU per operation: the
// process's user + system time over the run (getrusage), divided by its operations. Memory: the
// process's VmRSS when the store is open and after each run.
// --watched opens the device as ec-osd does, through WatchedDevice (its error and slow-request
// counts and the in-progress list the stall watchdog reads): run with and without it, its cost.
#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "common/cli.h"
#include "osd/store/malloc_tuning.h"
#include "osd/store/object_store.h"
#include "osd/store/watched_device.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::osd::store::Extent;
using ec::osd::store::ObjectStore;

struct RunResult {
  std::string op;
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // user + system of the whole process over the run
  double rss_mib = 0;      // the process's resident memory after the run (VmRSS)
  std::vector<double> lat_us;
  double Percentile(double p) const {
    if (lat_us.empty()) return 0;
    auto i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(lat_us.size() - 1));
    return lat_us[i];
  }
};

double ProcessCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

// The process's resident memory (VmRSS of /proc/self/status), in MiB; 0 when unreadable.
double ResidentMib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kib = 0;
      fields >> kib;
      return kib / 1024.0;
    }
  }
  return 0;
}

double CpuMicrosPerOp(const RunResult& r) {
  return r.ops == 0 ? 0 : r.cpu_seconds * 1e6 / static_cast<double>(r.ops);
}

std::string ObjectName(std::uint64_t i) {
  return "obj." + std::to_string(i);
}

// Runs fn(i) for i in `order` on `depth` threads; returns the per-call latencies.
template <typename Fn>
ec::Status RunParallel(const std::vector<std::uint64_t>& order, unsigned depth, Fn fn,
                       RunResult& out) {
  std::atomic<std::size_t> next{0};
  std::vector<std::vector<double>> lats(depth);
  std::vector<ec::Status> errors(depth);
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < depth; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t k; (k = next++) < order.size();) {
        auto t0 = Clock::now();
        ec::Status s = fn(order[k]);
        auto t1 = Clock::now();
        if (!s.ok()) {
          errors[t] = s;
          next = order.size();
          return;
        }
        lats[t].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
    });
  }
  for (auto& th : threads) th.join();
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& l : lats) out.lat_us.insert(out.lat_us.end(), l.begin(), l.end());
  std::sort(out.lat_us.begin(), out.lat_us.end());
  out.ops = out.lat_us.size();
  for (const auto& e : errors) {
    if (!e.ok()) return e;
  }
  return ec::Status::OK();
}

// `threads` threads, each issuing ReadMany batches of depth / threads reads, so that at most
// `depth` reads are in flight; every read of a batch gets the batch's latency.
ec::Status FetchBatches(ObjectStore& store, const std::vector<std::uint64_t>& order, unsigned depth,
                        unsigned threads, std::uint64_t value_size, RunResult& out) {
  std::size_t per = std::max(1u, depth / threads);
  std::atomic<std::size_t> next{0};
  std::vector<std::vector<double>> lats(threads);
  std::vector<ec::Status> errors(threads);
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<ec::osd::store::ReadRequest> batch(per);
      for (auto& req : batch) {
        req.coll = "bench";
        req.extents = {Extent{0, value_size}};
      }
      for (std::size_t k; (k = next.fetch_add(per)) < order.size();) {
        std::size_t n = std::min(per, order.size() - k);
        for (std::size_t j = 0; j < n; ++j) batch[j].name = ObjectName(order[k + j]);
        auto t0 = Clock::now();
        auto got = store.ReadMany(std::span<const ec::osd::store::ReadRequest>(batch.data(), n));
        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        for (auto& g : got) {
          if (g.ok() && (*g)[0].size() != value_size) g = ec::Status::IOError("short read");
          if (!g.ok()) {
            errors[t] = g.status();
            next = order.size();
            return;
          }
          lats[t].push_back(us);
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& l : lats) out.lat_us.insert(out.lat_us.end(), l.begin(), l.end());
  std::sort(out.lat_us.begin(), out.lat_us.end());
  out.ops = out.lat_us.size();
  for (const auto& e : errors) {
    if (!e.ok()) return e;
  }
  return ec::Status::OK();
}

nlohmann::json ToJson(const RunResult& r) {
  return {{"op", r.op},
          {"ops", r.ops},
          {"bytes", r.bytes},
          {"seconds", r.seconds},
          {"ops_per_sec", r.ops / r.seconds},
          {"mb_per_sec", static_cast<double>(r.bytes) / r.seconds / 1e6},
          {"cpu_us_per_op", CpuMicrosPerOp(r)},
          {"rss_mib", r.rss_mib},
          {"lat_us",
           {{"p50", r.Percentile(50)},
            {"p99", r.Percentile(99)},
            {"p99.9", r.Percentile(99.9)},
            {"max", r.lat_us.empty() ? 0 : r.lat_us.back()}}}};
}

void Print(const RunResult& r) {
  fmt::print(
      "{:<7} ops {:>8}  {:>7.3f} s  {:>10.0f} op/s  {:>9.1f} MB/s  lat us p50 {:.1f} p99 {:.1f} "
      "p99.9 {:.1f}  cpu us/op {:.1f}  rss {:.1f} MiB\n",
      r.op, r.ops, r.seconds, r.ops / r.seconds, static_cast<double>(r.bytes) / r.seconds / 1e6,
      r.Percentile(50), r.Percentile(99), r.Percentile(99.9), CpuMicrosPerOp(r), r.rss_mib);
}

}  // namespace

int main(int argc, char** argv) {
  ec::osd::store::TuneMallocForLargeBuffers();  // see malloc_tuning.h: big buffers without mmap
                                                // churn
  CLI::App app{"ec-store-bench: update/fetch runs against the OSD object store"};
  std::string runs = "U;p F;p";
  std::string device, db, backend = "uring", json_out;
  std::uint64_t objects = 1000, value_size = 4096, device_size = 1ull << 30;
  unsigned depth = 1, passes = 1, seed = 1, fetch_threads = 1;
  bool no_durable = false, watched = false;
  std::uint64_t journal_size = ec::osd::store::StoreOptions{}.journal_size;
  app.add_option("-R,--runs", runs, "runs: U (update), F (fetch), p (print the last run)");
  app.add_option("-o,--objects", objects, "number of objects")->check(CLI::Range(1ull, 1ull << 32));
  app.add_option("-s,--size", value_size, "value size in bytes (4k, 1M, ...: binary units)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(1ull, 1ull << 30));
  app.add_option("-d,--depth", depth,
                 "queue depth: concurrent Apply threads (U), reads per ReadMany batch (F)")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--fetch-threads", fetch_threads,
                 "F with -d > 1: threads sharing the depth (each keeps -d / threads in flight)")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--passes", passes, "fetch passes over all objects")->check(CLI::Range(1u, 1000u));
  app.add_flag("--no-durable", no_durable, "skip device flush and RocksDB sync on update");
  app.add_option("--journal-size", journal_size,
                 "commit journal size in bytes at mkfs (0: none, commits sync RocksDB instead)")
      ->capture_default_str()
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--device", device, "device file or block device (default: a temporary file)");
  app.add_option("--db", db, "RocksDB directory (default: next to a temporary device)");
  app.add_option("--device-size", device_size, "size of a device file to create (e.g. 4G)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(16ull << 20, 1ull << 50));
  app.add_option("--backend", backend, "uring or sync")->check(CLI::IsMember({"uring", "sync"}));
  app.add_option("--seed", seed, "seed for the fetch order");
  app.add_flag("--watched", watched,
               "open the device through WatchedDevice, as ec-osd does (its cost, side by side)");
  app.add_option("--json", json_out, "write results as JSON to this file (- for stdout)");
  ec::cli::AddVersionFlag(app, "ec-store-bench");
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;
  std::vector<std::string> ops;
  {
    std::istringstream tokens(runs);
    for (std::string tok; tokens >> tok;) {
      std::istringstream parts(tok);
      for (std::string op; std::getline(parts, op, ';');) {
        if (op.empty()) continue;
        if (op != "U" && op != "F" && op != "p") {
          fmt::print(stderr, "ec-store-bench: unknown run '{}' in -R (use U, F, p)\n", op);
          return 1;
        }
        ops.push_back(op);
      }
    }
  }

  std::string tmpdir;
  if (device.empty() || db.empty()) {
    char tmpl[] = "/tmp/ec-store-bench.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      fmt::print(stderr, "cannot create a temporary directory\n");
      return 1;
    }
    tmpdir = tmpl;
    if (device.empty()) device = tmpdir + "/dev";
    if (db.empty()) db = tmpdir + "/db";
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{tmpdir};

  ec::osd::store::StoreOptions opts;
  opts.device_path = device;
  opts.db_path = db;
  opts.device_size = device_size;
  opts.backend =
      backend == "sync" ? ec::osd::store::IoBackend::kSync : ec::osd::store::IoBackend::kUring;
  opts.durable = !no_durable;
  opts.journal_size = journal_size;
  opts.force = true;
  if (ec::Status s = ObjectStore::Mkfs(opts); !s.ok()) {
    fmt::print(stderr, "mkfs: {}\n", s.ToString());
    return 1;
  }
  if (watched) {
    ec::osd::store::DeviceOptions d;
    d.backend = opts.backend;
    auto base = ec::osd::store::OpenFileDevice(device, d);
    if (!base.ok()) {
      fmt::print(stderr, "open device: {}\n", base.status().ToString());
      return 1;
    }
    // ec-osd's default bdev_slow_op_ms.
    opts.device = std::make_shared<ec::osd::store::WatchedDevice>(std::move(base).value(),
                                                                  std::chrono::milliseconds(1000));
  }
  auto opened = ObjectStore::Open(opts);
  if (!opened.ok()) {
    fmt::print(stderr, "open: {}\n", opened.status().ToString());
    return 1;
  }
  ObjectStore& store = **opened;
  {
    ec::osd::store::Transaction t;
    t.CreateCollection("bench");
    if (ec::Status s = store.Apply(t); !s.ok()) {
      fmt::print(stderr, "create collection: {}\n", s.ToString());
      return 1;
    }
  }

  std::vector<std::byte> value(value_size);
  std::mt19937_64 rng(seed);
  for (auto& b : value) b = static_cast<std::byte>(rng());
  std::vector<std::uint64_t> seq(objects);
  for (std::uint64_t i = 0; i < objects; ++i) seq[i] = i;

  const std::uint64_t journal_bytes =
      store.superblock().journal_blocks * ec::osd::store::kBlockSize;
  fmt::print(
      "ec-store-bench: device {} ({}{}), objects {}, value {} B, depth {}, {}, journal {} KiB\n",
      device, backend, watched ? ", watched" : "", objects, value_size, depth,
      opts.durable ? "durable" : "not durable", journal_bytes >> 10);
  const double rss_open_mib = ResidentMib();
  fmt::print("rss with the store open: {:.1f} MiB\n", rss_open_mib);
  nlohmann::json results = nlohmann::json::array();
  RunResult last;
  for (const std::string& op : ops) {
    if (op == "p") {
      if (!last.op.empty()) Print(last);
      continue;
    }
    RunResult r;
    ec::Status s;
    const double cpu_before = ProcessCpuSeconds();
    if (op == "U") {
      r.op = "update";
      s = RunParallel(
          seq, depth,
          [&](std::uint64_t i) {
            ec::osd::store::Transaction t;
            t.Write("bench", ObjectName(i), 0, value);
            return store.Apply(t);
          },
          r);
    } else if (op == "F") {
      r.op = "fetch";
      std::vector<std::uint64_t> order;
      for (unsigned p = 0; p < passes; ++p) {
        std::vector<std::uint64_t> pass = seq;
        std::shuffle(pass.begin(), pass.end(), rng);
        order.insert(order.end(), pass.begin(), pass.end());
      }
      if (depth == 1) {
        s = RunParallel(
            order, 1,
            [&](std::uint64_t i) {
              Extent e{0, value_size};
              auto got = store.Read("bench", ObjectName(i), std::span<const Extent>(&e, 1));
              return got.ok() ? ec::Status::OK() : got.status();
            },
            r);
      } else {
        s = FetchBatches(store, order, depth, std::min(fetch_threads, depth), value_size, r);
      }
    }
    r.cpu_seconds = ProcessCpuSeconds() - cpu_before;
    r.rss_mib = ResidentMib();
    if (!s.ok()) {
      fmt::print(stderr, "{}: {}\n", r.op, s.ToString());
      return 1;
    }
    r.bytes = r.ops * value_size;
    results.push_back(ToJson(r));
    last = std::move(r);
  }
  nlohmann::json doc = {{"tool", "ec-store-bench"},
                        {"device", device},
                        {"backend", backend},
                        {"objects", objects},
                        {"value_size", value_size},
                        {"depth", depth},
                        {"durable", opts.durable},
                        {"watched", watched},
                        {"rss_open_mib", rss_open_mib},
                        {"journal_bytes", journal_bytes},
                        {"bytes_counted", "value bytes written or read"},
                        {"results", results}};
  if (json_out == "-") {
    fmt::print("{}\n", doc.dump(2));
  } else if (!json_out.empty()) {
    std::ofstream(json_out) << doc.dump(2) << "\n";
  }
  return 0;
}
