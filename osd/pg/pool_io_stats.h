// PoolIoStats: the client operations a PG primary served, by pool: reads and writes with their
// payload bytes (a read counts the bytes it returned, a write the bytes it was given), cumulative
// since the OSD process started. For the OSD's stats report (cluster/map/osd_stats.h): `ec-rados
// df`'s RD_OPS, RD, WR_OPS, WR and the client rates of `ec-admin -s`; and the time they took, from
// the request received to its reply queued (queue time included), summed in nanoseconds: Ceph's
// op_r_latency and op_w_latency (sum over count) in the cluster exporter.
//
// Only successful operations count (Ceph's pool stats count ops the primary completed).
//
// Thread safety: every method may be called from any thread; a Snapshot taken while others count
// sees each count at some moment during the call.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

namespace ec::osd::pg {

struct PoolIo {
  std::uint64_t rd = 0, rd_bytes = 0, wr = 0, wr_bytes = 0;
  std::uint64_t rd_ns = 0, wr_ns = 0;  // the operations' summed latency
  bool operator==(const PoolIo&) const = default;
};

class PoolIoStats {
 public:
  // One operation of `bytes` that took `latency` (negative counts as 0).
  void Read(std::int64_t pool_id, std::uint64_t bytes, std::chrono::nanoseconds latency) {
    std::lock_guard lock(mu_);
    PoolIo& p = pools_[pool_id];
    ++p.rd;
    p.rd_bytes += bytes;
    p.rd_ns += Ns(latency);
  }
  void Write(std::int64_t pool_id, std::uint64_t bytes, std::chrono::nanoseconds latency) {
    std::lock_guard lock(mu_);
    PoolIo& p = pools_[pool_id];
    ++p.wr;
    p.wr_bytes += bytes;
    p.wr_ns += Ns(latency);
  }
  // Every pool that served an operation, by id.
  std::map<std::int64_t, PoolIo> Snapshot() const {
    std::lock_guard lock(mu_);
    return pools_;
  }

 private:
  static std::uint64_t Ns(std::chrono::nanoseconds d) {
    return d.count() < 0 ? 0 : static_cast<std::uint64_t>(d.count());
  }
  mutable std::mutex mu_;
  std::map<std::int64_t, PoolIo> pools_;
};

}  // namespace ec::osd::pg
