// A PG's state as Ceph names it: a set of flags with Ceph's bits (osd_types.h PG_STATE_*),
// written as Ceph's pg_state_string writes them, "+"-joined in one fixed order whatever order they
// were set in:
//
//   creating active clean recovery_wait recovering down undersized degraded remapped scrubbing
//   deep inconsistent peering repair backfill_wait backfilling incomplete peered
//
// ("active+recovering+undersized+degraded+remapped", "undersized+degraded+peered",
// "active+clean+scrubbing+deep+inconsistent"); no flag at all is "unknown". The PG primary
// composes its PGs' states with these (osd/pg/pg_table.h), and `ec-admin -s` reads them back to
// tell which health check a PG belongs to (cluster/admin/status_report.h): a PG is available only
// when `active`; `peering`, `down`, `incomplete` and every state without `active` (`peered`,
// `unknown`) are PG_AVAILABILITY's, `degraded` and `undersized` PG_DEGRADED's.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ec::cluster {

// Ceph's bit values, so that a set of them orders as Ceph's health summaries order their parts
// ("N pgs inactive, M pgs down, P pgs peering, Q pgs incomplete").
namespace pg_state {
inline constexpr std::uint64_t kCreating = 1ull << 0;
inline constexpr std::uint64_t kActive = 1ull << 1;
inline constexpr std::uint64_t kClean = 1ull << 2;
inline constexpr std::uint64_t kDown = 1ull << 4;
inline constexpr std::uint64_t kScrubbing = 1ull << 8;
inline constexpr std::uint64_t kDegraded = 1ull << 10;
inline constexpr std::uint64_t kInconsistent = 1ull << 11;
inline constexpr std::uint64_t kPeering = 1ull << 12;
inline constexpr std::uint64_t kRepair = 1ull << 13;
inline constexpr std::uint64_t kRecovering = 1ull << 14;
inline constexpr std::uint64_t kBackfillWait = 1ull << 15;
inline constexpr std::uint64_t kIncomplete = 1ull << 16;
inline constexpr std::uint64_t kRemapped = 1ull << 18;
inline constexpr std::uint64_t kDeepScrub = 1ull << 19;
inline constexpr std::uint64_t kBackfilling = 1ull << 20;
inline constexpr std::uint64_t kRecoveryWait = 1ull << 22;
inline constexpr std::uint64_t kUndersized = 1ull << 23;
inline constexpr std::uint64_t kPeered = 1ull << 25;
}  // namespace pg_state

// The flags in Ceph's order, "+"-joined; "unknown" for none. Bits this file does not name are
// left out.
std::string PgStateString(std::uint64_t flags);

// The flags of a state string ("active+undersized+degraded"): every "+"-separated word must be
// one of the names above, in any order; "unknown" is no flag. nullopt for an empty string, an
// empty word or a word this file does not name.
std::optional<std::uint64_t> ParsePgState(std::string_view state);

}  // namespace ec::cluster
