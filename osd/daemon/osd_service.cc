#include "osd/daemon/osd_service.h"

#include <spdlog/logger.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <variant>

#include "osd/store/transaction.h"

namespace ec::osd {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kMetaAttr = "_meta";
// Inline reads (OsdServiceOptions::inline_read_max_bytes): a request handled less than
// kInlineMinGap after the previous inline reply was queued behind it; overlapping requests turn
// inline reads off for kInlineBackoff.
constexpr std::chrono::microseconds kInlineMinGap{5};
constexpr std::chrono::milliseconds kInlineBackoff{5};
// Strands spread shards over the workers; more strands than workers so that two busy shards
// rarely share one (which would serialise them for nothing).
constexpr std::size_t kStrands = 256;

enum Op { kPing, kWrite, kRead, kStat, kList, kRemove, kOpCount };
constexpr std::array<const char*, kOpCount> kOpNames = {"ping", "write", "read",
                                                        "stat", "list",  "remove"};

Op OpOf(const net::RequestBody& body) {
  return std::visit(
      [](const auto& m) -> Op {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, net::PingRequest>) return kPing;
        if constexpr (std::is_same_v<T, net::WriteShardRequest>) return kWrite;
        if constexpr (std::is_same_v<T, net::ReadShardRequest>) return kRead;
        if constexpr (std::is_same_v<T, net::StatRequest>) return kStat;
        if constexpr (std::is_same_v<T, net::ListRequest>) return kList;
        return kRemove;
      },
      body);
}

// Little-endian helpers for the "_meta" attribute.
void PutU64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutString(std::string& out, const std::string& s) {
  PutU32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

class MetaReader {
 public:
  explicit MetaReader(const std::string& bytes) : bytes_(bytes) {}
  bool U64(std::uint64_t* v) {
    if (bytes_.size() - pos_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) {
      *v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += 8;
    return true;
  }
  bool U32(std::uint32_t* v) {
    if (bytes_.size() - pos_ < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      *v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += 4;
    return true;
  }
  bool String(std::string* s) {
    std::uint32_t len = 0;
    if (!U32(&len) || bytes_.size() - pos_ < len) return false;
    s->assign(bytes_, pos_, len);
    pos_ += len;
    return true;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }
  std::size_t Left() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  std::size_t pos_ = 0;
};

constexpr std::uint32_t kMetaFormat = 1;

}  // namespace

std::string ShardObjectName(const std::string& object, std::uint32_t shard) {
  return object + "#" + std::to_string(shard);
}

bool ParseShardObjectName(const std::string& name, std::string* object, std::uint32_t* shard) {
  std::size_t hash = name.rfind('#');
  if (hash == std::string::npos || hash == 0 || hash + 1 == name.size()) return false;
  const char* first = name.data() + hash + 1;
  const char* last = name.data() + name.size();
  std::uint32_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return false;
  // Only the canonical spelling ("7", not "07") maps back to the same store name.
  if (std::to_string(value).size() != static_cast<std::size_t>(last - first)) return false;
  object->assign(name, 0, hash);
  *shard = value;
  return true;
}

std::string EncodeShardMeta(const ShardMeta& meta) {
  std::string out;
  PutU32(out, kMetaFormat);
  PutU64(out, meta.version);
  PutU32(out, static_cast<std::uint32_t>(meta.attrs.size()));
  for (const net::Attr& a : meta.attrs) {
    PutString(out, a.key);
    PutString(out, a.value);
  }
  return out;
}

Result<ShardMeta> DecodeShardMeta(const std::string& bytes) {
  MetaReader r(bytes);
  ShardMeta meta;
  std::uint32_t format = 0;
  std::uint32_t count = 0;
  if (!r.U32(&format) || format != kMetaFormat || !r.U64(&meta.version) || !r.U32(&count)) {
    return Status::DataLoss("corrupt shard metadata (header)");
  }
  // Each attribute takes at least 8 bytes: a count beyond that cannot be genuine.
  if (count > r.Left() / 8) return Status::DataLoss("corrupt shard metadata (attribute count)");
  meta.attrs.resize(count);
  for (net::Attr& a : meta.attrs) {
    if (!r.String(&a.key) || !r.String(&a.value)) {
      return Status::DataLoss("corrupt shard metadata (attribute)");
    }
  }
  if (!r.AtEnd()) return Status::DataLoss("corrupt shard metadata (trailing bytes)");
  return meta;
}

struct OsdService::Impl {
  struct OpMetrics {
    Counter* ops = nullptr;
    Counter* errors = nullptr;
    Counter* data_loss = nullptr;
    Counter* retryable = nullptr;
    Counter* bytes_in = nullptr;
    Counter* bytes_out = nullptr;
    Histogram* latency = nullptr;
  };

  store::ObjectStore* store;
  std::shared_ptr<spdlog::logger> log;
  OsdServiceOptions options;
  Clock::time_point started = Clock::now();

  boost::asio::thread_pool pool;
  std::vector<boost::asio::strand<boost::asio::thread_pool::executor_type>> strands;

  std::array<OpMetrics, kOpCount> metrics;
  Counter* checksum_errors = nullptr;
  Counter* inline_reads = nullptr;
  Gauge* inflight_gauge = nullptr;

  std::mutex mu;  // guards the fields below
  std::condition_variable idle;
  std::uint64_t inflight = 0;
  Clock::time_point last_inline_end{};   // when the last inline read had been answered
  Clock::time_point inline_off_until{};  // no inline reads before this (requests overlapped)
  std::set<std::string, std::less<>> collections;  // known to exist
  std::mutex create_mu;                            // one collection creation at a time

  Impl(store::ObjectStore* s, MetricsRegistry* registry, std::shared_ptr<spdlog::logger> logger,
       OsdServiceOptions opts)
      : store(s),
        log(logger ? std::move(logger) : spdlog::default_logger()),
        options(opts),
        pool(static_cast<std::size_t>(std::clamp(opts.worker_threads, 1, 256))) {
    strands.reserve(kStrands);
    for (std::size_t i = 0; i < kStrands; ++i) {
      strands.push_back(boost::asio::make_strand(pool.get_executor()));
    }
    for (int op = 0; op < kOpCount; ++op) {
      Labels l = {{"op", kOpNames[op]}};
      OpMetrics& m = metrics[op];
      m.ops = &registry->GetCounter("ecstore_osd_ops_total", "Operations completed, by type", l);
      m.errors = &registry->GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                       {{"op", kOpNames[op]}, {"class", "error"}});
      m.data_loss = &registry->GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                          {{"op", kOpNames[op]}, {"class", "data_loss"}});
      m.retryable = &registry->GetCounter("ecstore_osd_op_errors_total", "Operations that failed",
                                          {{"op", kOpNames[op]}, {"class", "retryable"}});
      m.bytes_in = &registry->GetCounter("ecstore_osd_op_bytes_total",
                                         "Payload bytes of operations, by direction",
                                         {{"op", kOpNames[op]}, {"dir", "in"}});
      m.bytes_out = &registry->GetCounter("ecstore_osd_op_bytes_total",
                                          "Payload bytes of operations, by direction",
                                          {{"op", kOpNames[op]}, {"dir", "out"}});
      m.latency = &registry->GetHistogram("ecstore_osd_op_latency_seconds",
                                          "Time from request received to reply queued", l);
    }
    checksum_errors = &registry->GetCounter("ecstore_osd_checksum_errors_total",
                                            "Reads that failed crc32c verification");
    inline_reads = &registry->GetCounter(
        "ecstore_osd_inline_reads_total",
        "Reads run on the network thread instead of a worker (osd_inline_read_max_size)");
    inflight_gauge =
        &registry->GetGauge("ecstore_osd_inflight_ops", "Operations received and not yet answered");
    auto listed = store->ListCollections();
    if (listed.ok()) collections.insert(listed->begin(), listed->end());
  }

  void Begin(Clock::time_point now) {
    std::lock_guard lock(mu);
    if (inflight != 0) NoteConcurrency(now);
    ++inflight;
    inflight_gauge->Add(1);
  }
  // Whether a ReadShard may run on the calling thread (see OsdServiceOptions::
  // inline_read_max_bytes); if so it is counted in flight like a posted operation.
  bool TryBeginInline(const net::Request& req, Clock::time_point now) {
    if (options.inline_read_max_bytes == 0) return false;
    const auto& r = std::get<net::ReadShardRequest>(req.body);
    std::uint64_t bytes = 0;
    for (const net::ByteExtent& e : r.extents) bytes += e.length;
    if (bytes > options.inline_read_max_bytes) return false;
    std::lock_guard lock(mu);
    if (inflight != 0 || req.more_queued) {
      NoteConcurrency(now);
      return false;
    }
    if (now < inline_off_until) return false;
    // A request handled this soon after the last inline reply was already waiting while that
    // read ran (a client cannot answer that fast): requests are queueing, and inlining them one
    // after the other would serialise reads that the workers could run in parallel.
    if (now - last_inline_end < kInlineMinGap) {
      NoteConcurrency(now);
      return false;
    }
    ++inflight;
    inflight_gauge->Add(1);
    inline_reads->Inc();
    return true;
  }
  void EndInline() {
    const auto now = Clock::now();
    std::lock_guard lock(mu);
    last_inline_end = now;
    --inflight;
    inflight_gauge->Sub(1);
    if (inflight == 0) idle.notify_all();
  }
  // Called with `mu` held when requests overlap: no inline reads for a while.
  void NoteConcurrency(Clock::time_point now) { inline_off_until = now + kInlineBackoff; }

  void End() {
    std::lock_guard lock(mu);
    --inflight;
    inflight_gauge->Sub(1);
    if (inflight == 0) idle.notify_all();
  }

  void Account(Op op, const Status& s, Clock::time_point start, std::uint64_t in,
               std::uint64_t out) {
    OpMetrics& m = metrics[op];
    m.ops->Inc();
    m.bytes_in->Inc(in);
    m.bytes_out->Inc(out);
    m.latency->ObserveDuration(Clock::now() - start);
    if (s.ok()) return;
    switch (s.error_class()) {
      case Status::Class::kDataLoss:
        m.data_loss->Inc();
        checksum_errors->Inc();
        log->error("{} failed: {}", kOpNames[op], s.message());
        break;
      case Status::Class::kRetryable:
        m.retryable->Inc();
        break;
      default:
        m.errors->Inc();
        break;
    }
  }

  // Sends `body` (and `payload`), accounting the operation. A Send failure (the reply did not fit
  // the client's limits) has already been answered with an error reply by the messenger.
  void Reply(Op op, net::Responder& responder, Clock::time_point start, std::uint64_t in,
             net::ReplyBody body, std::vector<Buffer> payload = {}) {
    std::uint64_t out = 0;
    for (const Buffer& b : payload) out += b.size();
    Status status = net::StatusOf(body);
    Status sent = responder.Send(std::move(body), std::move(payload));
    if (!sent.ok()) {
      log->warn("{} reply not sent as built: {}", kOpNames[op], sent.message());
      if (status.ok()) status = sent;
    }
    Account(op, status, start, in, out);
  }

  Status EnsureCollection(const std::string& coll) {
    {
      std::lock_guard lock(mu);
      if (collections.count(coll) != 0) return Status::OK();
    }
    std::lock_guard create(create_mu);
    {
      std::lock_guard lock(mu);
      if (collections.count(coll) != 0) return Status::OK();
    }
    store::Transaction t;
    t.CreateCollection(coll);
    Status s = store->Apply(t);
    if (!s.ok() && s.code() != EEXIST) return s;
    std::lock_guard lock(mu);
    collections.insert(coll);
    return Status::OK();
  }

  // The shard's metadata; a shard without "_meta" (or missing: `missing_ok`) has version 0.
  Result<ShardMeta> LoadMeta(const std::string& coll, const std::string& name) {
    auto attr = store->GetAttr(coll, name, kMetaAttr);
    if (!attr.ok()) {
      if (attr.status().code() == ENODATA) return ShardMeta{};
      return attr.status();
    }
    return DecodeShardMeta(*attr);
  }

  Status DoWrite(const net::WriteShardRequest& w, const Buffer& data) {
    EC_RETURN_IF_ERROR(EnsureCollection(w.collection));
    const std::string name = ShardObjectName(w.object, w.shard);
    const bool replace = (w.flags & net::kWriteReplace) != 0;
    ShardMeta meta;
    if (!replace) {
      auto old = LoadMeta(w.collection, name);
      if (old.ok()) {
        meta = std::move(*old);
      } else if (old.status().code() != ENOENT) {
        return old.status();
      }
    }
    meta.version = w.version;
    for (const net::Attr& a : w.attrs) {
      auto it = std::find_if(meta.attrs.begin(), meta.attrs.end(),
                             [&](const net::Attr& x) { return x.key == a.key; });
      if (it != meta.attrs.end()) {
        it->value = a.value;
      } else {
        meta.attrs.push_back(a);
      }
    }
    // Stat must be able to return every attribute in one reply.
    if (meta.attrs.size() > net::Limits{}.max_attrs) {
      return Status::Error(E2BIG, "shard " + name + " would have more than " +
                                      std::to_string(net::Limits{}.max_attrs) + " attributes");
    }
    store::Transaction t;
    t.Touch(w.collection, name);
    if (replace) t.Truncate(w.collection, name, 0);
    if (!data.empty()) t.Write(w.collection, name, w.offset, data);
    t.SetAttr(w.collection, name, kMetaAttr, EncodeShardMeta(meta));
    return store->Apply(t);
  }

  void Run(Op op, net::Request& req, net::Responder& responder, Clock::time_point start) {
    const std::uint64_t in = req.payload.size();
    switch (op) {
      case kPing:
        break;  // answered on the io thread
      case kWrite: {
        const auto& w = std::get<net::WriteShardRequest>(req.body);
        Status s = DoWrite(w, req.payload);
        Reply(op, responder, start, in, net::WriteShardReply{s});
        return;
      }
      case kRead: {
        const auto& r = std::get<net::ReadShardRequest>(req.body);
        const std::string name = ShardObjectName(r.object, r.shard);
        std::vector<store::Extent> extents;
        extents.reserve(r.extents.size());
        for (const net::ByteExtent& e : r.extents) extents.push_back({e.offset, e.length});
        auto info = store->Stat(r.collection, name);
        if (!info.ok())
          return Reply(op, responder, start, in,
                       net::ErrorReply(net::MsgType::kReadShard, info.status()));
        auto meta = LoadMeta(r.collection, name);
        if (!meta.ok())
          return Reply(op, responder, start, in,
                       net::ErrorReply(net::MsgType::kReadShard, meta.status()));
        auto data = store->Read(r.collection, name, extents);
        if (!data.ok())
          return Reply(op, responder, start, in,
                       net::ErrorReply(net::MsgType::kReadShard, data.status()));
        net::ReadShardReply reply;
        reply.object_size = info->size;
        reply.version = meta->version;
        reply.lengths.reserve(data->size());
        for (const Buffer& b : *data) reply.lengths.push_back(b.size());
        Reply(op, responder, start, in, std::move(reply), std::move(*data));
        return;
      }
      case kStat: {
        const auto& r = std::get<net::StatRequest>(req.body);
        const std::string name = ShardObjectName(r.object, r.shard);
        auto info = store->Stat(r.collection, name);
        if (!info.ok())
          return Reply(op, responder, start, in,
                       net::ErrorReply(net::MsgType::kStat, info.status()));
        auto meta = LoadMeta(r.collection, name);
        if (!meta.ok())
          return Reply(op, responder, start, in,
                       net::ErrorReply(net::MsgType::kStat, meta.status()));
        net::StatReply reply;
        reply.size = info->size;
        reply.version = meta->version;
        reply.attrs = std::move(meta->attrs);
        Reply(op, responder, start, in, std::move(reply));
        return;
      }
      case kList: {
        const auto& r = std::get<net::ListRequest>(req.body);
        net::ListReply reply;
        std::string after = r.cursor;
        // Ask for one more than the page to know whether the page is the last; names that are not
        // shards are skipped, so keep going until the page is full or the collection ends.
        while (reply.entries.size() < r.max_entries) {
          const std::size_t want = r.max_entries - reply.entries.size() + 1;
          auto names = store->List(r.collection, after, want);
          if (!names.ok())
            return Reply(op, responder, start, in,
                         net::ErrorReply(net::MsgType::kList, names.status()));
          reply.end = names->size() < want;
          for (const std::string& n : *names) {
            if (reply.entries.size() == r.max_entries) {
              reply.end = false;
              break;
            }
            after = n;
            net::ListEntry e;
            if (ParseShardObjectName(n, &e.object, &e.shard)) reply.entries.push_back(e);
          }
          if (reply.end) break;
        }
        reply.next_cursor = reply.end ? std::string() : after;
        Reply(op, responder, start, in, std::move(reply));
        return;
      }
      case kRemove: {
        const auto& r = std::get<net::RemoveRequest>(req.body);
        store::Transaction t;
        t.Remove(r.collection, ShardObjectName(r.object, r.shard));
        Reply(op, responder, start, in, net::RemoveReply{store->Apply(t)});
        return;
      }
      case kOpCount:
        break;
    }
  }

  // A Ping answers at once with `response_len` bytes: slices of one shared zero buffer, so that
  // a bulk reply costs no allocation or copy.
  void Ping(net::Request& req, net::Responder& responder, Clock::time_point start) {
    const auto& p = std::get<net::PingRequest>(req.body);
    std::vector<Buffer> payload;
    std::uint64_t left = p.response_len;
    const Buffer& zeros = Zeros();
    while (left > 0) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
      payload.push_back(zeros.Slice(0, n));
      left -= n;
    }
    Reply(kPing, responder, start, req.payload.size(), net::PingReply{}, std::move(payload));
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
  Drain();
  impl_->pool.join();
}

void OsdService::Handle(net::Request request, std::shared_ptr<net::Responder> responder) {
  const auto start = Clock::now();
  const Op op = OpOf(request.body);
  if (op == kPing) {
    impl_->Ping(request, *responder, start);
    return;
  }
  // The shard a request names picks its strand (see the header: per-shard order).
  std::size_t h = std::visit(
      [](const auto& m) -> std::size_t {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, net::PingRequest>) {
          return 0;
        } else if constexpr (std::is_same_v<T, net::ListRequest>) {
          return std::hash<std::string>()(m.collection);
        } else {
          return std::hash<std::string>()(m.collection) * 31 +
                 std::hash<std::string>()(m.object) * 7 + m.shard;
        }
      },
      request.body);
  Impl* impl = impl_.get();
  if (op == kRead && impl->TryBeginInline(request, start)) {
    // The caller is the only thread handing requests over and nothing else is in flight, so
    // nothing else touches this shard meanwhile: the order a strand gives, without the two thread
    // hand-offs (to a worker and back to the messenger), which cost more than a small read.
    impl->Run(op, request, *responder, start);
    responder.reset();
    impl->EndInline();
    return;
  }
  impl->Begin(start);
  boost::asio::post(impl->strands[h % kStrands], [impl, op, start, req = std::move(request),
                                                  r = std::move(responder)]() mutable {
    impl->Run(op, req, *r, start);
    r.reset();
    impl->End();
  });
}

void OsdService::Drain() {
  std::unique_lock lock(impl_->mu);
  impl_->idle.wait(lock, [this] { return impl_->inflight == 0; });
}

nlohmann::json OsdService::StatusJson() const {
  nlohmann::json j;
  j["osd"] = impl_->options.osd_id;
  j["uptime_seconds"] = std::chrono::duration<double>(Clock::now() - impl_->started).count();
  j["store"] = {{"device_bytes", impl_->store->device_bytes()},
                {"free_bytes", impl_->store->free_bytes()}};
  {
    std::lock_guard lock(impl_->mu);
    j["inflight_ops"] = impl_->inflight;
    j["collections"] = impl_->collections.size();
  }
  nlohmann::json ops = nlohmann::json::object();
  for (int op = 0; op < kOpCount; ++op) {
    ops[kOpNames[op]] = {
        {"completed", impl_->metrics[op].ops->Value()},
        {"errors", impl_->metrics[op].errors->Value() + impl_->metrics[op].data_loss->Value() +
                       impl_->metrics[op].retryable->Value()}};
  }
  j["ops"] = ops;
  j["checksum_errors"] = impl_->checksum_errors->Value();
  return j;
}

}  // namespace ec::osd
