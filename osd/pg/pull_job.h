// Internal to PullService (pull_service.cc, pull_object.cc, pull_prefetch.cc): one SubPull being
// served, and what its objects' pulls share.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "msg/client.h"
#include "msg/messages.h"
#include "osd/pg/osd_shard_source.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/repair_chain.h"
#include "recovery/read_plan.h"
#include "recovery/repair_engine.h"

namespace ec::osd::pg {

// The version position `position` of `o` is at: o.versions' entry for it, or o.version for an
// object written whole (msg/messages.h "Versions").
inline std::uint64_t PulledVersion(const msg::SubPullObject& o, int position) {
  if (o.versions.empty() || position < 0 || static_cast<std::size_t>(position) >= o.versions.size())
    return o.version;
  return o.versions[static_cast<std::size_t>(position)];
}

// The code `o` is stored with (issue 30 item 2): the pool's, or its small objects' copies
// (PoolCodec::replicas) for o.form kReplicas. Its positions past the code's chunks (a small
// object's empty shards) store nothing: their pull only writes the empty shard.
inline const PoolCodec& CodecOf(const PoolCodec& pool, const msg::SubPullObject& o) {
  return pool.ForForm(o.form);
}

// Position -> version for the positions of `o` not at o.version
// (OsdShardSource::Options::expect_versions).
inline std::map<int, std::uint64_t> HelperVersions(const msg::SubPullObject& o) {
  std::map<int, std::uint64_t> out;
  for (std::size_t p = 0; p < o.versions.size(); ++p) {
    if (o.versions[p] != o.version) out[static_cast<int>(p)] = o.versions[p];
  }
  return out;
}

// Bytes fetched ahead for one object (pull_prefetch.h): one entry per request the object's pull
// will make first, with the bytes (slices of a batch reply) or the error the helper gave.
struct PrefetchedRead {
  int shard = 0;  // the position read (kCopy: the pulled shard itself)
  std::vector<recovery::Extent> extents;
  Status status;
  std::vector<Buffer> bytes;
};

// What the window's prefetch prepared for one object's pull: the engine request and its plan
// (kRebuild objects that need reading: planned once, here, and Run() starts from that plan), and
// the bytes fetched ahead for its first requests (empty when nothing was fetched).
struct PrefetchedObject {
  std::optional<recovery::RepairRequest> request;  // RebuildRequest(job, object, options)
  std::optional<recovery::RepairPlan> plan;        // RepairEngine::Plan(*request)
  std::vector<PrefetchedRead> reads;
  // When the fetch of its window began (unset: nothing was fetched ahead for it): its pull's time
  // (ecstore_recovery_pull_seconds) is counted from there, so that reading its helpers ahead is
  // part of it.
  std::optional<std::chrono::steady_clock::time_point> fetch_started;
};

struct PullJob {
  msg::SubPullRequest request;
  msg::Callback<msg::SubPullReply> done;  // called once, with the reply
  std::shared_ptr<const PoolCodec> codec;
  std::string pool_name;
  // Rebuild helpers: position -> its OSD. Copy sources (kCopy: helpers at the pulled position),
  // in the request's order.
  std::map<int, msg::OsdShardSource::Holder> holders;
  std::vector<msg::OsdShardSource::Holder> copy_from;
  std::vector<std::shared_ptr<msg::OsdClient>> clients;  // keeps the holders' clients alive
  std::string left_out;                                  // helpers not usable, for messages
  // OSD id -> its link's bytes/s (OsdEntry::network_bandwidth at the request's epoch; 0 or
  // absent: unknown), for this OSD and every helper: osd_repair_pipeline=auto's cost model.
  std::map<int, std::uint64_t> bandwidth;
  // The chains' plans (PullService's; thread safe), null: no chains. For the choice of auto in
  // the prefetch (pull_object.h ChainChosen).
  ChainPlans* plans = nullptr;

  // The objects run a window at a time: [window_first, window_end), each with what was fetched
  // for it (prefetched[i - window_first]), up to PullOptions::max_active at once, while the next
  // window [window_end, ahead_end) is fetched (ahead_ready once it is; window_done once the
  // running window's last object finished before that).
  std::mutex mu;  // guards the fields below; results[i] is written by the object's task only
  std::size_t window_first = 0;
  std::size_t window_end = 0;
  std::size_t next = 0;
  std::size_t finished = 0;
  std::vector<PrefetchedObject> prefetched;
  bool window_done = false;
  bool ahead_ready = false;
  std::size_t ahead_end = 0;
  std::vector<PrefetchedObject> ahead;
  std::vector<msg::SubPullResult> results;
};

}  // namespace ec::osd::pg
