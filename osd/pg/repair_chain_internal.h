// Internal to the repair chains (repair_chain.cc: the requester; repair_chain_hop.cc: a hop's
// ChainService): the version a hop's shard must be at and the counters both sides keep
// (repair_chain.h names them).
#pragma once

#include <cstdint>

#include "common/metrics.h"
#include "msg/messages.h"

namespace ec::osd::pg {

// The version position `position` of an object must be at (msg/messages.h "Versions").
inline std::uint64_t ChainHopVersion(const msg::ShardVersions& versions, std::uint64_t version,
                                     std::uint32_t position) {
  if (position < versions.size()) return versions[position];
  return version;
}

// role "hop": partials received from a predecessor (in) and sent back (out); role "requester":
// the finished partials (the lost chunks' bytes) this OSD received for its own rebuilds.
inline Counter& ChainBytes(MetricsRegistry& m, const char* role, const char* dir) {
  return m.GetCounter("ecstore_repair_chain_bytes_total",
                      "Partial bytes of pipelined repairs this OSD received (in) and sent (out), "
                      "as a hop or as the rebuilding OSD (requester)",
                      {{"role", role}, {"dir", dir}});
}

inline Counter& ChainSlices(MetricsRegistry& m, bool ok) {
  return m.GetCounter("ecstore_repair_chain_slices_total",
                      "Slices of pipelined repairs this OSD requested, by result",
                      {{"result", ok ? "ok" : "failed"}});
}

inline Counter& ChainStages(MetricsRegistry& m, bool ok) {
  return m.GetCounter("ecstore_repair_chain_stages_total",
                      "Hops of pipelined repairs this OSD served, by result",
                      {{"result", ok ? "ok" : "failed"}});
}

}  // namespace ec::osd::pg
