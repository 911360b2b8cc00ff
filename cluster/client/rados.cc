#include "cluster/client/rados.h"

#include <fmt/format.h>

#include <cstring>

#include "cluster/client/rados_impl.h"
#include "cluster/etcd/http_connection.h"
#include "common/config.h"

namespace ec::cluster::client {

using detail::CheckName;

namespace {

Buffer Copy(std::span<const std::byte> data) {
  Buffer b = Buffer::Allocate(data.size(), false);
  if (!data.empty()) std::memcpy(const_cast<std::byte*>(b.data()), data.data(), data.size());
  return b;
}

msg::ObjWriteRequest WriteRequestOf(const Rados::Impl& impl, std::int64_t pool, std::uint64_t epoch,
                                    const std::string& object, msg::ObjWriteMode mode,
                                    std::uint64_t offset) {
  msg::ObjWriteRequest r;
  r.start_within_ms = impl.StartWithinMs();
  r.pool = static_cast<std::uint64_t>(pool);
  r.epoch = epoch;
  r.object = object;
  r.mode = mode;
  r.offset = mode == msg::ObjWriteMode::kWrite ? offset : 0;
  return r;
}

msg::ObjReadRequest ReadRequestOf(std::int64_t pool, std::uint64_t epoch, const std::string& object,
                                  std::uint64_t offset, std::uint64_t length) {
  msg::ObjReadRequest r;
  r.pool = static_cast<std::uint64_t>(pool);
  r.epoch = epoch;
  r.object = object;
  r.offset = offset;
  r.length = length;
  return r;
}

ReadResult DirectResult(Buffer data) {
  ReadResult out;
  out.device_bytes = data.size();
  out.data = std::move(data);
  out.direct = true;
  return out;
}

void TakeRead(msg::ObjReadResult&& got, ReadResult* out) {
  out->data = std::move(got.data);
  out->version = got.version;
  out->object_size = got.object_size;
  out->degraded = got.degraded;
  out->network_bytes = got.network_bytes;
  out->device_bytes = got.device_bytes;
}

}  // namespace

Result<ClientOptions> ClientOptionsFromConfig(const std::string& path, const std::string& name) {
  auto c = ec::LoadClientConfig(path, {}, name);
  if (!c.ok()) return c.status();
  ClientOptions o;
  o.name = name;
  o.etcd_endpoints = c->etcd_endpoints;
  o.etcd_ca_file = c->etcd_ca_file;
  o.etcd_cert_file = c->etcd_cert_file;
  o.etcd_key_file = c->etcd_key_file;
  o.etcd_user = c->etcd_user;
  o.etcd_password_file = c->etcd_password_file;
  o.etcd_prefix = c->etcd_prefix;
  o.etcd_op_timeout = c->etcd_op_timeout;
  auto mode = msg::auth::ParseAuthMode(c->auth_cluster_required);
  if (!mode.ok()) return mode.status();
  o.auth = *mode;
  if (o.auth == msg::auth::AuthMode::kCephx) {
    auto ring = msg::auth::Keyring::Load(c->keyring);
    if (!ring.ok()) return ring.status().WithPrefix("auth_cluster_required = cephx");
    const msg::auth::KeyringEntry* entry = ring->Find(name);
    if (entry == nullptr) {
      return Status::Error(
          EACCES, "auth_cluster_required = cephx: no key for " + name + " in " + c->keyring);
    }
    o.key = entry->key;
  }
  return o;
}

Result<etcd::ClientOptions> EtcdOptionsOf(const ClientOptions& options) {
  return etcd::MakeClientOptions(
      {options.etcd_endpoints,
       options.etcd_op_timeout,
       {options.etcd_ca_file, options.etcd_cert_file, options.etcd_key_file},
       options.etcd_user,
       options.etcd_password_file});
}

Rados::Rados(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Rados::~Rados() = default;

Result<std::unique_ptr<Rados>> Rados::Connect(ClientOptions options) {
  auto eo = EtcdOptionsOf(options);
  if (!eo.ok()) return eo.status();
  auto impl = std::make_unique<Impl>(std::move(options), std::move(*eo));
  EC_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<Rados>(new Rados(std::move(impl)));
}

Result<IoCtx> Rados::OpenPool(const std::string& name) {
  auto map = impl_->map();
  const Pool* pool = map->FindPool(name);
  if (pool == nullptr) {
    impl_->Refresh(map->epoch, std::chrono::milliseconds(0));
    map = impl_->map();
    pool = map->FindPool(name);
  }
  if (pool == nullptr) return Status::NotFound("pool '" + name + "' does not exist");
  return IoCtx(this, pool->id, pool->name, impl_->options_.direct_reads);
}

std::shared_ptr<const ClusterMap> Rados::map() const {
  return impl_->map();
}

DirectReadCounts Rados::direct_reads() const {
  return impl_->direct_counts();
}

namespace {

Result<std::uint64_t> DoWrite(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                              msg::ObjWriteMode mode, const Buffer& data, std::uint64_t offset) {
  EC_RETURN_IF_ERROR(CheckName(object));
  std::uint64_t version = 0;
  // write and write_full put the same bytes at the same place: sending them twice is harmless.
  const bool idempotent = mode != msg::ObjWriteMode::kAppend;
  Status s = impl.Run(pool, &object, 0, idempotent, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got =
        osd.ObjWrite(WriteRequestOf(impl, pool, epoch, object, mode, offset), {data}, impl.Call());
    if (!got.ok()) return got.status();
    version = got->version;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return version;
}

}  // namespace

Result<std::uint64_t> IoCtx::Write(const std::string& object, std::span<const std::byte> data,
                                   std::uint64_t offset) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWrite, Copy(data), offset);
}

Result<std::uint64_t> IoCtx::WriteFull(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWriteFull, Copy(data), 0);
}

Result<std::uint64_t> IoCtx::Append(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kAppend, Copy(data), 0);
}

Result<ReadResult> IoCtx::Read(const std::string& object, std::uint64_t offset,
                               std::uint64_t length) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  if (auto d = direct_reads_ ? impl.DirectTarget(pool_id_, object, offset, length) : std::nullopt) {
    std::promise<Result<Buffer>> p;
    auto f = p.get_future();
    impl.DirectAsync(*d, pool_id_, object, offset, length,
                     [&p](Result<Buffer> got) { p.set_value(std::move(got)); });
    auto got = f.get();
    if (got.ok()) return DirectResult(std::move(got).value());
    // Refused or failed: through the primary, which can do everything a read needs.
  }
  ReadResult out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjRead(ReadRequestOf(pool_id_, epoch, object, offset, length), impl.Call());
    if (!got.ok()) return got.status();
    TakeRead(std::move(got).value(), &out);
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<ObjectStat> IoCtx::Stat(const std::string& object) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  ObjectStat out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjStat(msg::ObjStatRequest{static_cast<std::uint64_t>(pool_id_), epoch, object},
                           impl.Call());
    if (!got.ok()) return got.status();
    out.size = got->size;
    out.version = got->version;
    out.mtime = got->mtime;
    out.form = got->form == msg::ObjectForm::kReplicas ? "replicas" : "erasure";
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Status IoCtx::Remove(const std::string& object) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  bool ambiguous = false;
  Status s = impl.Run(
      pool_id_, &object, 0, true,
      [&](msg::OsdClient& osd, std::uint64_t epoch) {
        return osd
            .ObjRemove(msg::ObjRemoveRequest{static_cast<std::uint64_t>(pool_id_), epoch, object,
                                             impl.StartWithinMs()},
                       impl.Call())
            .status();
      },
      &ambiguous);
  // The first try removed it and its reply was lost.
  if (ambiguous && s.code() == ENOENT) return Status::OK();
  return s;
}

Result<std::vector<std::string>> IoCtx::List() {
  Rados::Impl& impl = *rados_->impl_;
  auto map = impl.map();
  auto it = map->pools.find(pool_id_);
  if (it == map->pools.end()) {
    return Status::NotFound("pool '" + pool_name_ + "' does not exist");
  }
  std::vector<std::string> all;
  for (std::uint32_t pg = 0; pg < it->second.pg_num; ++pg) {
    std::string cursor;
    bool end = false;
    while (!end) {
      std::vector<std::string> page;
      Status s =
          impl.Run(pool_id_, nullptr, pg, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
            msg::ObjListRequest r;
            r.pool = static_cast<std::uint64_t>(pool_id_);
            r.epoch = epoch;
            r.pg = pg;
            r.cursor = cursor;
            r.max_entries = 1024;
            auto got = osd.ObjList(std::move(r), impl.Call());
            if (!got.ok()) return got.status();
            page = std::move(got->objects);
            cursor = got->next_cursor;
            end = got->end;
            return Status::OK();
          });
      if (!s.ok()) return s;
      all.insert(all.end(), page.begin(), page.end());
    }
  }
  return all;
}

std::future<Result<std::uint64_t>> IoCtx::WriteAsync(const std::string& object,
                                                     std::span<const std::byte> data,
                                                     std::uint64_t offset) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data), offset] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kWrite, data, offset);
      });
}

std::future<Result<std::uint64_t>> IoCtx::WriteFullAsync(const std::string& object,
                                                         std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kWriteFull, data, 0);
      });
}

std::future<Result<std::uint64_t>> IoCtx::AppendAsync(const std::string& object,
                                                      std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kAppend, data, 0);
      });
}

std::future<Result<ReadResult>> IoCtx::ReadAsync(const std::string& object, std::uint64_t offset,
                                                 std::uint64_t length) {
  IoCtx self = *this;
  return rados_->impl_->Async(
      [self, object, offset, length]() mutable { return self.Read(object, offset, length); });
}

std::future<Result<ObjectStat>> IoCtx::StatAsync(const std::string& object) {
  IoCtx self = *this;
  return rados_->impl_->Async([self, object]() mutable { return self.Stat(object); });
}

std::future<Status> IoCtx::RemoveAsync(const std::string& object) {
  IoCtx self = *this;
  return rados_->impl_->Async([self, object]() mutable { return self.Remove(object); });
}

namespace {

// The op of one write try, for RunAsync: *version is set when it succeeds.
Rados::Impl::AsyncOp WriteOp(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                             msg::ObjWriteMode mode, Buffer data, std::uint64_t offset,
                             std::shared_ptr<std::uint64_t> version) {
  return [&impl, pool, object, mode, data = std::move(data), offset, version](
             msg::OsdClient& osd, std::uint64_t epoch, std::function<void(Status)> tried) {
    osd.ObjWriteAsync(
        WriteRequestOf(impl, pool, epoch, object, mode, offset), {data},
        [version, tried = std::move(tried)](Result<msg::ObjWriteResult> got) {
          if (got.ok()) *version = got->version;
          tried(got.ok() ? Status::OK() : got.status());
        },
        impl.Call());
  };
}

void AioWriteOf(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                msg::ObjWriteMode mode, Buffer data, std::uint64_t offset,
                IoCtx::Completion<std::uint64_t> done) {
  if (Status bad = CheckName(object); !bad.ok()) return done(bad);
  auto version = std::make_shared<std::uint64_t>(0);
  // As the synchronous forms: only an append is not sent again after an ambiguous failure.
  const bool idempotent = mode != msg::ObjWriteMode::kAppend;
  impl.RunAsync(pool, object, idempotent,
                WriteOp(impl, pool, object, mode, std::move(data), offset, version),
                [version, done = std::move(done)](Status s) {
                  if (!s.ok()) return done(std::move(s));
                  done(*version);
                });
}

}  // namespace

void IoCtx::AioWrite(const std::string& object, Buffer data, std::uint64_t offset,
                     Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWrite, std::move(data), offset,
             std::move(done));
}

void IoCtx::AioWriteFull(const std::string& object, Buffer data, Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWriteFull, std::move(data), 0,
             std::move(done));
}

void IoCtx::AioAppend(const std::string& object, Buffer data, Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kAppend, std::move(data), 0,
             std::move(done));
}

namespace {

void AioReadThroughPrimary(Rados::Impl& impl, std::int64_t pool_id, const std::string& object,
                           std::uint64_t offset, std::uint64_t length,
                           IoCtx::Completion<ReadResult> done) {
  auto out = std::make_shared<ReadResult>();
  auto op = [&impl, pool = pool_id, object, offset, length, out](
                msg::OsdClient& osd, std::uint64_t epoch, std::function<void(Status)> tried) {
    osd.ObjReadAsync(
        ReadRequestOf(pool, epoch, object, offset, length),
        [out, tried = std::move(tried)](Result<msg::ObjReadResult> got) {
          if (!got.ok()) return tried(got.status());
          TakeRead(std::move(got).value(), out.get());
          tried(Status::OK());
        },
        impl.Call());
  };
  impl.RunAsync(pool_id, object, true, std::move(op), [out, done = std::move(done)](Status s) {
    if (!s.ok()) return done(std::move(s));
    done(std::move(*out));
  });
}

}  // namespace

void IoCtx::AioRead(const std::string& object, std::uint64_t offset, std::uint64_t length,
                    Completion<ReadResult> done) {
  if (Status bad = CheckName(object); !bad.ok()) return done(bad);
  Rados::Impl& impl = *rados_->impl_;
  auto d = direct_reads_ ? impl.DirectTarget(pool_id_, object, offset, length) : std::nullopt;
  if (!d) return AioReadThroughPrimary(impl, pool_id_, object, offset, length, std::move(done));
  // Counted as in flight from here, so that Rados's destructor waits for the fallback too.
  impl.BeginAsync();
  impl.DirectAsync(*d, pool_id_, object, offset, length,
                   [&impl, pool = pool_id_, object, offset, length,
                    done = std::move(done)](Result<Buffer> got) mutable {
                     if (got.ok()) {
                       done(DirectResult(std::move(got).value()));
                     } else {
                       AioReadThroughPrimary(impl, pool, object, offset, length, std::move(done));
                     }
                     impl.EndAsync();
                   });
}

}  // namespace ec::cluster::client
