// OSD performance figures that each OSD reports through etcd, for `ec-admin osd perf` (Ceph's
// commit_latency_ms / apply_latency_ms). Not part of the map (no epoch bump): each OSD overwrites
// its own key with its PG stats, every osd_mon_report_interval.
//
//   <prefix>osdperf/<osd id>  {"v":1,"osd":3,"stamp_ms":...,"commit_latency_ms":0.84,
//                              "apply_latency_ms":0.84,"ops":120}
//
// Latencies are means in ms over the OSD's last report interval (0 when it served no write then);
// `ops` is the writes they are the mean of. Decoding is strict: exactly these fields, "v" 1, osd
// and stamp_ms and ops non-negative integers that fit, latencies finite numbers in 0..1e9;
// anything else is EBADMSG naming the key.
//
// LatencyWindow: the mean of a cumulative (count, sum) pair over the change since the previous
// call, as a histogram gives them (common/metrics.h).
//
// Thread safety: pure functions and calls on a thread-safe etcd::Client; LatencyWindow is one
// caller's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

struct OsdPerf {
  int osd = 0;
  std::int64_t stamp_ms = 0;  // wall clock of the report
  double commit_latency_ms = 0;
  double apply_latency_ms = 0;
  std::int64_t ops = 0;
  bool operator==(const OsdPerf&) const = default;
};

std::string OsdPerfKey(std::string_view prefix, int osd);
std::string EncodeOsdPerf(const OsdPerf& perf);
// Errors: EBADMSG "bad osd perf at <key>: <what>".
Result<OsdPerf> DecodeOsdPerf(std::string_view key, std::string_view value);
Status PublishOsdPerf(const etcd::Client& client, std::string_view prefix, const OsdPerf& perf);
// Every report under the prefix by OSD id (reports that do not decode, or whose osd differs from
// the key's, are left out).
Result<std::map<int, OsdPerf>> LoadOsdPerf(const etcd::Client& client, std::string_view prefix);

class LatencyWindow {
 public:
  // `count` and `sum_seconds`: the cumulative totals now. Returns the mean in ms of what was
  // added since the previous call (the first call: since 0), 0 when nothing was; *ops_out (if not
  // null) the count added. Totals that went backwards start a new window.
  double Next(std::uint64_t count, double sum_seconds, std::int64_t* ops_out = nullptr);

 private:
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace ec::cluster
