#include "osd/shard/osd_service.h"

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <set>
#include <variant>

#include "osd/shard/interval_fence.h"
#include "osd/shard/op_accounting.h"
#include "osd/shard/op_dispatch.h"
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

// Forwards the reply of a request handed to another handler, accounting it as `op` when it is
// sent (or, if the handler drops it unanswered, as the EIO the inner responder then sends).
class AccountedResponder : public msg::Responder {
 public:
  AccountedResponder(std::shared_ptr<msg::Responder> inner, OpAccounting* accounting, Op op,
                     Clock::time_point start, std::uint64_t in)
      : msg::Responder(inner->request_type(), inner->tag()),
        inner_(std::move(inner)),
        accounting_(accounting),
        op_(op),
        start_(start),
        in_(in) {}
  ~AccountedResponder() override {
    if (!sent()) {
      accounting_->Account(op_, Status::IOError("request dropped by the handler"), start_, in_, 0);
    }
  }

 protected:
  Status Deliver(msg::ReplyBody body, std::vector<Buffer> payload) override {
    std::uint64_t out = 0;
    for (const Buffer& b : payload) out += b.size();
    Status status = msg::StatusOf(body);
    Status sent = inner_->Send(std::move(body), std::move(payload));
    accounting_->Account(op_, status.ok() ? sent : status, start_, in_, out);
    return sent;
  }

 private:
  std::shared_ptr<msg::Responder> inner_;
  OpAccounting* accounting_;
  Op op_;
  Clock::time_point start_;
  std::uint64_t in_;
};

}  // namespace

struct OsdService::Impl {
  store::ObjectStore* store;
  std::shared_ptr<spdlog::logger> log;
  OsdServiceOptions options;
  Clock::time_point started = Clock::now();
  OpAccounting accounting;
  OpDispatcher dispatcher;
  // Sub-operations from a PG's earlier interval are refused (interval_fence.h).
  IntervalFence fence;
  Counter* fenced = nullptr;

  // Collections known to exist: only ever those the store has (at start, or once a write that
  // created one has committed), so a write that fails records nothing.
  mutable std::mutex collections_mu;
  std::set<std::string, std::less<>> collections;

  Impl(store::ObjectStore* s, MetricsRegistry* registry, std::shared_ptr<spdlog::logger> logger,
       OsdServiceOptions opts)
      : store(s),
        log(logger ? std::move(logger) : spdlog::default_logger()),
        options(opts),
        accounting(*registry, log),
        dispatcher(opts.worker_threads, opts.inline_read_max_bytes, &accounting.inflight(),
                   &accounting.inline_reads(), opts.recovery_threads, opts.recovery_nice) {
    fenced = &registry->GetCounter(
        "ecstore_osd_fenced_subops_total",
        "PG sub-operations refused because a newer primary had peered the PG", {});
    if (!dispatcher.background_nice_status().ok()) {
      log->warn("recovery reads run at the clients' priority: {}",
                dispatcher.background_nice_status().message());
    }
    auto listed = store->ListCollections();
    if (listed.ok()) collections.insert(listed->begin(), listed->end());
  }

  bool CollectionKnown(const std::string& coll) const {
    std::lock_guard lock(collections_mu);
    return collections.count(coll) != 0;
  }
  void NoteCollection(const std::string& coll) {
    std::lock_guard lock(collections_mu);
    collections.insert(coll);
  }

  // Sends `body` (and `payload`), accounting the operation. A Send failure (the reply did not fit
  // the client's limits) has already been answered with an error reply by the messenger.
  void Reply(Op op, msg::Responder& responder, Clock::time_point start, std::uint64_t in,
             msg::ReplyBody body, std::vector<Buffer> payload = {}) {
    std::uint64_t out = 0;
    for (const Buffer& b : payload) out += b.size();
    Status status = msg::StatusOf(body);
    Status sent = responder.Send(std::move(body), std::move(payload));
    if (!sent.ok()) {
      log->warn("{} reply not sent as built: {}", OpName(op), sent.message());
      if (status.ok()) status = sent;
    }
    accounting.Account(op, status, start, in, out);
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
    auto transaction = [&](bool create) {
      store::Transaction t;
      if (create) t.CreateCollection(w.collection);
      t.Touch(w.collection, name);
      if (replace) t.Truncate(w.collection, name, 0);
      if (!data.empty()) t.Write(w.collection, name, w.offset, data);
      t.SetAttr(w.collection, name, kShardMetaAttr, encoded);
      return t;
    };
    // The collection is created in the write's own transaction, so that a write the store refuses
    // creates nothing. EEXIST: another write created it meanwhile (the store ordered the two);
    // then the write goes ahead without creating it.
    const bool create = !CollectionKnown(w.collection);
    Status s = store->Apply(transaction(create));
    if (create && s.code() == EEXIST) s = store->Apply(transaction(false));
    if (s.ok()) NoteCollection(w.collection);
    return s;
  }

  void Read(const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    const auto& r = std::get<msg::ReadShardRequest>(req.body);
    std::vector<store::Extent> extents;
    extents.reserve(r.extents.size());
    for (const msg::ByteExtent& e : r.extents) extents.push_back({e.offset, e.length});
    auto got = store->ReadWithAttr(r.collection, ShardObjectName(r.object, r.shard), extents,
                                   kShardMetaAttr);
    auto meta = got.ok() ? MetaOf(got->attr) : Result<ShardMeta>(got.status());
    if (!meta.ok()) {
      return Reply(Op::kRead, responder, start, 0,
                   msg::ErrorReply(msg::MsgType::kReadShard, meta.status()));
    }
    msg::ReadShardReply reply;
    reply.object_size = got->size;
    reply.version = meta->version;
    reply.lengths.reserve(got->extents.size());
    for (const Buffer& b : got->extents) reply.lengths.push_back(b.size());
    Reply(Op::kRead, responder, start, 0, std::move(reply), std::move(got->extents));
  }

  // Each item as Read would answer it, plus the version check; one store read per item (each
  // item's data, size and version come from one lookup of that shard, so never mixed).
  void ReadBatch(const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    const auto& r = std::get<msg::SubReadBatchRequest>(req.body);
    msg::SubReadBatchReply reply;
    reply.results.resize(r.items.size());
    std::vector<Buffer> payload;
    std::vector<store::Extent> extents;
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      const msg::SubReadBatchItem& item = r.items[i];
      msg::SubReadBatchResult& res = reply.results[i];
      extents.clear();
      for (const msg::ByteExtent& e : item.extents) extents.push_back({e.offset, e.length});
      auto got = store->ReadWithAttr(item.collection, ShardObjectName(item.object, item.shard),
                                     extents, kShardMetaAttr);
      auto meta = got.ok() ? MetaOf(got->attr) : Result<ShardMeta>(got.status());
      if (!meta.ok()) {
        res.status = meta.status();
        // Checksum failures are counted as a failed read's are, item by item.
        if (res.status.is_data_loss()) accounting.AccountDataLoss(Op::kSubReadBatch, res.status);
        continue;
      }
      res.object_size = got->size;
      res.version = meta->version;
      if (item.expect_version != 0 && meta->version != item.expect_version) {
        res.status = Status::Error(
            ESTALE, fmt::format("shard {}/{}#{} is at version {}, not {}", item.collection,
                                item.object, item.shard, meta->version, item.expect_version));
        continue;
      }
      res.lengths.reserve(got->extents.size());
      for (Buffer& b : got->extents) {
        res.lengths.push_back(b.size());
        payload.push_back(std::move(b));
      }
    }
    Reply(Op::kSubReadBatch, responder, start, 0, std::move(reply), std::move(payload));
  }

  void Stat(const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    const auto& r = std::get<msg::StatRequest>(req.body);
    auto got =
        store->ReadWithAttr(r.collection, ShardObjectName(r.object, r.shard), {}, kShardMetaAttr);
    auto meta = got.ok() ? MetaOf(got->attr) : Result<ShardMeta>(got.status());
    if (!meta.ok()) {
      return Reply(Op::kStat, responder, start, 0,
                   msg::ErrorReply(msg::MsgType::kStat, meta.status()));
    }
    msg::StatReply reply;
    reply.size = got->size;
    reply.version = meta->version;
    reply.attrs = std::move(meta->attrs);
    Reply(Op::kStat, responder, start, 0, std::move(reply));
  }

  void List(const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    const auto& r = std::get<msg::ListRequest>(req.body);
    msg::ListReply reply;
    std::string after = r.cursor;
    // Ask for one more than the page to know whether the page is the last; names that are not
    // shards are skipped, so keep going until the page is full or the collection ends.
    while (reply.entries.size() < r.max_entries) {
      const std::size_t want = r.max_entries - reply.entries.size() + 1;
      auto names = store->List(r.collection, after, want);
      if (!names.ok()) {
        return Reply(Op::kList, responder, start, 0,
                     msg::ErrorReply(msg::MsgType::kList, names.status()));
      }
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
    Reply(Op::kList, responder, start, 0, std::move(reply));
  }

  // Admits a sub-operation of `collection` sent at `epoch` (interval_fence.h); a refusal is
  // counted and logged.
  Result<IntervalFence::Guard> Admit(const std::string& collection, std::uint64_t epoch,
                                     const char* what) {
    auto admitted = fence.Admit(collection, epoch, what);
    if (!admitted.ok()) {
      fenced->Inc();
      log->warn("refused: {}", admitted.status().message());
    }
    return admitted;
  }

  // Runs one operation other than Ping (on a worker, or inline for a small read).
  void Run(Op op, const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    switch (op) {
      case Op::kWrite: {
        Status s = Write(std::get<msg::WriteShardRequest>(req.body), req.payload);
        return Reply(op, responder, start, req.payload.size(), msg::WriteShardReply{s});
      }
      case Op::kRead:
        return Read(req, responder, start);
      case Op::kStat:
        return Stat(req, responder, start);
      case Op::kList:
        return List(req, responder, start);
      case Op::kRemove: {
        const auto& r = std::get<msg::RemoveRequest>(req.body);
        store::Transaction t;
        t.Remove(r.collection, ShardObjectName(r.object, r.shard));
        return Reply(op, responder, start, 0, msg::RemoveReply{store->Apply(t)});
      }
      case Op::kSubWrite: {
        const auto& w = std::get<msg::SubWriteRequest>(req.body);
        auto admitted = Admit(w.collection, w.epoch, "SubWrite");
        if (!admitted.ok()) {
          return Reply(op, responder, start, req.payload.size(),
                       msg::SubWriteReply{admitted.status()});
        }
        const bool create = !CollectionKnown(w.collection);
        Status s = ApplySubWrite(*store, w, req.payload, create);
        if (create && s.code() == EEXIST) s = ApplySubWrite(*store, w, req.payload, false);
        if (s.ok()) NoteCollection(w.collection);
        return Reply(op, responder, start, req.payload.size(), msg::SubWriteReply{s});
      }
      case Op::kSubResolve: {
        const auto& r = std::get<msg::SubResolveRequest>(req.body);
        msg::SubResolveReply reply;
        auto admitted = Admit(r.collection, r.epoch, "SubResolve");
        if (!admitted.ok()) {
          reply.status = admitted.status();
          return Reply(op, responder, start, 0, std::move(reply));
        }
        auto v = ApplySubResolve(*store, r);
        if (v.ok()) {
          reply.version = *v;
        } else {
          reply.status = v.status();
        }
        return Reply(op, responder, start, 0, std::move(reply));
      }
      case Op::kSubState: {
        auto st = ReadSubState(*store, std::get<msg::SubStateRequest>(req.body));
        if (!st.ok()) {
          return Reply(op, responder, start, 0,
                       msg::ErrorReply(msg::MsgType::kSubState, st.status()));
        }
        return Reply(op, responder, start, 0, std::move(st).value());
      }
      case Op::kSubScan: {
        const auto& r = std::get<msg::SubScanRequest>(req.body);
        // Before the page is read: what older primaries still send is refused from here on, and
        // what they had admitted has finished (the page shows it).
        fence.Raise(r.collection, r.epoch);
        auto page = ScanShards(*store, r);
        if (!page.ok()) {
          return Reply(op, responder, start, 0,
                       msg::ErrorReply(msg::MsgType::kSubScan, page.status()));
        }
        return Reply(op, responder, start, 0, std::move(page).value());
      }
      case Op::kSubReadBatch:
        return ReadBatch(req, responder, start);
      case Op::kPing:
      case Op::kSubPull:
        return;  // answered on the calling thread (OsdService::Handle)
    }
  }

  // A Ping answers at once with `response_len` bytes: slices of one shared zero buffer, so that
  // a bulk reply costs no allocation or copy.
  void Ping(const msg::Request& req, msg::Responder& responder, Clock::time_point start) {
    const auto& p = std::get<msg::PingRequest>(req.body);
    std::vector<Buffer> payload;
    std::uint64_t left = p.response_len;
    const Buffer& zeros = Zeros();
    while (left > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
      payload.push_back(zeros.Slice(0, n));
      left -= n;
    }
    Reply(Op::kPing, responder, start, req.payload.size(), msg::PingReply{}, std::move(payload));
  }

  static const Buffer& Zeros() {
    static const Buffer zeros = Buffer::Allocate(1 << 20, true);
    return zeros;
  }
};

OsdService::OsdService(store::ObjectStore* store, MetricsRegistry* metrics,
                       std::shared_ptr<spdlog::logger> logger, OsdServiceOptions options)
    : impl_(std::make_unique<Impl>(store, metrics, std::move(logger), options)) {}

OsdService::~OsdService() {
  impl_->dispatcher.Join();
}

void OsdService::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  const auto start = Clock::now();
  const msg::MsgType type = msg::TypeOf(request.body);
  if (type >= msg::MsgType::kObjWrite && type <= msg::MsgType::kObjList) {
    // Object operations are the PG primary's: they wait on other OSDs, never on a store worker.
    if (impl_->options.objects != nullptr) {
      return impl_->options.objects->Handle(std::move(request), std::move(responder));
    }
    (void)responder->SendError(Status::Error(
        ENOTSUP, "object operations need an OSD in a cluster (etcd_endpoints is not set)"));
    return;
  }
  const Op op = OpOf(request.body);
  if (op == Op::kPing) return impl_->Ping(request, *responder, start);
  if (op == Op::kSubPull) {
    // A pull waits on other OSDs (the helpers), never on a store worker: its handler queues it.
    const std::uint64_t in = request.payload.size();
    auto accounted = std::make_shared<AccountedResponder>(std::move(responder), &impl_->accounting,
                                                          op, start, in);
    // A pull from an earlier interval is refused here; one admitted writes each shard it rebuilds
    // through a SubWrite at its epoch, which is fenced again then.
    const auto& pull = std::get<msg::SubPullRequest>(request.body);
    if (auto admitted = impl_->Admit(pull.collection, pull.epoch, "SubPull"); !admitted.ok()) {
      (void)accounted->SendError(admitted.status());
      return;
    }
    if (impl_->options.recovery != nullptr) {
      return impl_->options.recovery->Handle(std::move(request), std::move(accounted));
    }
    (void)accounted->SendError(
        Status::Error(ENOTSUP, "SubPull needs an OSD in a cluster (etcd_endpoints is not set)"));
    return;
  }
  Impl* impl = impl_.get();
  if (op == Op::kRead) {
    const auto bytes = TotalLength(std::get<msg::ReadShardRequest>(request.body).extents);
    // The caller is the only thread handing requests over and nothing else is in flight, so
    // nothing else touches this shard meanwhile: the order a strand gives, without the two thread
    // hand-offs (to a worker and back to the messenger), which cost more than a small read.
    const bool ran = impl->dispatcher.RunInline(bytes, request.more_queued, start, [&] {
      impl->Run(op, request, *responder, start);
      responder.reset();
    });
    if (ran) return;
  }
  if (op == Op::kSubReadBatch) {
    // Only recovery sends batches (another OSD pulling shards): behind the client operations, on
    // the background threads (op_dispatch.h).
    impl->dispatcher.PostBackground(
        [impl, op, start, req = std::move(request), r = std::move(responder)]() mutable {
          impl->Run(op, req, *r, start);
          r.reset();
        });
    return;
  }
  // The shard a request names picks its strand (see the header: per-shard order).
  const std::size_t key = ShardKey(request.body);
  impl->dispatcher.Post(key, [impl, op, start, req = std::move(request),
                              r = std::move(responder)]() mutable {
    impl->Run(op, req, *r, start);
    r.reset();  // a responder dropped unanswered replies EIO before the operation counts as done
  });
}

void OsdService::Drain() {
  impl_->dispatcher.Drain();
}

nlohmann::json OsdService::StatusJson() const {
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
  j["checksum_errors"] = impl_->accounting.checksum_errors();
  return j;
}

}  // namespace ec::osd::shard
