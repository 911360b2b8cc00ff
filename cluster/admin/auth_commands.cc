// auth get-or-create|get-or-create-key|get|get-key|ls|rm and ecstore's auth init: Ceph's
// AuthMonitor commands and messages, on the auth database in etcd (cluster/auth/auth_db.h),
// sealed with the cluster's mon. key from ec-admin's keyring (AdminContext::keyring).
#include <sys/stat.h>

#include "cluster/admin/commands.h"
#include "cluster/auth/auth_db.h"
#include "msg/auth/caps.h"
#include "msg/auth/keyring.h"

namespace ec::cluster::admin {
namespace {

namespace auth = msg::auth;
using nlohmann::json;

constexpr const char* kAuthMonEntity = "mon.";

// The cluster's mon. key, from ec-admin's keyring.
Result<auth::CryptoKey> AuthMonKey(const AdminContext& ctx) {
  if (ctx.keyring.empty()) {
    return Status::Error(EACCES, "auth commands need the cluster's mon. key: no keyring set");
  }
  auto ring = auth::Keyring::Load(ctx.keyring);
  if (!ring.ok()) {
    return ring.status().WithPrefix(
        "auth commands need the cluster's mon. key (ec-admin auth init makes a keyring)");
  }
  const auth::KeyringEntry* mon = ring->Find(kAuthMonEntity);
  if (mon == nullptr) {
    return Status::Error(EACCES,
                         "auth commands need the cluster's mon. key: no [mon.] in " + ctx.keyring);
  }
  return mon->key;
}

Result<AuthDbKey> AuthDbKeyOf(const AdminContext& ctx) {
  auto mon = AuthMonKey(ctx);
  if (!mon.ok()) return mon.status();
  return AuthDbKey::From(*mon);
}

// An entity name as Ceph takes it: EINVAL "bad entity name" otherwise.
Status CheckAuthEntity(const std::string& entity) {
  auto n = auth::EntityName::Parse(entity);
  if (!n.ok()) return Status::Invalid("bad entity name '" + entity + "'");
  return Status::OK();
}

Status MonNotInAuthDb(const std::string& what) {
  return Status::Invalid(what +
                         ": mon. is the cluster's own key (the [mon.] section of the OSDs' and "
                         "ec-admin's keyrings); it is not kept in the auth database");
}

json AuthCapsJson(const std::map<std::string, std::string>& caps) {
  json j = json::object();
  for (const auto& [service, text] : caps) j[service] = text;
  return j;
}

// Ceph's KeyRing::encode_formatted("auth"): [{"entity","key","caps":{...}}].
json AuthKeyringJson(const std::string& entity, const auth::KeyringEntry& e) {
  return json::array(
      {{{"entity", entity}, {"key", e.key.ToBase64()}, {"caps", AuthCapsJson(e.caps)}}});
}

// The mon. key as `auth get mon.` shows it (Ceph's mon. has caps mon "allow *").
Result<auth::KeyringEntry> AuthMonEntry(const AdminContext& ctx) {
  auto mon = AuthMonKey(ctx);
  if (!mon.ok()) return mon.status();
  return auth::KeyringEntry{*mon, {{"mon", "allow *"}}};
}

// The entity's entry: the database's, or the keyring's for mon.; ENOENT (Ceph's message,
// `missing`) when absent.
Result<auth::KeyringEntry> FindAuthEntry(const AdminContext& ctx, const std::string& entity,
                                         const std::string& missing) {
  if (entity == kAuthMonEntity) return AuthMonEntry(ctx);
  auto key = AuthDbKeyOf(ctx);
  if (!key.ok()) return key.status();
  auto got = GetAuthEntity(*ctx.store->client(), ctx.store->prefix(), *key, entity);
  if (!got.ok()) return FromStore(ctx, got.status());
  if (!got->has_value()) return Status::NotFound(missing);
  return auth::KeyringEntry{(*got)->key, (*got)->caps};
}

CommandResult AuthGetOrCreate(const Words& args, bool key_only, const AdminContext& ctx) {
  const std::string prefix = key_only ? "auth get-or-create-key" : "auth get-or-create";
  if (args.empty()) return UsageError("missing ENTITY", UsageOf(prefix));
  const std::string& entity = args[0];
  if (Status ok = CheckAuthEntity(entity); !ok.ok()) return ErrorResult(ok);
  auto caps = auth::ParseCapsArgs(Tail(args, 1));
  if (!caps.ok()) return ErrorResult(caps.status());
  if (entity == kAuthMonEntity) return ErrorResult(MonNotInAuthDb("auth " + prefix.substr(5)));
  auto db_key = AuthDbKeyOf(ctx);
  if (!db_key.ok()) return ErrorResult(db_key.status());
  auto key = auth::CryptoKey::Generate();
  if (!key.ok()) return ErrorResult(key.status());
  bool created = false;
  auto now = CreateAuthEntityIfAbsent(*ctx.store->client(), ctx.store->prefix(), *db_key,
                                      AuthEntity{entity, *key, *caps}, &created);
  if (!now.ok()) return ErrorResult(FromStore(ctx, now.status()));
  if (!created) {
    // Ceph: every cap asked for must be the entity's already.
    for (const auto& [service, text] : *caps) {
      auto have = now->caps.find(service);
      if (have == now->caps.end() || have->second != text) {
        return ErrorResult(Status::Invalid("key for " + entity + " exists but cap " + service +
                                           " does not match"));
      }
    }
  }
  const auth::KeyringEntry entry{now->key, now->caps};
  if (key_only) {
    if (ctx.format != Format::kPlain) {
      return Success(DumpJson(json{{"key", entry.key.ToBase64()}}, ctx.format));
    }
    return Success(entry.key.ToBase64());
  }
  if (ctx.format != Format::kPlain)
    return Success(DumpJson(AuthKeyringJson(entity, entry), ctx.format));
  return Success(auth::RenderKeyringEntry(entity, entry, /*with_caps=*/false));
}

CommandResult AuthGet(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected ENTITY", UsageOf("auth get"));
  const std::string& entity = args[0];
  if (Status ok = CheckAuthEntity(entity); !ok.ok()) return ErrorResult(ok);
  auto entry = FindAuthEntry(ctx, entity, "failed to find " + entity + " in keyring");
  if (!entry.ok()) return ErrorResult(entry.status());
  const std::string note = "exported keyring for " + entity;
  if (ctx.format != Format::kPlain) {
    return Success(DumpJson(AuthKeyringJson(entity, *entry), ctx.format), note);
  }
  return Success(auth::RenderKeyringEntry(entity, *entry, true), note);
}

CommandResult AuthGetKey(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected ENTITY", UsageOf("auth get-key"));
  const std::string& entity = args[0];
  if (Status ok = CheckAuthEntity(entity); !ok.ok()) return ErrorResult(ok);
  auto entry = FindAuthEntry(ctx, entity, "don't have " + entity);
  if (!entry.ok()) return ErrorResult(entry.status());
  if (ctx.format != Format::kPlain) {
    return Success(DumpJson(json{{"key", entry->key.ToBase64()}}, ctx.format));
  }
  return Success(entry->key.ToBase64());  // no newline, as Ceph's (for $(ec-admin auth get-key))
}

CommandResult AuthList(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'auth ls' takes no arguments", UsageOf("auth ls"));
  auto key = AuthDbKeyOf(ctx);
  if (!key.ok()) return ErrorResult(key.status());
  auto db = LoadAuthDb(*ctx.store->client(), ctx.store->prefix(), *key);
  if (!db.ok()) return ErrorResult(FromStore(ctx, db.status()));
  std::string err;
  for (const Status& bad : db->bad) err += "ignored " + bad.message() + "\n";
  if (ctx.format != Format::kPlain) {
    json dump = json::array();
    for (const auto& [entity, e] : db->entities) {
      dump.push_back(
          {{"entity", entity}, {"key", e.key.ToBase64()}, {"caps", AuthCapsJson(e.caps)}});
    }
    return Success(DumpJson(json{{"auth_dump", dump}}, ctx.format), err);
  }
  std::string out;
  for (const auto& [entity, e] : db->entities) {
    out += entity + "\n\tkey: " + e.key.ToBase64() + "\n";
    for (const auto& [service, text] : e.caps) out += "\tcaps: [" + service + "] " + text + "\n";
  }
  err += out.empty() ? "no installed auth entries!\n" : "installed auth entries:\n";
  return Success(std::move(out), err);
}

CommandResult AuthRemove(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected ENTITY", UsageOf("auth rm"));
  const std::string& entity = args[0];
  if (Status ok = CheckAuthEntity(entity); !ok.ok()) return ErrorResult(ok);
  if (entity == kAuthMonEntity) return ErrorResult(MonNotInAuthDb("auth rm"));
  auto removed = RemoveAuthEntity(*ctx.store->client(), ctx.store->prefix(), entity);
  if (!removed.ok()) return ErrorResult(FromStore(ctx, removed.status()));
  // Ceph's: removing what is not there succeeds, saying so.
  return Success("", *removed ? "updated" : "entity " + entity + " does not exist");
}

// ecstore's bootstrap (Ceph's is ceph-authtool --gen-key -n mon. and -n client.admin, then the
// monitors' mkfs): the cluster's mon. key and client.admin's, written to ec-admin's keyring, and
// client.admin's record put in the database.
CommandResult AuthInit(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'auth init' takes no arguments", UsageOf("auth init"));
  if (ctx.keyring.empty()) return ErrorResult(Status::Invalid("no keyring set (option keyring)"));
  struct stat st {};
  if (::stat(ctx.keyring.c_str(), &st) == 0) {
    return ErrorResult(Status::Error(EEXIST, ctx.keyring + " exists already: the cluster has "
                                                           "its keys (auth init runs once)"));
  }
  auto mon = auth::CryptoKey::Generate();
  auto admin = auth::CryptoKey::Generate();
  if (!mon.ok() || !admin.ok()) return ErrorResult(mon.ok() ? admin.status() : mon.status());
  const std::map<std::string, std::string> admin_caps = {{"mon", "allow *"}, {"osd", "allow *"}};
  auto db_key = AuthDbKey::From(*mon);
  if (!db_key.ok()) return ErrorResult(db_key.status());
  // A database made under another mon. key would not open with this one: refuse to mix.
  etcd::RangeRequest probe;
  probe.key = AuthDir(ctx.store->prefix());
  probe.range_end = etcd::PrefixEnd(probe.key);
  probe.limit = 1;
  auto existing = ctx.store->client()->Range(probe);
  if (!existing.ok()) return ErrorResult(FromStore(ctx, existing.status()));
  if (!existing->kvs.empty()) {
    return ErrorResult(Status::Error(
        EEXIST,
        "the auth database in etcd has entries already: its mon. key is in the keyring "
        "of its OSDs and administrator"));
  }
  auth::Keyring ring;
  ring.entries[kAuthMonEntity] = auth::KeyringEntry{*mon, {{"mon", "allow *"}}};
  ring.entries["client.admin"] = auth::KeyringEntry{*admin, admin_caps};
  if (Status saved = ring.Save(ctx.keyring); !saved.ok()) return ErrorResult(saved);
  bool created = false;
  auto put = CreateAuthEntityIfAbsent(*ctx.store->client(), ctx.store->prefix(), *db_key,
                                      AuthEntity{"client.admin", *admin, admin_caps}, &created);
  if (!put.ok()) return ErrorResult(FromStore(ctx, put.status()));
  return Success("", "created " + ctx.keyring + " with the cluster's mon. key and client.admin's");
}

}  // namespace

CommandResult RunAuthCommand(const Words& words, const AdminContext& ctx) {
  if (words.empty()) return UnknownCommand(Prefixed({"auth"}, words));
  const std::string& sub = words[0];
  const Words args = Tail(words, 1);
  if (sub == "get-or-create") return AuthGetOrCreate(args, false, ctx);
  if (sub == "get-or-create-key") return AuthGetOrCreate(args, true, ctx);
  if (sub == "get") return AuthGet(args, ctx);
  if (sub == "get-key" || sub == "print-key" || sub == "print_key") return AuthGetKey(args, ctx);
  if (sub == "ls" || sub == "list") return AuthList(args, ctx);
  if (sub == "rm" || sub == "del") return AuthRemove(args, ctx);
  if (sub == "init") return AuthInit(args, ctx);
  return UnknownCommand(Prefixed({"auth"}, words));
}

}  // namespace ec::cluster::admin
