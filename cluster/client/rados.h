// The client library (librados-like, issue 14 item 5): connect with the cluster's config, open a
// pool, and write, read, stat, remove and list objects. Each request goes to the primary of the
// object's PG (cluster/map/object_locator.h) from the newest map this client has; the client
// follows the map in etcd (a MapWatcher) and retries:
//
//   Retryable ESTALE (the OSD is not the primary at its epoch)   map reloaded from etcd, retry
//   no primary / connection refused (nothing was sent)           wait for a newer map, retry
//   timeout / connection reset (may have been executed), or      as above; an append is then
//   EINPROGRESS (a write the primary could not undo on k          NOT retried (it could apply
//   shards: it may still be applied)                              twice): its error is returned
//   Retryable EAGAIN (incomplete object, too few shards), or     back off, retry
//   ECANCELED (a write the primary could not begin within half
//   of the try's time, msg/messages.h start_within_ms: nothing
//   applied; so a try this client gave up on is never begun)
//
// Direct reads (issue 28 item 3): a read of bytes inside one data chunk of a pool whose map entry
// records its data chunks, whose PG is all up in this client's map and whose chunk is not on the
// primary, goes straight to the OSD of that shard (ObjDirectRead: 2 messages instead of 4). That
// OSD answers only when it can vouch for its shard (osd/pg/read_lease.h); on a refusal, a
// transport error or no answer within ClientOptions::direct_read_timeout the read goes to the
// primary as any other (and the reads of that PG's shard on that OSD go there for
// kDirectBackoff), so a direct read never
// fails where a read through the primary would succeed. A direct read's result has direct = true
// and no version or object size (0: the shard does not know the object's); a caller that needs
// them turns direct reads off for its IoCtx (set_direct_reads) or calls Stat.
//
// Object metadata (issue 29): user xattrs and the mtime (set by the primary's clock on every
// write) are part of the object, written with a version of their own as any write (SetXattr,
// RmXattr, Touch; Truncate rewrites the object). These are retried after an ambiguous failure as
// write and write_full are (each sets a state rather than adding to it: doing it twice is doing it
// once); only an append is not.
//
// until ClientOptions::op_timeout (Ceph's rados_osd_op_timeout), then the last error, prefixed
// "gave up after N s: ". Other errors return at once: ENOENT (no such pool or object), EINVAL (a
// read past the end, a bad name), EFBIG, EIO (fewer than k shards readable: the PG and shards are
// named), ENAMETOOLONG (an object name over kMaxObjectNameLen, 2048 bytes). A remove whose first
// try may have executed and whose retry finds no object succeeds.
//
// Synchronous calls block the caller; *Async calls run the same on the client's thread pool and
// return a std::future; Aio* calls take a completion callback and hold no thread while the
// request is out. Thread safety: Rados and IoCtx may be used from any number of threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "common/status.h"
#include "ec/buffer.h"
#include "msg/auth/handshake.h"
#include "msg/auth/keyring.h"

namespace ec::etcd {
struct ClientOptions;  // cluster/etcd/etcd_client.h
}  // namespace ec::etcd

namespace ec::cluster::client {

struct ClientOptions {
  std::string etcd_endpoints;  // "http://127.0.0.1:2379,..."
  std::string etcd_prefix = std::string(kDefaultMapPrefix);
  std::chrono::milliseconds etcd_op_timeout{5000};
  // etcd over TLS (https endpoints): the CA file, the client certificate and its key, PEM (the
  // config's etcd_ca_file, etcd_cert_file, etcd_key_file). Connect refuses https endpoints
  // without a CA file (EINVAL); etcd refusing the certificate is EACCES.
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // etcd's user and the file of its password (the config's etcd_user, etcd_password_file; empty:
  // none): Connect refuses one without the other or a password file others may read (EINVAL,
  // EACCES); etcd refusing the password is EACCES (cluster/etcd/etcd_auth.h).
  std::string etcd_user;
  std::string etcd_password_file;
  std::chrono::milliseconds op_timeout{30000};       // one operation, retries included
  std::chrono::milliseconds attempt_timeout{15000};  // one try of it at one OSD
  int async_threads = 16;                            // runners of the *Async calls
  std::string name = "client.admin";
  bool direct_reads = true;  // see the header; the default of every IoCtx opened
  std::chrono::milliseconds direct_read_timeout{1000};
  // Authentication (issue 32; msg/client.h): with cephx every connection to an OSD proves `key`
  // as entity `name` and checks the OSD proves it too; an OSD refusing it (no such entity, a wrong
  // key, a pool outside its caps) fails the operation with EACCES at once, never retried.
  msg::auth::AuthMode auth = msg::auth::AuthMode::kNone;
  msg::auth::CryptoKey key;
};

// How long the reads of a PG's shard on one OSD go through the primary after a direct read there
// was refused or failed.
inline constexpr std::chrono::milliseconds kDirectBackoff{200};

// Options from a config file's [global], [client] and [client.ID] sections (etcd_endpoints,
// etcd_prefix, etcd_op_timeout, etcd_ca_file, etcd_cert_file, etcd_key_file, etcd_user,
// etcd_password_file, auth_cluster_required, keyring), as every ecstore client program reads it,
// for the client `name` (Ceph's --name: "client.ID"; $name in the
// keyring's path). With auth cephx the key is `name`'s in the keyring file. Errors: the config
// file's; the keyring's (ENOENT "cannot read keyring ...", EINVAL for a malformed one); EACCES "no
// key for client.x in KEYRING".
Result<ClientOptions> ClientOptionsFromConfig(const std::string& path,
                                              const std::string& name = "client.admin");

// The etcd client options of `options` (etcd_endpoints, etcd_op_timeout, the TLS files, etcd_user,
// etcd_password_file) as Connect makes them, for a program that reads etcd beside the library
// (ec-rados's lspools, df). Errors: etcd::MakeClientOptions's (cluster/etcd/etcd_client.h).
Result<etcd::ClientOptions> EtcdOptionsOf(const ClientOptions& options);

struct ReadResult {
  Buffer data;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  bool degraded = false;            // the primary rebuilt some of it
  std::uint64_t network_bytes = 0;  // what the primary read from other OSDs for it
  std::uint64_t device_bytes = 0;   // 4 KiB-rounded device bytes the OSDs read for it
  // Served by the shard's OSD without the primary (a direct read): version and object_size are
  // then 0 (unknown), device_bytes the bytes read.
  bool direct = false;
};

struct ObjectStat {
  std::uint64_t size = 0;
  std::uint64_t version = 0;
  std::uint64_t mtime = 0;  // microseconds since the Unix epoch (0: none recorded)
  // How the pool stores it (issue 30 item 2): "erasure" (k+m shards; every object of a
  // replicated pool) or "replicas" (an erasure pool's small object kept as m+1 copies).
  std::string form = "erasure";
};

// Direct reads this client made (Rados::direct_reads): answered by the shard's OSD, or refused
// or failed (then read through the primary).
struct DirectReadCounts {
  std::uint64_t served = 0;
  std::uint64_t refused = 0;
};

class Rados;

// A pool, opened. Cheap to copy; valid while its Rados lives.
class IoCtx {
 public:
  const std::string& pool_name() const { return pool_name_; }
  std::int64_t pool_id() const { return pool_id_; }
  // Whether this IoCtx's reads may go to a shard's OSD directly (see the header); the default is
  // ClientOptions::direct_reads. Affects this copy only.
  void set_direct_reads(bool on) { direct_reads_ = on; }
  bool direct_reads() const { return direct_reads_; }

  // write(off, data), write_full(data), append(data): the object's new version.
  Result<std::uint64_t> Write(const std::string& object, std::span<const std::byte> data,
                              std::uint64_t offset);
  Result<std::uint64_t> WriteFull(const std::string& object, std::span<const std::byte> data);
  Result<std::uint64_t> Append(const std::string& object, std::span<const std::byte> data);
  // length 0: to the end. A range reaching past the end is cut there; an offset past it is EINVAL.
  Result<ReadResult> Read(const std::string& object, std::uint64_t offset = 0,
                          std::uint64_t length = 0);
  Result<ObjectStat> Stat(const std::string& object);
  Status Remove(const std::string& object);
  // Every object of the pool, PG by PG (names sorted within a PG).
  Result<std::vector<std::string>> List();

  // --- Object metadata, librados's setxattr, getxattr, getxattrs, rmxattr, trunc and the
  // create + mtime of rados touch (see the header). Names and values are bytes; the limits are
  // msg/xattrs.h's, checked before anything is sent: EINVAL for an empty name, ENAMETOOLONG for a
  // name over 255 bytes, EFBIG for a value over 32 KiB, E2BIG for an object that would hold more
  // than 60 xattrs or 48 KiB of them (the primary checks that one). ---
  // Sets one xattr; an absent object is created empty (as Ceph).
  Status SetXattr(const std::string& object, const std::string& name, std::string_view value);
  // One xattr's value. Errors: ENOENT for an absent object, ENODATA for an absent xattr (Ceph's).
  Result<std::string> GetXattr(const std::string& object, const std::string& name);
  // Every xattr of the object, by name. Errors: ENOENT for an absent object.
  Result<std::map<std::string, std::string>> GetXattrs(const std::string& object);
  // Removes one xattr (an absent one is no error, as Ceph's). Errors: ENOENT for an absent object.
  Status RmXattr(const std::string& object, const std::string& name);
  // The object's size becomes `size`: cut, or grown with zeros (the primary rewrites it whole).
  // An absent object stays absent (as Ceph's truncate). Errors: EFBIG above osd_max_object_size.
  Status Truncate(const std::string& object, std::uint64_t size);
  // Creates an empty object when there is none, and sets the mtime: the primary's clock, or
  // `mtime` microseconds since the Unix epoch (rados touch OBJ [TIMESTAMP]).
  Status Touch(const std::string& object, std::optional<std::uint64_t> mtime = std::nullopt);

  // The same, asynchronously. The data is copied before the call returns.
  std::future<Result<std::uint64_t>> WriteAsync(const std::string& object,
                                                std::span<const std::byte> data,
                                                std::uint64_t offset);
  std::future<Result<std::uint64_t>> WriteFullAsync(const std::string& object,
                                                    std::span<const std::byte> data);
  std::future<Result<std::uint64_t>> AppendAsync(const std::string& object,
                                                 std::span<const std::byte> data);
  std::future<Result<ReadResult>> ReadAsync(const std::string& object, std::uint64_t offset = 0,
                                            std::uint64_t length = 0);
  std::future<Result<ObjectStat>> StatAsync(const std::string& object);
  std::future<Status> RemoveAsync(const std::string& object);

  // The same with a completion callback, like librados's aio_* calls, and without a thread per
  // call: the request is sent from the calling thread and `done` runs once, with the result the
  // synchronous form would return, on a thread of the client: the connection's io thread when
  // the first try is answered (no thread hand-off), a pool thread after retries, or the calling
  // thread for an error found before sending (a bad name, an unknown pool). `done` must not
  // block nor call the synchronous forms (it may issue further Aio* calls). `data` is shared,
  // not copied: do not modify it until `done`. Rados's destructor waits for every `done`.
  template <typename T>
  using Completion = std::function<void(Result<T>)>;
  void AioWrite(const std::string& object, Buffer data, std::uint64_t offset,
                Completion<std::uint64_t> done);
  void AioWriteFull(const std::string& object, Buffer data, Completion<std::uint64_t> done);
  void AioAppend(const std::string& object, Buffer data, Completion<std::uint64_t> done);
  void AioRead(const std::string& object, std::uint64_t offset, std::uint64_t length,
               Completion<ReadResult> done);

 private:
  friend class Rados;
  IoCtx(Rados* rados, std::int64_t id, std::string name, bool direct_reads)
      : rados_(rados), pool_id_(id), pool_name_(std::move(name)), direct_reads_(direct_reads) {}
  Rados* rados_;
  std::int64_t pool_id_;
  std::string pool_name_;
  bool direct_reads_ = true;
};

class Rados {
 public:
  // Reads the map from etcd and starts following it. Errors: EINVAL for bad endpoints; etcd's
  // errors ("cannot reach etcd at ...") when it cannot be read.
  static Result<std::unique_ptr<Rados>> Connect(ClientOptions options);
  ~Rados();  // waits for the async calls, stops following the map, closes connections
  Rados(const Rados&) = delete;
  Rados& operator=(const Rados&) = delete;

  // Errors: ENOENT "pool 'x' does not exist".
  Result<IoCtx> OpenPool(const std::string& name);
  // The newest map this client has.
  std::shared_ptr<const ClusterMap> map() const;
  // Direct reads so far (see the header).
  DirectReadCounts direct_reads() const;

  class Impl;

 private:
  friend class IoCtx;
  explicit Rados(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::cluster::client
