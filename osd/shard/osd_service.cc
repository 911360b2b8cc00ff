#include "osd/shard/osd_service.h"

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <variant>

#include "osd/shard/op_accounting.h"

namespace ec::osd::shard {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t Bytes(const std::vector<Buffer>& payload) {
  std::uint64_t out = 0;
  for (const Buffer& b : payload) out += b.size();
  return out;
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
    const std::uint64_t out = Bytes(payload);
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

struct OsdService::Impl : std::enable_shared_from_this<OsdService::Impl> {
  ShardService* shards;
  std::shared_ptr<spdlog::logger> log;
  OsdServiceOptions options;
  OpAccounting& accounting;
  Counter* self_messages;
  std::string self_name;

  Impl(ShardService* s, MetricsRegistry* registry, std::shared_ptr<spdlog::logger> logger,
       OsdServiceOptions opts)
      : shards(s),
        log(logger ? std::move(logger) : spdlog::default_logger()),
        options(opts),
        accounting(s->accounting()),
        self_messages(&registry->GetCounter(
            "ecstore_osd_self_messages_total",
            "PG sub-operations this OSD sent itself over the network (should stay 0: its own "
            "shard is reached in process)",
            {})),
        self_name(fmt::format("osd.{}", opts.osd_id)) {}

  // Sends `body` (and `payload`), accounting the operation. A Send failure (the reply did not fit
  // the client's limits) has already been answered with an error reply by the messenger.
  void Reply(Op op, msg::Responder& responder, Clock::time_point start, std::uint64_t in,
             msg::ReplyBody body, std::vector<Buffer> payload = {}) {
    const std::uint64_t out = Bytes(payload);
    Status status = msg::StatusOf(body);
    Status sent = responder.Send(std::move(body), std::move(payload));
    if (!sent.ok()) {
      log->warn("{} reply not sent as built: {}", OpName(op), sent.message());
      if (status.ok()) status = sent;
    }
    accounting.Account(op, status, start, in, out);
  }

  // The reply of `type` carrying `r`'s value (through `make`) or its error.
  template <typename T, typename Make>
  void ReplyResult(Op op, msg::MsgType type, msg::Responder& responder, Clock::time_point start,
                   Result<T> r, Make make) {
    if (!r.ok()) return Reply(op, responder, start, 0, msg::ErrorReply(type, r.status()));
    make(std::move(r).value());
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

  void Pull(msg::Request request, std::shared_ptr<msg::Responder> responder,
            Clock::time_point start) {
    // A pull waits on other OSDs (the helpers), never on a store worker: its handler queues it.
    const std::uint64_t in = request.payload.size();
    auto accounted = std::make_shared<AccountedResponder>(std::move(responder), &accounting,
                                                          Op::kSubPull, start, in);
    // A pull from an earlier interval is refused here; one admitted writes each shard it rebuilds
    // through a SubWrite at its epoch, which is fenced again then.
    const auto& pull = std::get<msg::SubPullRequest>(request.body);
    if (Status admitted = shards->Admit(pull.collection, pull.epoch, "SubPull"); !admitted.ok()) {
      (void)accounted->SendError(admitted);
      return;
    }
    if (options.recovery != nullptr) {
      return options.recovery->Handle(std::move(request), std::move(accounted));
    }
    (void)accounted->SendError(
        Status::Error(ENOTSUP, "SubPull needs an OSD in a cluster (etcd_endpoints is not set)"));
  }

  void Chain(msg::Request request, std::shared_ptr<msg::Responder> responder,
             Clock::time_point start) {
    // A hop waits on its predecessor in the chain (another OSD): its handler queues it.
    auto accounted = std::make_shared<AccountedResponder>(
        std::move(responder), &accounting, Op::kSubRepairChain, start, request.payload.size());
    const auto& chain = std::get<msg::SubRepairChainRequest>(request.body);
    if (Status admitted = shards->Admit(chain.collection, chain.epoch, "SubRepairChain");
        !admitted.ok()) {
      (void)accounted->Send(msg::SubRepairChainReply{admitted, -1, 0});
      return;
    }
    if (options.chain != nullptr) {
      return options.chain->Handle(std::move(request), std::move(accounted));
    }
    (void)accounted->SendError(Status::Error(
        ENOTSUP, "SubRepairChain needs an OSD in a cluster (etcd_endpoints is not set)"));
  }

  // Hands a shard operation to the ShardService; the reply is sent from its completion.
  void Shard(Op op, msg::Request req, std::shared_ptr<msg::Responder> responder,
             Clock::time_point start) {
    const std::uint64_t in = req.payload.size();
    using R = std::shared_ptr<msg::Responder>;
    const Caller net = Caller::kNetwork;
    switch (op) {
      case Op::kWrite:
        return shards->Write(
            std::get<msg::WriteShardRequest>(std::move(req.body)), std::move(req.payload),
            [this, self = shared_from_this(), r = R(responder), start, in](Status s) {
              Reply(Op::kWrite, *r, start, in, msg::WriteShardReply{std::move(s)});
            },
            net, InlineHint{true, req.more_queued});
      case Op::kRead: {
        InlineHint hint{options.single_io_thread, req.more_queued};
        return shards->Read(
            std::get<msg::ReadShardRequest>(std::move(req.body)), hint,
            [this, self = shared_from_this(), r = R(responder), start](Result<ShardRead> got) {
              ReplyResult(Op::kRead, msg::MsgType::kReadShard, *r, start, std::move(got),
                          [&](ShardRead read) {
                            msg::ReadShardReply reply;
                            reply.object_size = read.size;
                            reply.version = read.version;
                            reply.lengths.reserve(read.extents.size());
                            for (const Buffer& b : read.extents) reply.lengths.push_back(b.size());
                            Reply(Op::kRead, *r, start, 0, std::move(reply),
                                  std::move(read.extents));
                          });
            },
            net);
      }
      case Op::kStat:
        return shards->Stat(
            std::get<msg::StatRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder), start](Result<msg::StatReply> got) {
              ReplyResult(Op::kStat, msg::MsgType::kStat, *r, start, std::move(got),
                          [&](msg::StatReply s) { Reply(Op::kStat, *r, start, 0, std::move(s)); });
            },
            net);
      case Op::kList:
        return shards->List(
            std::get<msg::ListRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder), start](Result<msg::ListReply> got) {
              ReplyResult(Op::kList, msg::MsgType::kList, *r, start, std::move(got),
                          [&](msg::ListReply l) { Reply(Op::kList, *r, start, 0, std::move(l)); });
            },
            net);
      case Op::kRemove:
        return shards->Remove(
            std::get<msg::RemoveRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder), start](Status s) {
              Reply(Op::kRemove, *r, start, 0, msg::RemoveReply{std::move(s)});
            },
            net);
      case Op::kSubWrite:
        return shards->SubWrite(
            std::get<msg::SubWriteRequest>(std::move(req.body)), std::move(req.payload),
            [this, self = shared_from_this(), r = R(responder), start, in](Status s) {
              Reply(Op::kSubWrite, *r, start, in, msg::SubWriteReply{std::move(s)});
            },
            net, InlineHint{true, req.more_queued});
      case Op::kSubResolve:
        return shards->SubResolve(
            std::get<msg::SubResolveRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder), start](Result<std::uint64_t> v) {
              msg::SubResolveReply reply;
              if (v.ok()) {
                reply.version = *v;
              } else {
                reply.status = v.status();
              }
              Reply(Op::kSubResolve, *r, start, 0, std::move(reply));
            },
            net);
      case Op::kSubState:
        return shards->SubState(
            std::get<msg::SubStateRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder),
             start](Result<msg::SubStateReply> got) {
              ReplyResult(
                  Op::kSubState, msg::MsgType::kSubState, *r, start, std::move(got),
                  [&](msg::SubStateReply s) { Reply(Op::kSubState, *r, start, 0, std::move(s)); });
            },
            net);
      case Op::kSubScan:
        return shards->SubScan(
            std::get<msg::SubScanRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder),
             start](Result<msg::SubScanReply> got) {
              ReplyResult(
                  Op::kSubScan, msg::MsgType::kSubScan, *r, start, std::move(got),
                  [&](msg::SubScanReply s) { Reply(Op::kSubScan, *r, start, 0, std::move(s)); });
            },
            net);
      case Op::kSubReadBatch:
        return shards->ReadBatch(
            std::get<msg::SubReadBatchRequest>(std::move(req.body)),
            [this, self = shared_from_this(), r = R(responder),
             start](Result<std::vector<msg::ReadBatchItem>> got) {
              ReplyResult(Op::kSubReadBatch, msg::MsgType::kSubReadBatch, *r, start, std::move(got),
                          [&](std::vector<msg::ReadBatchItem> items) {
                            msg::SubReadBatchReply reply;
                            std::vector<Buffer> payload;
                            reply.results.resize(items.size());
                            for (std::size_t i = 0; i < items.size(); ++i) {
                              msg::SubReadBatchResult& res = reply.results[i];
                              res.status = std::move(items[i].status);
                              res.object_size = items[i].object_size;
                              res.version = items[i].version;
                              res.lengths.reserve(items[i].extents.size());
                              for (Buffer& b : items[i].extents) {
                                res.lengths.push_back(b.size());
                                payload.push_back(std::move(b));
                              }
                            }
                            Reply(Op::kSubReadBatch, *r, start, 0, std::move(reply),
                                  std::move(payload));
                          });
            },
            net);
      case Op::kPing:
      case Op::kSubPull:
      case Op::kSubRepairChain:
        return;  // answered by Handle
    }
  }
};

OsdService::OsdService(ShardService* shards, MetricsRegistry* metrics,
                       std::shared_ptr<spdlog::logger> logger, OsdServiceOptions options)
    : impl_(std::make_shared<Impl>(shards, metrics, std::move(logger), options)) {}

OsdService::~OsdService() = default;

void OsdService::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  const auto start = Clock::now();
  const msg::MsgType type = msg::TypeOf(request.body);
  if ((type >= msg::MsgType::kObjWrite && type <= msg::MsgType::kObjGetXattrs) ||
      type == msg::MsgType::kObjDirectRead || type == msg::MsgType::kReadLease) {
    // Object operations are the PG primary's: they wait on other OSDs, never on a store worker.
    // Direct reads and read leases go there too: both need the map and the PGs' leases.
    if (impl_->options.objects != nullptr) {
      return impl_->options.objects->Handle(std::move(request), std::move(responder));
    }
    (void)responder->SendError(Status::Error(
        ENOTSUP, "object operations need an OSD in a cluster (etcd_endpoints is not set)"));
    return;
  }
  const Op op = OpOf(request.body);
  if (op == Op::kPing) return impl_->Ping(request, *responder, start);
  if (op >= Op::kSubWrite && request.peer_name == impl_->self_name) impl_->self_messages->Inc();
  if (op == Op::kSubPull) return impl_->Pull(std::move(request), std::move(responder), start);
  if (op == Op::kSubRepairChain) {
    return impl_->Chain(std::move(request), std::move(responder), start);
  }
  impl_->Shard(op, std::move(request), std::move(responder), start);
}

std::uint64_t OsdService::self_messages() const {
  return impl_->self_messages->Value();
}

}  // namespace ec::osd::shard
