#include "osd/shard/op_accounting.h"

#include <spdlog/logger.h>
#include <spdlog/spdlog.h>

#include <type_traits>
#include <variant>

namespace ec::osd::shard {
namespace {

constexpr std::array<const char*, kOpCount> kOpNames = {"ping",
                                                        "write",
                                                        "read",
                                                        "stat",
                                                        "list",
                                                        "remove",
                                                        "sub_write",
                                                        "sub_resolve",
                                                        "sub_state",
                                                        "sub_scan",
                                                        "sub_pull",
                                                        "sub_read_batch",
                                                        "sub_repair_chain"};

}  // namespace

Op OpOf(const msg::RequestBody& body) {
  return std::visit(
      [](const auto& m) -> Op {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, msg::PingRequest>) return Op::kPing;
        if constexpr (std::is_same_v<T, msg::WriteShardRequest>) return Op::kWrite;
        if constexpr (std::is_same_v<T, msg::ReadShardRequest>) return Op::kRead;
        if constexpr (std::is_same_v<T, msg::StatRequest>) return Op::kStat;
        if constexpr (std::is_same_v<T, msg::ListRequest>) return Op::kList;
        if constexpr (std::is_same_v<T, msg::SubWriteRequest>) return Op::kSubWrite;
        if constexpr (std::is_same_v<T, msg::SubResolveRequest>) return Op::kSubResolve;
        if constexpr (std::is_same_v<T, msg::SubStateRequest>) return Op::kSubState;
        if constexpr (std::is_same_v<T, msg::SubScanRequest>) return Op::kSubScan;
        if constexpr (std::is_same_v<T, msg::SubPullRequest>) return Op::kSubPull;
        if constexpr (std::is_same_v<T, msg::SubReadBatchRequest>) return Op::kSubReadBatch;
        if constexpr (std::is_same_v<T, msg::SubRepairChainRequest>) return Op::kSubRepairChain;
        return Op::kRemove;
      },
      body);
}

const char* OpName(Op op) {
  return kOpNames[static_cast<std::size_t>(op)];
}

OpAccounting::OpAccounting(MetricsRegistry& registry, std::shared_ptr<spdlog::logger> log)
    : log_(log ? std::move(log) : spdlog::default_logger()) {
  for (int op = 0; op < kOpCount; ++op) {
    const char* name = kOpNames[op];
    PerOp& m = ops_[op];
    m.ops = &registry.GetCounter("ecstore_osd_ops_total", "Operations completed, by type",
                                 {{"op", name}});
    m.errors = &registry.GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                    {{"op", name}, {"class", "error"}});
    m.data_loss = &registry.GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                       {{"op", name}, {"class", "data_loss"}});
    m.retryable = &registry.GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                       {{"op", name}, {"class", "retryable"}});
    m.bytes_in = &registry.GetCounter("ecstore_osd_op_bytes_total",
                                      "Payload bytes of operations, by direction",
                                      {{"op", name}, {"dir", "in"}});
    m.bytes_out = &registry.GetCounter("ecstore_osd_op_bytes_total",
                                       "Payload bytes of operations, by direction",
                                       {{"op", name}, {"dir", "out"}});
    m.latency =
        &registry.GetHistogram("ecstore_osd_op_latency_seconds",
                               "Time from request received to reply queued", {{"op", name}});
  }
  checksum_errors_ = &registry.GetCounter("ecstore_osd_checksum_errors_total",
                                          "Reads that failed crc32c verification");
  inline_reads_ = &registry.GetCounter(
      "ecstore_osd_inline_reads_total",
      "Reads run on the network thread instead of a worker (osd_inline_read_max_size)");
  inline_writes_ = &registry.GetCounter(
      "ecstore_osd_inline_writes_total",
      "Small shard writes run on the thread that received them instead of a worker "
      "(osd_inline_write_max_size)");
  inflight_ =
      &registry.GetGauge("ecstore_osd_inflight_ops", "Operations received and not yet answered");
}

void OpAccounting::Account(Op op, const Status& s, Clock::time_point start, std::uint64_t in,
                           std::uint64_t out) {
  PerOp& m = ops_[static_cast<std::size_t>(op)];
  m.ops->Inc();
  m.bytes_in->Inc(in);
  m.bytes_out->Inc(out);
  m.latency->ObserveDuration(Clock::now() - start);
  if (s.ok()) return;
  switch (s.error_class()) {
    case Status::Class::kDataLoss:
      m.data_loss->Inc();
      checksum_errors_->Inc();
      log_->error("{} failed: {}", OpName(op), s.message());
      break;
    case Status::Class::kRetryable:
      m.retryable->Inc();
      break;
    default:
      m.errors->Inc();
      break;
  }
}

void OpAccounting::AccountDataLoss(Op op, const Status& s) {
  checksum_errors_->Inc();
  log_->error("{} failed: {}", OpName(op), s.message());
}

nlohmann::json OpAccounting::OpsJson() const {
  nlohmann::json ops = nlohmann::json::object();
  for (int op = 0; op < kOpCount; ++op) {
    const PerOp& m = ops_[op];
    ops[kOpNames[op]] = {
        {"completed", m.ops->Value()},
        {"errors", m.errors->Value() + m.data_loss->Value() + m.retryable->Value()}};
  }
  return ops;
}

}  // namespace ec::osd::shard
