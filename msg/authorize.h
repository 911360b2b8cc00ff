// Authorize: what an authenticated peer may ask of an OSD (issue 32 item 2). The server
// (server.h) asks it of every request on a connection that authenticated with cephx, before the
// request's own checks and before the handler sees it; a refusal is an error reply (EACCES, the
// connection stays open) counted by reason in ServerCounters::auth_refusals.
//
//   request                                      who may send it
//   Ping                                         anyone authenticated (OSDs' heartbeats, which
//                                                authenticate as osd.N; ec-osd-client ping)
//   WriteShard ... SubReadBatch (3..13),         osd.N only (OSDs' sub-operations and shard
//     ReadLease (15), SubRepairChain (24)        operations: AuthRefusal::kNotOsd otherwise)
//   ObjRead, ObjStat, ObjList, ObjGetXattrs,     osd.N, or caps with r on the pool
//     ObjDirectRead
//   ObjWrite, ObjRemove, ObjSetXattrs            osd.N, or caps with w on the pool
//
// A client's caps name pools; requests carry pool ids: `pool_name` maps one to its name in the
// OSD's map (null, or nullopt for an id it does not know: a client whose caps do not cover every
// pool is then refused Retryable ESTALE, "not in this OSD's map yet", so that it retries once the
// OSD has caught up, and never allowed on a guess). Caps that allow every pool need no name.
//
// Thread safety: a pure function (pool_name is called on the calling thread).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "msg/auth/caps.h"
#include "msg/messages.h"

namespace ec::msg {

// Why an authenticating server refused a connection or a request (ServerCounters, the OSD's
// ecstore_osd_auth_refusals_total{reason}).
enum class AuthRefusal : std::uint8_t {
  kNoAuth = 0,     // the client offered no authentication where cephx is required
  kUnknownEntity,  // no key for the entity it claims
  kBadProof,       // its proof does not match the key (wrong key, or a replayed handshake)
  kNotOsd,         // a sub-operation from an entity that is not an OSD
  kCaps,           // a pool its caps do not cover
  kCount,
};
// "no_auth", "unknown_entity", "bad_proof", "not_osd", "caps" (metric label values).
std::string_view AuthRefusalName(AuthRefusal why);

using PoolNameFn = std::function<std::optional<std::string>(std::uint64_t pool)>;

// OK, or EACCES (or Retryable ESTALE, above) naming the entity, the request and the reason;
// `*why` receives the reason of an EACCES. `caps` may be null (no osd caps).
Status Authorize(const RequestBody& body, std::string_view entity, const auth::OsdCaps* caps,
                 const PoolNameFn& pool_name, AuthRefusal* why);

}  // namespace ec::msg
