#include "tools/ec_rados/scrub_commands.h"

#include <cerrno>

#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"

namespace ec::tools::rados {

Result<std::string> CanonicalPgid(std::string_view text) {
  const auto id = cluster::ParsePgId(text);
  if (!id) return Status::Invalid("invalid pgid '" + std::string(text) + "'");
  return cluster::PgName(id->pool, id->pg);
}

Result<std::string> ListInconsistentObj(const etcd::Client& client, std::string_view prefix,
                                        std::string_view pgid_text, bool pretty) {
  Result<std::string> pgid = CanonicalPgid(pgid_text);
  if (!pgid.ok()) return pgid.status();
  const std::string key = cluster::ScrubResultKey(prefix, *pgid);
  Result<etcd::KeyValue> kv = client.Get(key);
  if (!kv.ok()) {
    if (kv.status().code() == ENOENT) {
      return Status::NotFound("No scrub information available for pg " + *pgid);
    }
    return kv.status();
  }
  Result<cluster::ScrubResult> result = cluster::DecodeScrubResult(key, kv->value);
  if (!result.ok()) return result.status();
  if (result->pgid != *pgid) {
    return Status::Error(
        EBADMSG, "bad scrub result at " + key + ": pgid '" + result->pgid + "' is not the key's");
  }
  return cluster::ListInconsistentObjJson(*result).dump(pretty ? 4 : -1) + "\n";
}

}  // namespace ec::tools::rados
