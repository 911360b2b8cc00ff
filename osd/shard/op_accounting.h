// OpAccounting: the metrics of OsdService's operations, by type (ping, write, read, stat, list,
// remove, the sub-operations): completed count, errors by class (error, data_loss, retryable),
// payload bytes in and out, latency from request received to reply queued, checksum errors (data
// loss on a read is also logged at error level), inline reads and writes and operations in flight.
//
// Metric names (Prometheus): ecstore_osd_ops_total{op}, ecstore_osd_op_errors_total{op,class},
// ecstore_osd_op_bytes_total{op,dir}, ecstore_osd_op_latency_seconds{op},
// ecstore_osd_checksum_errors_total, ecstore_osd_inline_reads_total,
// ecstore_osd_inline_writes_total, ecstore_osd_inflight_ops.
//
// Thread safety: Account and Json may be called from any thread (the metrics are atomic).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/metrics.h"
#include "common/status.h"
#include "msg/messages.h"

namespace spdlog {
class logger;
}

namespace ec::osd::shard {

// The shard operations; kSub* are the PG sub-operations a primary sends (osd/shard/sub_ops.h).
// kSubScan / kSubPull / kSubReadBatch are recovery's (a primary's peering scan; a pull served by
// OsdServiceOptions::recovery, accounted there; a pulling OSD's batched helper reads, counted
// once per request whatever its items' results: an item's error is not the operation's).
// kSubRepairChain: one hop of a pipelined repair (served by OsdServiceOptions::chain, accounted
// there; its bytes out are the partial it sends back).
enum class Op {
  kPing,
  kWrite,
  kRead,
  kStat,
  kList,
  kRemove,
  kSubWrite,
  kSubResolve,
  kSubState,
  kSubScan,
  kSubPull,
  kSubReadBatch,
  kSubRepairChain
};
inline constexpr int kOpCount = 13;

Op OpOf(const msg::RequestBody& body);
// "ping", "write", ...
const char* OpName(Op op);

class OpAccounting {
 public:
  using Clock = std::chrono::steady_clock;

  // Registers the metrics in `registry` (borrowed, must outlive this). `log` receives data-loss
  // errors.
  OpAccounting(MetricsRegistry& registry, std::shared_ptr<spdlog::logger> log);

  // One operation answered with `status`, `in`/`out` payload bytes, received at `start`.
  void Account(Op op, const Status& status, Clock::time_point start, std::uint64_t in,
               std::uint64_t out);

  // A checksum failure inside an operation that itself succeeds (an item of a SubReadBatch):
  // counted in ecstore_osd_checksum_errors_total and logged as Account does, not as an error of
  // `op`.
  void AccountDataLoss(Op op, const Status& status);

  // {"ping": {"completed": N, "errors": M}, ...} (errors of every class).
  nlohmann::json OpsJson() const;
  std::uint64_t checksum_errors() const { return checksum_errors_->Value(); }

  Counter& inline_reads() { return *inline_reads_; }
  Counter& inline_writes() { return *inline_writes_; }
  Gauge& inflight() { return *inflight_; }

 private:
  struct PerOp {
    Counter* ops = nullptr;
    Counter* errors = nullptr;
    Counter* data_loss = nullptr;
    Counter* retryable = nullptr;
    Counter* bytes_in = nullptr;
    Counter* bytes_out = nullptr;
    Histogram* latency = nullptr;
  };
  std::shared_ptr<spdlog::logger> log_;
  std::array<PerOp, kOpCount> ops_;
  Counter* checksum_errors_ = nullptr;
  Counter* inline_reads_ = nullptr;
  Counter* inline_writes_ = nullptr;
  Gauge* inflight_ = nullptr;
};

}  // namespace ec::osd::shard
