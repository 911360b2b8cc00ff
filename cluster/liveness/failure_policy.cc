#include "cluster/liveness/failure_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

namespace ec::cluster {
namespace {

bool UpIn(const ClusterMap& map, const std::set<int>& marked, int id) {
  const auto it = map.osds.find(id);
  return it != map.osds.end() && it->second.up && !marked.contains(id);
}

// The verdict on `target` from `reports`, with the OSDs in `marked` taken as down.
FailureVerdict Judge(const ClusterMap& map, const std::set<int>& marked, int target,
                     std::span<const FailureReport* const> reports, std::int64_t now_ms,
                     const FailurePolicy& policy) {
  FailureVerdict v;
  v.target = target;
  const std::int64_t grace = policy.grace.count();
  const std::int64_t up_stamp = map.osds.at(target).up_stamp_ms;
  std::set<int> reporters;
  std::set<std::string> hosts;
  std::int64_t latest_since = 0;
  for (const FailureReport* r : reports) {
    if (r->reporter == target || r->target_up_stamp_ms != up_stamp) continue;
    if (!UpIn(map, marked, r->reporter)) continue;
    if (r->stamp_ms < now_ms - grace || r->stamp_ms > now_ms + grace) continue;
    if (now_ms - r->failed_since_ms < grace) continue;
    if (!reporters.insert(r->reporter).second) continue;
    hosts.insert(map.osds.at(r->reporter).host);
    latest_since = std::max(latest_since, r->failed_since_ms);
  }
  v.reporters.assign(reporters.begin(), reporters.end());
  v.subtrees =
      static_cast<int>(policy.subtree == ReporterSubtree::kHost ? hosts.size() : reporters.size());
  v.failed_for_ms = v.reporters.empty() ? 0 : now_ms - latest_since;
  return v;
}

}  // namespace

Result<ReporterSubtree> ParseReporterSubtree(std::string_view text) {
  if (text == "osd") return ReporterSubtree::kOsd;
  if (text == "host") return ReporterSubtree::kHost;
  return Status::Invalid("mon_osd_reporter_subtree_level '" + std::string(text) +
                         "': expected osd or host");
}

std::string_view ReporterSubtreeName(ReporterSubtree subtree) {
  return subtree == ReporterSubtree::kHost ? "host" : "osd";
}

FailureDecision DecideFailures(const ClusterMap& map, std::span<const FailureReport> reports,
                               std::int64_t now_ms, const FailurePolicy& policy) {
  FailureDecision out;
  // Reports by target, of targets up in the map.
  std::map<int, std::vector<const FailureReport*>> by_target;
  for (const FailureReport& r : reports) {
    const auto it = map.osds.find(r.target);
    if (it != map.osds.end() && it->second.up) by_target[r.target].push_back(&r);
  }
  const int need = std::max(1, policy.min_down_reporters);
  std::size_t up = 0;
  for (const auto& [id, o] : map.osds) up += o.up ? 1 : 0;
  const double total = static_cast<double>(map.osds.size());
  std::set<int> marked;   // down by this decision
  std::set<int> decided;  // down or held
  while (true) {
    // The best-reported target not yet decided: most subtrees, then the lowest id.
    bool found = false;
    FailureVerdict best;
    for (const auto& [target, list] : by_target) {
      if (decided.contains(target)) continue;
      FailureVerdict v = Judge(map, marked, target, list, now_ms, policy);
      if (v.subtrees < need) continue;
      if (!found || v.subtrees > best.subtrees) {
        best = std::move(v);
        found = true;
      }
    }
    if (!found) break;
    decided.insert(best.target);
    const double up_ratio = static_cast<double>(up - marked.size()) / total;
    if (up_ratio < policy.min_up_ratio) {
      out.held.push_back(std::move(best));
      continue;
    }
    marked.insert(best.target);
    out.down.push_back(std::move(best));
  }
  return out;
}

std::string DescribeVerdict(const ClusterMap& map, const FailureVerdict& v,
                            const FailurePolicy& policy) {
  const auto it = map.osds.find(v.target);
  const std::string host = it == map.osds.end() ? std::string("?") : it->second.host;
  std::string who;
  for (int r : v.reporters) who += (who.empty() ? "osd." : ", osd.") + std::to_string(r);
  return fmt::format(
      "osd.{} failed (root=default,host={}) ({} reporter{} from different {} after {:.1f} >= "
      "grace {:.1f}: {})",
      v.target, host, v.subtrees, v.subtrees == 1 ? "" : "s", ReporterSubtreeName(policy.subtree),
      static_cast<double>(v.failed_for_ms) / 1000.0,
      static_cast<double>(policy.grace.count()) / 1000.0, who);
}

}  // namespace ec::cluster
