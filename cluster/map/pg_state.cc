#include "cluster/map/pg_state.h"

namespace ec::cluster {
namespace {

struct Name {
  std::uint64_t flag;
  std::string_view name;
};

// Ceph's pg_state_string order (not the bits' order).
constexpr Name kNames[] = {
    {pg_state::kCreating, "creating"},
    {pg_state::kActive, "active"},
    {pg_state::kClean, "clean"},
    {pg_state::kRecoveryWait, "recovery_wait"},
    {pg_state::kRecovering, "recovering"},
    {pg_state::kDown, "down"},
    {pg_state::kUndersized, "undersized"},
    {pg_state::kDegraded, "degraded"},
    {pg_state::kRemapped, "remapped"},
    {pg_state::kScrubbing, "scrubbing"},
    {pg_state::kDeepScrub, "deep"},
    {pg_state::kInconsistent, "inconsistent"},
    {pg_state::kPeering, "peering"},
    {pg_state::kRepair, "repair"},
    {pg_state::kBackfillWait, "backfill_wait"},
    {pg_state::kBackfilling, "backfilling"},
    {pg_state::kIncomplete, "incomplete"},
    {pg_state::kPeered, "peered"},
};

}  // namespace

std::string PgStateString(std::uint64_t flags) {
  std::string out;
  for (const Name& n : kNames) {
    if ((flags & n.flag) == 0) continue;
    if (!out.empty()) out += '+';
    out += n.name;
  }
  return out.empty() ? "unknown" : out;
}

std::optional<std::uint64_t> ParsePgState(std::string_view state) {
  if (state.empty()) return std::nullopt;
  std::uint64_t flags = 0;
  for (;;) {
    const std::size_t plus = state.find('+');
    const std::string_view word = state.substr(0, plus);
    bool known = word == "unknown";
    for (const Name& n : kNames) {
      if (word == n.name) {
        flags |= n.flag;
        known = true;
        break;
      }
    }
    if (!known) return std::nullopt;
    if (plus == std::string_view::npos) return flags;
    state.remove_prefix(plus + 1);
  }
}

}  // namespace ec::cluster
