// ValidateRequest (messages.h): the semantic checks of a decoded request that the server makes
// before the handler sees it.
#include <fmt/format.h>

#include <cstdint>

#include "msg/messages.h"
#include "msg/xattrs.h"

namespace ec::msg {

namespace {

Status CheckObjectName(const std::string& object, const Limits& limits) {
  if (object.empty()) return Status::Invalid("empty object name");
  if (object.size() > limits.max_name_len) {
    return Status::Invalid(
        fmt::format("object name of {} bytes (at most {})", object.size(), limits.max_name_len));
  }
  return Status::OK();
}

// The extents say where the payload's bytes go: they must account for every byte of it.
Status ValidateSubWrite(const SubWriteRequest& m, std::uint64_t payload_len, const Limits& limits) {
  if (m.kind == SubWriteKind::kRemove && (!m.extents.empty() || payload_len != 0)) {
    return Status::Invalid(
        fmt::format("remove with {} extents and {} payload bytes", m.extents.size(), payload_len));
  }
  if (m.kind == SubWriteKind::kRepair && (m.version == 0 || m.version != m.prev_version)) {
    return Status::Invalid(fmt::format("repair of version {} from prev_version {} (must be equal)",
                                       m.version, m.prev_version));
  }
  if (m.extents.size() > limits.max_extents) {
    return Status::Invalid(
        fmt::format("{} extents (at most {})", m.extents.size(), limits.max_extents));
  }
  // The versions recorded with the shard must give the shard itself the write's version: else
  // resolve would count the shard as behind the object it was just written for.
  if (!m.versions.empty() && m.kind != SubWriteKind::kRemove) {
    if (m.shard >= m.versions.size() || m.versions[m.shard] != m.version) {
      return Status::Invalid(fmt::format("versions of {} positions do not give shard {} version {}",
                                         m.versions.size(), m.shard, m.version));
    }
  }
  if (m.meta != SubWriteMeta::kReplace && !m.xattrs.empty()) {
    return Status::Invalid(fmt::format("{} xattrs without meta kReplace", m.xattrs.size()));
  }
  EC_RETURN_IF_ERROR(CheckXattrSet(m.xattrs));
  std::uint64_t total = 0;
  bool over = false;
  for (const ByteExtent& e : m.extents) {
    if (e.offset > UINT64_MAX - e.length) {
      return Status::Invalid(fmt::format("extent {}+{} overflows", e.offset, e.length));
    }
    // Compared with what is left, so that the sum cannot wrap.
    if (e.length > payload_len - total) over = true;
    if (!over) total += e.length;
  }
  if (over || total != payload_len) {
    return Status::Invalid(fmt::format("extents cover {}{} bytes but the payload has {}",
                                       over ? "more than " : "", over ? payload_len : total,
                                       payload_len));
  }
  return Status::OK();
}

Status CheckShardPosition(std::uint32_t shard, std::string_view what) {
  if (shard >= kMaxShardPositions) {
    return Status::Invalid(fmt::format("{} {} (at most {})", what, shard, kMaxShardPositions - 1));
  }
  return Status::OK();
}

Status ValidateSubPull(const SubPullRequest& m, const Limits& limits) {
  EC_RETURN_IF_ERROR(CheckShardPosition(m.shard, "shard"));
  if (m.helpers.empty() || m.helpers.size() > kMaxPullHelpers) {
    return Status::Invalid(
        fmt::format("{} helpers (allowed 1..{})", m.helpers.size(), kMaxPullHelpers));
  }
  for (const SubPullHelper& h : m.helpers) {
    EC_RETURN_IF_ERROR(CheckShardPosition(h.shard, "helper shard"));
    if (h.osd < 0) return Status::Invalid(fmt::format("helper osd {}", h.osd));
  }
  if (m.mode == SubPullMode::kCopy && m.helpers[0].shard != m.shard) {
    return Status::Invalid(fmt::format("copy of shard {} from a helper holding shard {}", m.shard,
                                       m.helpers[0].shard));
  }
  if (m.objects.size() > limits.max_list_entries) {
    return Status::Invalid(
        fmt::format("{} objects (at most {})", m.objects.size(), limits.max_list_entries));
  }
  for (const SubPullObject& o : m.objects) {
    EC_RETURN_IF_ERROR(CheckObjectName(o.object, limits));
    if (o.version == 0) return Status::Invalid(fmt::format("object {}: version 0", o.object));
    if (m.mode == SubPullMode::kRepair && o.prev_version != o.version) {
      return Status::Invalid(fmt::format("repair of object {}: prev_version {} is not version {}",
                                         o.object, o.prev_version, o.version));
    }
  }
  return Status::OK();
}

// The change a client asks for, each name and value within the limits (the object's set after it
// is the primary's to check: msg/xattrs.h).
Status ValidateSetXattrs(const ObjSetXattrsRequest& m, std::uint64_t payload_len,
                         const Limits& limits) {
  EC_RETURN_IF_ERROR(CheckObjectName(m.object, limits));
  if (payload_len != 0) return Status::Invalid("ObjSetXattrs with a payload");
  if (m.set.size() > kMaxXattrs || m.remove.size() > kMaxXattrs) {
    return Status::Error(E2BIG, fmt::format("{} xattrs to set and {} to remove (at most {} each)",
                                            m.set.size(), m.remove.size(), kMaxXattrs));
  }
  EC_RETURN_IF_ERROR(CheckXattrSet(m.set));
  for (const std::string& name : m.remove) EC_RETURN_IF_ERROR(CheckXattr(name, 0));
  return Status::OK();
}

// Every item is a ReadShard of its own; their bytes all travel in one reply.
Status ValidateSubReadBatch(const SubReadBatchRequest& m, const Limits& limits,
                            std::uint64_t reply_payload_limit) {
  if (m.items.empty() || m.items.size() > limits.max_batch_items) {
    return Status::Invalid(
        fmt::format("{} items (allowed 1..{})", m.items.size(), limits.max_batch_items));
  }
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < m.items.size(); ++i) {
    const SubReadBatchItem& item = m.items[i];
    if (item.collection.empty() || item.object.empty()) {
      return Status::Invalid(fmt::format("item {}: empty collection or object name", i));
    }
    if (item.extents.empty() || item.extents.size() > limits.max_extents) {
      return Status::Invalid(fmt::format("item {}: {} extents (allowed 1..{})", i,
                                         item.extents.size(), limits.max_extents));
    }
    for (const ByteExtent& e : item.extents) {
      if (e.offset > UINT64_MAX - e.length) {
        return Status::Invalid(
            fmt::format("item {}: extent {}+{} overflows", i, e.offset, e.length));
      }
      // Compared with what is left, so that the sum cannot wrap.
      if (e.length > reply_payload_limit - total) {
        return Status::Error(
            EMSGSIZE, fmt::format("items total more than the reply limit {}", reply_payload_limit));
      }
      total += e.length;
    }
  }
  return Status::OK();
}

Status ValidateSubRepairChain(const SubRepairChainRequest& m, std::uint64_t payload_len,
                              std::uint64_t reply_payload_limit) {
  EC_RETURN_IF_ERROR(CheckShardPosition(m.lost, "lost shard"));
  if (m.version == 0) return Status::Invalid("a repair chain of version 0");
  if (m.hops.empty() || m.hops.size() > kMaxChainHops) {
    return Status::Invalid(fmt::format("{} hops (allowed 1..{})", m.hops.size(), kMaxChainHops));
  }
  std::vector<bool> seen(kMaxShardPositions, false);
  for (const SubRepairChainHop& h : m.hops) {
    EC_RETURN_IF_ERROR(CheckShardPosition(h.shard, "hop shard"));
    if (h.osd < 0) return Status::Invalid(fmt::format("hop osd {}", h.osd));
    if (h.shard == m.lost) return Status::Invalid(fmt::format("hop at the lost shard {}", h.shard));
    if (seen[h.shard]) return Status::Invalid(fmt::format("two hops at shard {}", h.shard));
    seen[h.shard] = true;
  }
  if (m.hop >= m.hops.size()) {
    return Status::Invalid(fmt::format("hop {} of {} hops", m.hop, m.hops.size()));
  }
  if (m.stripes == 0 || m.length == 0) {
    return Status::Invalid(fmt::format("empty slice: {} stripes of {} bytes", m.stripes, m.length));
  }
  if (m.first_stripe > UINT64_MAX - m.stripes || m.offset > UINT64_MAX - m.length) {
    return Status::Invalid("slice overflows");
  }
  // The partial holds at least one sub-chunk's `length` bytes per stripe.
  if (m.length > reply_payload_limit / m.stripes) {
    return Status::Error(EMSGSIZE, fmt::format("slice of {} x {} bytes exceeds the reply limit {}",
                                               m.stripes, m.length, reply_payload_limit));
  }
  if (m.timeout_ms == 0) return Status::Invalid("a repair chain with no time to answer");
  if (payload_len != 0) {
    return Status::Invalid(
        fmt::format("a repair chain request with {} payload bytes", payload_len));
  }
  return Status::OK();
}

}  // namespace

Status ValidateRequest(const RequestBody& body, std::uint64_t payload_len, const Limits& limits,
                       std::uint64_t reply_payload_limit) {
  auto check_names = [](const std::string& coll, const std::string* object) -> Status {
    if (coll.empty()) return Status::Invalid("empty collection name");
    if (object && object->empty()) return Status::Invalid("empty object name");
    return Status::OK();
  };
  if (const auto* m = std::get_if<WriteShardRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
    if (m->offset > UINT64_MAX - payload_len) {
      return Status::Invalid(
          fmt::format("write offset {} + length {} overflows", m->offset, payload_len));
    }
  } else if (const auto* m = std::get_if<ReadShardRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
    if (m->extents.empty() || m->extents.size() > limits.max_extents) {
      return Status::Invalid(
          fmt::format("{} extents (allowed 1..{})", m->extents.size(), limits.max_extents));
    }
    std::uint64_t total = 0;
    for (const ByteExtent& e : m->extents) {
      if (e.offset > UINT64_MAX - e.length) {
        return Status::Invalid(fmt::format("extent {}+{} overflows", e.offset, e.length));
      }
      total += e.length;
      if (total > reply_payload_limit) {
        return Status::Error(EMSGSIZE, fmt::format("extents total more than the reply limit {}",
                                                   reply_payload_limit));
      }
    }
  } else if (const auto* m = std::get_if<StatRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<RemoveRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<ListRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, nullptr));
    if (m->max_entries == 0 || m->max_entries > limits.max_list_entries) {
      return Status::Invalid(
          fmt::format("max_entries {} (allowed 1..{})", m->max_entries, limits.max_list_entries));
    }
  } else if (const auto* m = std::get_if<SubWriteRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
    EC_RETURN_IF_ERROR(ValidateSubWrite(*m, payload_len, limits));
  } else if (const auto* m = std::get_if<SubResolveRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<SubStateRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<ObjWriteRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
    if (m->offset > UINT64_MAX - payload_len) {
      return Status::Invalid(
          fmt::format("write offset {} + length {} overflows", m->offset, payload_len));
    }
    if (m->offset != 0 && m->mode != ObjWriteMode::kWrite && m->mode != ObjWriteMode::kTruncate) {
      return Status::Invalid(
          fmt::format("offset {} with a mode other than write or truncate", m->offset));
    }
    if (m->mode == ObjWriteMode::kTruncate && payload_len != 0) {
      return Status::Invalid(fmt::format("truncate with {} payload bytes", payload_len));
    }
  } else if (const auto* m = std::get_if<ObjReadRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
    if (m->offset > UINT64_MAX - m->length) {
      return Status::Invalid(fmt::format("read {}+{} overflows", m->offset, m->length));
    }
    if (m->length > reply_payload_limit) {
      return Status::Error(EMSGSIZE, fmt::format("read length {} exceeds the reply limit {}",
                                                 m->length, reply_payload_limit));
    }
  } else if (const auto* m = std::get_if<ObjDirectReadRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
    EC_RETURN_IF_ERROR(CheckShardPosition(m->shard, "shard"));
    if (m->length == 0) return Status::Invalid("a direct read of 0 bytes");
    if (m->offset > UINT64_MAX - m->length) {
      return Status::Invalid(fmt::format("read {}+{} overflows", m->offset, m->length));
    }
    if (m->length > reply_payload_limit) {
      return Status::Error(EMSGSIZE, fmt::format("read length {} exceeds the reply limit {}",
                                                 m->length, reply_payload_limit));
    }
  } else if (const auto* m = std::get_if<ReadLeaseRequest>(&body)) {
    if (m->osd < 0) return Status::Invalid(fmt::format("osd {} is negative", m->osd));
    if (m->duration_ms == 0 || m->duration_ms > kMaxReadLeaseMs) {
      return Status::Invalid(
          fmt::format("lease of {} ms (allowed 1..{})", m->duration_ms, kMaxReadLeaseMs));
    }
    if (m->pgs.empty() || m->pgs.size() > limits.max_list_entries) {
      return Status::Invalid(
          fmt::format("{} pgs (allowed 1..{})", m->pgs.size(), limits.max_list_entries));
    }
  } else if (const auto* m = std::get_if<ObjStatRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
  } else if (const auto* m = std::get_if<ObjRemoveRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
  } else if (const auto* m = std::get_if<ObjSetXattrsRequest>(&body)) {
    EC_RETURN_IF_ERROR(ValidateSetXattrs(*m, payload_len, limits));
  } else if (const auto* m = std::get_if<ObjGetXattrsRequest>(&body)) {
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
  } else if (const auto* m = std::get_if<ObjListRequest>(&body)) {
    if (m->max_entries == 0 || m->max_entries > limits.max_list_entries) {
      return Status::Invalid(
          fmt::format("max_entries {} (allowed 1..{})", m->max_entries, limits.max_list_entries));
    }
  } else if (const auto* m = std::get_if<SubScanRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, nullptr));
    EC_RETURN_IF_ERROR(CheckShardPosition(m->shard, "shard"));
    if (m->max_entries == 0 || m->max_entries > limits.max_list_entries) {
      return Status::Invalid(
          fmt::format("max_entries {} (allowed 1..{})", m->max_entries, limits.max_list_entries));
    }
  } else if (const auto* m = std::get_if<SubPullRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, nullptr));
    EC_RETURN_IF_ERROR(ValidateSubPull(*m, limits));
  } else if (const auto* m = std::get_if<SubReadBatchRequest>(&body)) {
    EC_RETURN_IF_ERROR(ValidateSubReadBatch(*m, limits, reply_payload_limit));
  } else if (const auto* m = std::get_if<SubRepairChainRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, nullptr));
    EC_RETURN_IF_ERROR(CheckObjectName(m->object, limits));
    EC_RETURN_IF_ERROR(ValidateSubRepairChain(*m, payload_len, reply_payload_limit));
  } else if (const auto* m = std::get_if<PingRequest>(&body)) {
    if (m->response_len > reply_payload_limit) {
      return Status::Error(EMSGSIZE, fmt::format("response_len {} exceeds the reply limit {}",
                                                 m->response_len, reply_payload_limit));
    }
  }
  return Status::OK();
}

}  // namespace ec::msg
