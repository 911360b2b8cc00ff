// netns_workload: the model-checked workload (model_workload.h) against a cluster that runs
// elsewhere (tests only): a netns cluster (bench/netns_cluster.sh) whose faults a shell script
// plays, as tests/cluster/partition_test.sh does. It connects with a config file as ec-rados does,
// runs --threads workers on objects t0-*, t1-*, ... of --pool, and obeys one command a line on
// standard input:
//
//   verify LABEL   stop the workers, read every object whole and list the pool (retried for up
//                  to --verify-timeout while reads fail), print one line
//                  "VERIFIED LABEL ops=N acked=N failed=N reads=N read_errors=N mismatches=N
//                  lost=N unreadable=0|1" with the counts since the previous verify (the reads
//                  of this verify included), then start the workers again
//   counts LABEL   print "COUNTS LABEL ops=N acked=N failed=N reads=N read_errors=N
//                  mismatches=N lost=N" since the previous verify, the workers going on
//   quit (or end of input)   stop the workers and exit
//
// Notes of failed operations and differences go to standard error, prefixed with the label.
// Exit status: 0 when no read ever differed from the model (mismatches and lost 0) and every
// verify read every object, 1 otherwise, 2 for bad arguments or no cluster.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster/client/rados.h"
#include "tests/cluster/model_workload.h"

namespace {

using ec::cluster::client::IoCtx;
using ectest::ObjectModel;
using ectest::WorkloadCounts;

struct Args {
  std::string conf;
  std::string pool;
  int threads = 2;
  int objects = 12;
  std::uint64_t seed = 1;
  int op_timeout_s = 30;
  int verify_timeout_s = 60;
};

// The workers of one phase: started, then stopped by Stop (which waits for each one's operation
// in flight).
class Workers {
 public:
  Workers(IoCtx io, const Args& a, std::uint64_t round, std::vector<ObjectModel>& models,
          WorkloadCounts& n) {
    for (int i = 0; i < a.threads; ++i) {
      ectest::WorkloadOptions wo;
      wo.prefix = "t" + std::to_string(i) + "-";
      wo.objects = a.objects;
      const std::uint64_t seed = a.seed * 1000003 + round * 131 + static_cast<std::uint64_t>(i);
      threads_.emplace_back([this, io, wo, seed, &models, &n, i] {
        ectest::RunWorkload(io, wo, seed, stop_, models[static_cast<std::size_t>(i)], n);
      });
    }
  }
  ~Workers() { Stop(); }
  void Stop() {
    stop_ = true;
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// Every object of every model read and the listing compared, retried while reads fail (PGs still
// peering); false if some object stayed unreadable until the deadline.
bool VerifyEvery(IoCtx io, const Args& a, std::vector<ObjectModel>& models, WorkloadCounts& n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(a.verify_timeout_s);
  for (int i = 0; i < a.threads; ++i) {
    const std::string prefix = "t" + std::to_string(i) + "-";
    for (;;) {
      const ec::Status s = ectest::VerifyAll(io, prefix, models[static_cast<std::size_t>(i)], n);
      if (s.ok()) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        n.Note("verify " + prefix + "*: gave up: " + s.ToString());
        return false;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return true;
}

void PrintCounts(const char* what, const std::string& label, const WorkloadCounts& n) {
  std::cout << what << ' ' << label << " ops=" << n.ops << " acked=" << n.acked
            << " failed=" << n.failed << " reads=" << n.reads_checked
            << " read_errors=" << n.read_errors << " mismatches=" << n.mismatches
            << " lost=" << n.lost;
}

void Report(const std::string& label, const WorkloadCounts& n, bool readable) {
  for (const std::string& note : n.Notes()) std::cerr << label << ": " << note << '\n';
  PrintCounts("VERIFIED", label, n);
  std::cout << " unreadable=" << (readable ? 0 : 1) << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{
      "netns_workload: the model-checked workload against a running cluster; commands on stdin: "
      "'verify LABEL' (stop, read everything back, print the counts, go on), 'counts LABEL' "
      "(the counts so far), 'quit'"};
  app.add_option("-c,--conf", a.conf, "the cluster's config file ([global] etcd_endpoints)")
      ->required();
  app.add_option("-p,--pool", a.pool, "the pool")->required();
  app.add_option("--threads", a.threads, "workers, each on its own objects")
      ->check(CLI::Range(1, 9));
  app.add_option("--objects", a.objects, "objects per worker")->check(CLI::Range(1, 10000));
  app.add_option("--seed", a.seed, "the workload's seed");
  app.add_option("--op-timeout", a.op_timeout_s, "seconds one client operation may take")
      ->check(CLI::Range(1, 3600));
  app.add_option("--verify-timeout", a.verify_timeout_s,
                 "seconds a verify retries while objects are unreadable")
      ->check(CLI::Range(1, 3600));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto options = ec::cluster::client::ClientOptionsFromConfig(a.conf);
  if (!options.ok()) {
    std::cerr << "netns_workload: " << options.status().ToString() << '\n';
    return 2;
  }
  options->op_timeout = std::chrono::seconds(a.op_timeout_s);
  options->attempt_timeout = std::min(options->attempt_timeout, options->op_timeout);
  auto rados = ec::cluster::client::Rados::Connect(*options);
  if (!rados.ok()) {
    std::cerr << "netns_workload: " << rados.status().ToString() << '\n';
    return 2;
  }
  auto io = (*rados)->OpenPool(a.pool);
  if (!io.ok()) {
    std::cerr << "netns_workload: " << io.status().ToString() << '\n';
    return 2;
  }
  std::vector<ObjectModel> models(static_cast<std::size_t>(a.threads));
  bool good = true;
  std::uint64_t round = 0;
  auto counts = std::make_unique<WorkloadCounts>();
  auto workers = std::make_unique<Workers>(*io, a, round, models, *counts);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "quit") break;
    if (line.starts_with("counts ")) {
      PrintCounts("COUNTS", line.substr(7), *counts);
      std::cout << std::endl;
      continue;
    }
    if (!line.starts_with("verify ")) {
      std::cerr << "netns_workload: unknown command '" << line
                << "' (verify LABEL, counts LABEL, quit)\n";
      continue;
    }
    workers->Stop();
    const bool readable = VerifyEvery(*io, a, models, *counts);
    Report(line.substr(7), *counts, readable);
    good = good && readable && counts->mismatches == 0 && counts->lost == 0;
    counts = std::make_unique<WorkloadCounts>();
    workers = std::make_unique<Workers>(*io, a, ++round, models, *counts);
  }
  workers->Stop();
  return good ? 0 : 1;
}
