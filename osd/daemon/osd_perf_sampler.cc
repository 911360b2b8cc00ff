#include "osd/daemon/osd_perf_sampler.h"

namespace ec::osd::daemon {

OsdPerfSampler::OsdPerfSampler(MetricsRegistry& registry) {
  // The family op_accounting.cc registers (same name and help: the registry returns its child).
  for (const char* op : {"sub_write", "write"}) {
    writes_.push_back(&registry.GetHistogram("ecstore_osd_op_latency_seconds",
                                             "Time from request received to reply queued",
                                             {{"op", op}}));
  }
}

cluster::OsdPerf OsdPerfSampler::Sample(int osd, std::int64_t stamp_ms) {
  std::uint64_t count = 0;
  double sum = 0;
  for (const Histogram* h : writes_) {
    for (std::uint64_t c : h->BucketCounts()) count += c;
    sum += h->Sum();
  }
  cluster::OsdPerf p;
  p.osd = osd;
  p.stamp_ms = stamp_ms;
  p.commit_latency_ms = window_.Next(count, sum, &p.ops);
  p.apply_latency_ms = p.commit_latency_ms;
  return p;
}

}  // namespace ec::osd::daemon
