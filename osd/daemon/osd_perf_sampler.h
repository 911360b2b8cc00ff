// OsdPerfSampler: this OSD's figures for `ec-admin osd perf` (cluster/map/osd_perf.h), taken from
// the op latency histograms of its metrics registry (osd/shard/op_accounting.h): the mean latency
// of the writes it served as a shard (sub_write, and whole-object writes to it) since the previous
// sample, received to answered with the data durable on its device. ecstore's store applies and
// commits in one step, so commit and apply latency are the same figure.
//
// Thread safety: Sample from one thread at a time (the PG stats publisher's).
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/map/osd_perf.h"
#include "common/metrics.h"

namespace ec::osd::daemon {

class OsdPerfSampler {
 public:
  // `registry` must outlive the sampler.
  explicit OsdPerfSampler(MetricsRegistry& registry);
  // The report of OSD `osd` now (stamp_ms: the wall clock to put in it).
  cluster::OsdPerf Sample(int osd, std::int64_t stamp_ms);

 private:
  std::vector<const Histogram*> writes_;
  cluster::LatencyWindow window_;
};

}  // namespace ec::osd::daemon
