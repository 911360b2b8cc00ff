#include "osd/shard/shard_service.h"

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <mutex>
#include <set>

#include "osd/shard/op_dispatch.h"
#include "osd/shard/shard_meta.h"
#include "osd/shard/sub_ops.h"
#include "osd/store/transaction.h"

namespace ec::osd::shard {
namespace {

using Clock = std::chrono::steady_clock;

// The shard's metadata from its "_meta" attribute; none (a shard written by something else, or
// not yet) is version 0 with no attributes.
Result<ShardMeta> MetaOf(const std::optional<std::string>& attr) {
  if (!attr) return ShardMeta{};
  return DecodeShardMeta(*attr);
}

std::uint64_t TotalLength(const std::vector<msg::ByteExtent>& extents) {
  std::uint64_t bytes = 0;
  for (const msg::ByteExtent& e : extents) bytes += e.length;
  return bytes;
}

std::vector<store::Extent> StoreExtents(const std::vector<msg::ByteExtent>& extents) {
  std::vector<store::Extent> out;
  out.reserve(extents.size());
  for (const msg::ByteExtent& e : extents) out.push_back({e.offset, e.length});
  return out;
}

}  // namespace

struct ShardService::Impl {
  store::ObjectStore* store;
  std::shared_ptr<spdlog::logger> log;
  ShardServiceOptions options;
  Clock::time_point started = Clock::now();
  OpAccounting accounting;
  OpDispatcher dispatcher;
  // Sub-operations from a PG's earlier interval are refused (interval_fence.h).
  IntervalFence fence;
  Counter* fenced = nullptr;
  std::array<Counter*, kOpCount> local{};

  // Collections known to exist: only ever those the store has (at start, or once a write that
  // created one has committed), so a write that fails records nothing.
  mutable std::mutex collections_mu;
  std::set<std::string, std::less<>> collections;

  Impl(store::ObjectStore* s, MetricsRegistry* registry, std::shared_ptr<spdlog::logger> logger,
       ShardServiceOptions opts)
      : store(s),
        log(logger ? std::move(logger) : spdlog::default_logger()),
        options(opts),
        accounting(*registry, log),
        dispatcher(opts.worker_threads, opts.inline_read_max_bytes, &accounting.inflight(),
                   &accounting.inline_reads(), opts.recovery_threads, opts.recovery_nice,
                   "shard-worker") {
    fenced = &registry->GetCounter(
        "ecstore_osd_fenced_subops_total",
        "PG sub-operations refused because a newer primary had peered the PG", {});
    for (int op = 0; op < kOpCount; ++op) {
      local[static_cast<std::size_t>(op)] = &registry->GetCounter(
          "ecstore_osd_local_subops_total",
          "Shard operations called in process (the primary's own shard, rebuilt shards), "
          "without a message",
          {{"op", OpName(static_cast<Op>(op))}});
    }
    if (!dispatcher.background_nice_status().ok()) {
      log->warn("recovery reads run at the clients' priority: {}",
                dispatcher.background_nice_status().message());
    }
    auto listed = store->ListCollections();
    if (listed.ok()) collections.insert(listed->begin(), listed->end());
  }

  void Count(Op op, Caller caller) {
    if (caller == Caller::kLocal) local[static_cast<std::size_t>(op)]->Inc();
  }

  bool CollectionKnown(const std::string& coll) const {
    std::lock_guard lock(collections_mu);
    return collections.count(coll) != 0;
  }
  void NoteCollection(const std::string& coll) {
    std::lock_guard lock(collections_mu);
    collections.insert(coll);
  }

  // Applies the transaction `make(create)` builds, creating the collection in it when it is not
  // known to exist: a write the store refuses then creates nothing. EEXIST: another write created
  // it meanwhile (the store ordered the two); the write goes ahead without creating it.
  template <typename Apply>
  Status WithCollection(const std::string& collection, Apply apply) {
    const bool create = !CollectionKnown(collection);
    Status s = apply(create);
    if (create && s.code() == EEXIST) s = apply(false);
    if (s.ok()) NoteCollection(collection);
    return s;
  }

  // At log_level debug, every shard change and its outcome: what a race between a primary's
  // writes, rollbacks and pulls did to one object is then in the logs, shard by shard. TraceName
  // is the write's part of the line (empty unless debug is on, so that a write costs nothing
  // more otherwise), TraceWrite logs it with the outcome.
  std::string TraceName(const msg::SubWriteRequest& w) const {
    if (!log->should_log(spdlog::level::debug)) return {};
    return fmt::format("SubWrite {}/{}#{} version {} prev {} kind {} epoch {} object size {}",
                       w.collection, w.object, w.shard, w.version, w.prev_version,
                       static_cast<int>(w.kind), w.epoch, w.object_size);
  }
  void TraceWrite(const std::string& name, const Status& s) {
    if (!name.empty()) log->debug("{}: {}", name, s.ok() ? "ok" : s.ToString());
  }
  void TraceResolve(const msg::SubResolveRequest& r, const Result<std::uint64_t>& now) {
    if (!log->should_log(spdlog::level::debug)) return;
    log->debug("SubResolve {}/{}#{} {} version {} epoch {}: {}", r.collection, r.object, r.shard,
               r.action == msg::SubResolveAction::kRollback ? "rollback" : "trim", r.version,
               r.epoch, now.ok() ? fmt::format("now at {}", *now) : now.status().ToString());
  }

  // Admits a sub-operation of `collection` sent at `epoch` (interval_fence.h): the guard holds
  // off a scan raising the fence until the operation is done. A refusal is counted and logged.
  Result<IntervalFence::Guard> Admit(const std::string& collection, std::uint64_t epoch,
                                     const char* what) {
    auto admitted = fence.Admit(collection, epoch, what);
    if (!admitted.ok()) {
      fenced->Inc();
      log->warn("refused: {}", admitted.status().message());
    }
    return admitted;
  }

  Status Write(const msg::WriteShardRequest& w, const Buffer& data) {
    const std::string name = ShardObjectName(w.object, w.shard);
    const bool replace = (w.flags & msg::kWriteReplace) != 0;
    ShardMeta meta;
    if (!replace) {
      auto old = store->ReadWithAttr(w.collection, name, {}, kShardMetaAttr);
      if (old.ok()) {
        auto decoded = MetaOf(old->attr);
        if (!decoded.ok()) return decoded.status();
        meta = std::move(decoded).value();
      } else if (old.status().code() != ENOENT) {
        return old.status();
      }
    }
    meta.version = w.version;
    for (const msg::Attr& a : w.attrs) {
      auto it = std::find_if(meta.attrs.begin(), meta.attrs.end(),
                             [&](const msg::Attr& x) { return x.key == a.key; });
      if (it != meta.attrs.end()) {
        it->value = a.value;
      } else {
        meta.attrs.push_back(a);
      }
    }
    // Stat must be able to return every attribute in one reply.
    if (meta.attrs.size() > msg::Limits{}.max_attrs) {
      return Status::Error(E2BIG, "shard " + name + " would have more than " +
                                      std::to_string(msg::Limits{}.max_attrs) + " attributes");
    }
    const std::string encoded = EncodeShardMeta(meta);
    return WithCollection(w.collection, [&](bool create) {
      store::Transaction t;
      if (create) t.CreateCollection(w.collection);
      t.Touch(w.collection, name);
      if (replace) t.Truncate(w.collection, name, 0);
      if (!data.empty()) t.Write(w.collection, name, w.offset, data);
      t.SetAttr(w.collection, name, kShardMetaAttr, encoded);
      return store->Apply(t);
    });
  }

  Result<ShardRead> ReadNow(const std::string& collection, const std::string& object,
                            std::uint32_t shard, std::span<const store::Extent> extents) {
    auto got = store->ReadWithAttr(collection, ShardObjectName(object, shard),
                                   std::vector<store::Extent>(extents.begin(), extents.end()),
                                   kShardMetaAttr);
    if (!got.ok()) return got.status();
    auto meta = MetaOf(got->attr);
    if (!meta.ok()) return meta.status();
    ShardRead out;
    out.size = got->size;
    out.version = meta->version;
    out.object_size = ObjectSizeOf(*meta);
    out.extents = std::move(got->extents);
    return out;
  }

  // Each item as a Read would answer it, plus the version check; one store read per item (each
  // item's data, size and version come from one lookup of that shard, so never mixed).
  std::vector<msg::ReadBatchItem> ReadBatch(const msg::SubReadBatchRequest& r) {
    std::vector<msg::ReadBatchItem> out(r.items.size());
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      const msg::SubReadBatchItem& item = r.items[i];
      msg::ReadBatchItem& res = out[i];
      const std::vector<store::Extent> extents = StoreExtents(item.extents);
      auto got = ReadNow(item.collection, item.object, item.shard, extents);
      if (!got.ok()) {
        res.status = got.status();
        // Checksum failures are counted as a failed read's are, item by item.
        if (res.status.is_data_loss()) accounting.AccountDataLoss(Op::kSubReadBatch, res.status);
        continue;
      }
      res.object_size = got->size;
      res.version = got->version;
      if (item.expect_version != 0 && got->version != item.expect_version) {
        res.status = Status::Error(
            ESTALE, fmt::format("shard {}/{}#{} is at version {}, not {}", item.collection,
                                item.object, item.shard, got->version, item.expect_version));
        continue;
      }
      res.extents = std::move(got->extents);
    }
    return out;
  }

  Result<msg::StatReply> Stat(const msg::StatRequest& r) {
    auto got =
        store->ReadWithAttr(r.collection, ShardObjectName(r.object, r.shard), {}, kShardMetaAttr);
    if (!got.ok()) return got.status();
    auto meta = MetaOf(got->attr);
    if (!meta.ok()) return meta.status();
    msg::StatReply reply;
    reply.size = got->size;
    reply.version = meta->version;
    reply.attrs = std::move(meta->attrs);
    return reply;
  }

  Result<msg::ListReply> List(const msg::ListRequest& r) {
    msg::ListReply reply;
    std::string after = r.cursor;
    // Ask for one more than the page to know whether the page is the last; names that are not
    // shards are skipped, so keep going until the page is full or the collection ends.
    while (reply.entries.size() < r.max_entries) {
      const std::size_t want = r.max_entries - reply.entries.size() + 1;
      auto names = store->List(r.collection, after, want);
      if (!names.ok()) return names.status();
      reply.end = names->size() < want;
      for (const std::string& n : *names) {
        if (reply.entries.size() == r.max_entries) {
          reply.end = false;
          break;
        }
        after = n;
        msg::ListEntry e;
        if (ParseShardObjectName(n, &e.object, &e.shard)) reply.entries.push_back(e);
      }
      if (reply.end) break;
    }
    reply.next_cursor = reply.end ? std::string() : after;
    return reply;
  }

  // Starts `w` on the calling thread and completes it when its commit group does, when it is
  // small (inline_write_max_bytes), not a repair, its collection exists and nothing of its strand
  // is in flight: then takes `done` and returns true. The strand stays held (what is posted to it
  // waits) and the interval fence admitted until the commit; `done` runs on the thread that
  // commits (or on this one for a write refused before it is queued).
  bool StartAsyncWrite(std::size_t key, const msg::SubWriteRequest& w, const Buffer& data,
                       StatusDone& done) {
    if (data.size() > options.inline_write_max_bytes || w.kind == msg::SubWriteKind::kRepair ||
        !CollectionKnown(w.collection) || !dispatcher.Hold(key)) {
      return false;
    }
    accounting.inline_writes().Inc();
    auto finish = [this, key, trace = TraceName(w), d = std::move(done)](Status s) mutable {
      TraceWrite(trace, s);
      d(std::move(s));
      dispatcher.Release(key);
    };
    auto admitted = Admit(w.collection, w.epoch, "SubWrite");
    if (!admitted.ok()) {
      finish(admitted.status());
      return true;
    }
    auto built = BuildSubWrite(*store, w, data, false);
    if (!built.ok() || !built->has_value()) {
      finish(built.ok() ? Status::OK() : built.status());  // refused, or a retried write
      return true;
    }
    // The fence's guard lives until the commit: a scan raising the fence waits for this write.
    auto guard = std::make_shared<IntervalFence::Guard>(std::move(admitted).value());
    store->ApplyAsync(**built, [guard, finish = std::move(finish)](Status s) mutable {
      finish(std::move(s));
      guard.reset();
    });
    return true;
  }

  Status SubWrite(const msg::SubWriteRequest& w, const Buffer& data) {
    return WithCollection(w.collection,
                          [&](bool create) { return ApplySubWrite(*store, w, data, create); });
  }
};

ShardService::ShardService(store::ObjectStore* store, MetricsRegistry* metrics,
                           std::shared_ptr<spdlog::logger> logger, ShardServiceOptions options)
    : impl_(std::make_unique<Impl>(store, metrics, std::move(logger), options)) {}

ShardService::~ShardService() {
  impl_->dispatcher.Join();
}

void ShardService::SubWrite(msg::SubWriteRequest request, Buffer data, StatusDone done,
                            Caller caller, InlineHint hint) {
  impl_->Count(Op::kSubWrite, caller);
  Impl* impl = impl_.get();
  auto run = [impl](const msg::SubWriteRequest& r, const Buffer& data, StatusDone& d) {
    // Admitted on the strand (or as its inline operation), so that a SubScan raising the fence
    // meanwhile waits for this write (interval_fence.h): the scan's page shows it, or the write is
    // refused.
    auto admitted = impl->Admit(r.collection, r.epoch, "SubWrite");
    Status s = admitted.ok() ? impl->SubWrite(r, data) : admitted.status();
    impl->TraceWrite(impl->TraceName(r), s);
    d(std::move(s));
  };
  const std::size_t key = ShardKeyOf(request);
  if (hint.may_inline) {
    // Nothing else in flight: this thread waits for the device itself, which saves the hand-off
    // to a worker and the wake-up of this (or the messenger's) thread for the reply.
    const bool ran = impl->dispatcher.RunInline(
        key, data.size(), hint.more_queued, Clock::now(), [&] { run(request, data, done); },
        impl->options.inline_write_max_bytes);
    if (ran) {
      impl->accounting.inline_writes().Inc();
      return;
    }
    // Other operations in flight, but none on this shard: start the write here and let it
    // complete when its commit group does (the store's commit thread answers), so that many
    // writes share a commit without a worker each waiting for it.
    if (impl->StartAsyncWrite(key, request, data, done)) return;
  }
  impl->dispatcher.Post(key, [run, r = std::move(request), data = std::move(data),
                              done = std::move(done)]() mutable { run(r, data, done); });
}

void ShardService::SubResolve(msg::SubResolveRequest request, Done<std::uint64_t> done,
                              Caller caller) {
  impl_->Count(Op::kSubResolve, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    auto admitted = impl->Admit(r.collection, r.epoch, "SubResolve");
    Result<std::uint64_t> now =
        admitted.ok() ? ApplySubResolve(*impl->store, r) : Result<std::uint64_t>(admitted.status());
    impl->TraceResolve(r, now);
    done(std::move(now));
  });
}

void ShardService::SubState(msg::SubStateRequest request, Done<msg::SubStateReply> done,
                            Caller caller) {
  impl_->Count(Op::kSubState, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    done(ReadSubState(*impl->store, r));
  });
}

void ShardService::SubScan(msg::SubScanRequest request, Done<msg::SubScanReply> done,
                           Caller caller) {
  impl_->Count(Op::kSubScan, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    // Before the page is read: what older primaries still send is refused from here on, and
    // what they had admitted has finished (the page shows it).
    impl->fence.Raise(r.collection, r.epoch);
    done(ScanShards(*impl->store, r));
  });
}

void ShardService::ReadBatch(msg::SubReadBatchRequest request,
                             Done<std::vector<msg::ReadBatchItem>> done, Caller caller) {
  impl_->Count(Op::kSubReadBatch, caller);
  Impl* impl = impl_.get();
  // Only recovery reads in batches: behind the client operations, on the background threads.
  impl->dispatcher.PostBackground([impl, r = std::move(request), done = std::move(done)]() mutable {
    done(impl->ReadBatch(r));
  });
}

void ShardService::Write(msg::WriteShardRequest request, Buffer data, StatusDone done,
                         Caller caller, InlineHint hint) {
  impl_->Count(Op::kWrite, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  if (hint.may_inline) {
    // As SubWrite's.
    const bool ran = impl->dispatcher.RunInline(
        key, data.size(), hint.more_queued, Clock::now(), [&] { done(impl->Write(request, data)); },
        impl->options.inline_write_max_bytes);
    if (ran) {
      impl->accounting.inline_writes().Inc();
      return;
    }
  }
  impl->dispatcher.Post(key, [impl, r = std::move(request), data = std::move(data),
                              done = std::move(done)]() mutable { done(impl->Write(r, data)); });
}

void ShardService::Read(msg::ReadShardRequest request, InlineHint hint, Done<ShardRead> done,
                        Caller caller) {
  impl_->Count(Op::kRead, caller);
  Impl* impl = impl_.get();
  auto run = [impl](const msg::ReadShardRequest& r, Done<ShardRead>& d) {
    const std::vector<store::Extent> extents = StoreExtents(r.extents);
    d(impl->ReadNow(r.collection, r.object, r.shard, extents));
  };
  if (hint.may_inline) {
    // The caller is the only thread handing operations over and nothing else is in flight, so
    // nothing else touches this shard meanwhile: the order a strand gives, without the two thread
    // hand-offs (to a worker and back), which cost more than a small read.
    const bool ran =
        impl->dispatcher.RunInline(ShardKeyOf(request), TotalLength(request.extents),
                                   hint.more_queued, Clock::now(), [&] { run(request, done); });
    if (ran) return;
  }
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(
      key, [run, r = std::move(request), done = std::move(done)]() mutable { run(r, done); });
}

void ShardService::Stat(msg::StatRequest request, Done<msg::StatReply> done, Caller caller) {
  impl_->Count(Op::kStat, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    done(impl->Stat(r));
  });
}

void ShardService::List(msg::ListRequest request, Done<msg::ListReply> done, Caller caller) {
  impl_->Count(Op::kList, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    done(impl->List(r));
  });
}

void ShardService::Remove(msg::RemoveRequest request, StatusDone done, Caller caller) {
  impl_->Count(Op::kRemove, caller);
  Impl* impl = impl_.get();
  const std::size_t key = ShardKeyOf(request);
  impl->dispatcher.Post(key, [impl, r = std::move(request), done = std::move(done)]() mutable {
    store::Transaction t;
    t.Remove(r.collection, ShardObjectName(r.object, r.shard));
    done(impl->store->Apply(t));
  });
}

Result<ShardRead> ShardService::ReadNow(const std::string& collection, const std::string& object,
                                        std::uint32_t shard,
                                        std::span<const store::Extent> extents) {
  impl_->Count(Op::kRead, Caller::kLocal);
  return impl_->ReadNow(collection, object, shard, extents);
}

Result<msg::SubStateReply> ShardService::StateNow(const msg::SubStateRequest& request) {
  impl_->Count(Op::kSubState, Caller::kLocal);
  return ReadSubState(*impl_->store, request);
}

std::uint64_t ShardService::FenceOf(const std::string& collection) const {
  return impl_->fence.FenceOf(collection);
}

Status ShardService::Admit(const std::string& collection, std::uint64_t epoch, const char* what) {
  return impl_->Admit(collection, epoch, what).status();
}

void ShardService::Drain() {
  impl_->dispatcher.Drain();
}

nlohmann::json ShardService::StatusJson() const {
  nlohmann::json j;
  j["osd"] = impl_->options.osd_id;
  j["uptime_seconds"] = std::chrono::duration<double>(Clock::now() - impl_->started).count();
  j["store"] = {{"device_bytes", impl_->store->device_bytes()},
                {"free_bytes", impl_->store->free_bytes()}};
  j["inflight_ops"] = impl_->dispatcher.inflight();
  {
    std::lock_guard lock(impl_->collections_mu);
    j["collections"] = impl_->collections.size();
  }
  j["ops"] = impl_->accounting.OpsJson();
  j["local_ops"] = local_calls();
  j["checksum_errors"] = impl_->accounting.checksum_errors();
  return j;
}

OpAccounting& ShardService::accounting() {
  return impl_->accounting;
}

std::uint64_t ShardService::local_calls() const {
  std::uint64_t n = 0;
  for (const Counter* c : impl_->local) n += c->Value();
  return n;
}

}  // namespace ec::osd::shard
