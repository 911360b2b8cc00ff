// The values the etcd client (etcd_client.h) and watch (etcd_watch.h) take and return: plain
// structs mirroring etcd's v3 messages (etcdserverpb / mvccpb), with keys and values as raw bytes
// in std::string (the client does the base64) and int64 fields as std::int64_t.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ec::etcd {

// The range_end that makes [prefix, PrefixEnd(prefix)) cover every key starting with prefix
// (etcd's clientv3.GetPrefixRangeEnd). An empty or all-0xff prefix gives "\0", etcd's "every key".
std::string PrefixEnd(std::string_view prefix);

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;  // 0: not bound to a lease
};

// A key or a range: key alone is one key; range_end non-empty is [key, range_end).
struct RangeRequest {
  std::string key;
  std::string range_end;
  std::int64_t limit = 0;     // 0: no limit
  std::int64_t revision = 0;  // 0: the newest; else read as of that revision (ERANGE if compacted)
};

struct RangeResponse {
  std::int64_t revision = 0;  // the store's revision when the read was served
  std::vector<KeyValue> kvs;
  bool more = false;       // limit cut the result
  std::int64_t count = 0;  // keys in the range (not limited)
};

struct PutRequest {
  std::string key;
  std::string value;
  std::int64_t lease = 0;  // 0: none; else the key is deleted when the lease expires
};

struct PutResponse {
  std::int64_t revision = 0;
};

struct DeleteRequest {
  std::string key;
  std::string range_end;  // empty: the one key
};

struct DeleteResponse {
  std::int64_t revision = 0;
  std::int64_t deleted = 0;
};

// One comparison of a Txn. The operand used is the one named by target: create_revision (CREATE),
// version (VERSION), mod_revision (MOD), value (VALUE) or lease (LEASE). A key that does not
// exist has create/mod revision, version and lease 0, so "CREATE == 0" means "absent".
struct Compare {
  enum class Target { kCreate, kVersion, kMod, kValue, kLease };
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  Target target = Target::kMod;
  Result result = Result::kEqual;
  std::string key;
  std::string range_end;    // empty: the one key
  std::int64_t number = 0;  // for CREATE, VERSION, MOD, LEASE
  std::string value;        // for VALUE

  // `key`'s CREATE, VERSION, MOD or LEASE field compared with `number` ("CREATE == 0": absent).
  static Compare Number(std::string key, Target target, std::int64_t number,
                        Result result = Result::kEqual);
};

// One operation of a Txn branch.
struct TxnOp {
  enum class Kind { kPut, kDelete, kRange };
  Kind kind = Kind::kPut;
  std::string key;
  std::string value;       // kPut
  std::int64_t lease = 0;  // kPut
  std::string range_end;   // kDelete, kRange
  std::int64_t limit = 0;  // kRange

  static TxnOp Put(std::string key, std::string value, std::int64_t lease = 0);
  static TxnOp Delete(std::string key, std::string range_end = {});
  static TxnOp Range(std::string key, std::string range_end = {}, std::int64_t limit = 0);
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<TxnOp> success;
  std::vector<TxnOp> failure;
};

// The reply of one TxnOp; only the member matching kind is filled.
struct TxnOpResponse {
  TxnOp::Kind kind = TxnOp::Kind::kPut;
  PutResponse put;
  DeleteResponse del;
  RangeResponse range;
};

struct TxnResponse {
  bool succeeded = false;                // every compare held, the success branch ran
  std::int64_t revision = 0;             // the store's revision after the txn
  std::vector<TxnOpResponse> responses;  // one per op of the branch that ran, in order
};

struct LeaseGrant {
  std::int64_t id = 0;
  std::int64_t ttl = 0;  // seconds, as granted
};

struct Event {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  // kv.value is empty for a DELETE; kv.mod_revision is the revision of the event.
  KeyValue kv;
};

}  // namespace ec::etcd
