// The PG sub-operations and the object operations through a real Server and OsdClient: a small
// handler answers from the request's own fields, so that each field and payload is seen to cross
// the wire both ways.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <optional>

#include "msg/client.h"
#include "msg/server.h"

namespace ec::msg {
namespace {

constexpr std::uint64_t kObjectSize = 10000;

Buffer ObjectPattern(std::size_t n, std::uint8_t seed) {
  Buffer b = Buffer::Allocate(n, false);
  for (std::size_t i = 0; i < n; ++i) b.data()[i] = static_cast<std::byte>((i * 7 + seed) & 0xff);
  return b;
}

std::string AsText(const Buffer& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

class EchoHandler : public RequestHandler {
 public:
  void Handle(Request req, std::shared_ptr<Responder> r) override {
    {
      std::lock_guard lock(mu_);
      last_ = req;
    }
    const Buffer& payload = req.payload;
    if (const auto* m = std::get_if<SubWriteRequest>(&req.body)) {
      if (m->prev_version == 99) {
        (void)r->SendError(Status::Retryable(ESTALE, "shard is at version 98"));
      } else {
        (void)r->Send(SubWriteReply{});
      }
    } else if (const auto* m = std::get_if<SubResolveRequest>(&req.body)) {
      const bool rollback = m->action == SubResolveAction::kRollback;
      (void)r->Send(SubResolveReply{Status::OK(), rollback ? m->version - 1 : m->version});
    } else if (const auto* m = std::get_if<SubStateRequest>(&req.body)) {
      if (m->object == "missing") {
        (void)r->SendError(Status::NotFound("no shard " + m->object));
      } else {
        (void)r->Send(SubStateReply{Status::OK(), ShardState::kPresent, m->shard + 100u,
                                    kObjectSize, 5000, m->shard + 99u});
      }
    } else if (const auto* m = std::get_if<ObjWriteRequest>(&req.body)) {
      (void)r->Send(ObjWriteReply{Status::OK(), m->epoch + 1, m->offset + payload.size()});
    } else if (const auto* m = std::get_if<ObjReadRequest>(&req.body)) {
      const Buffer object = ObjectPattern(kObjectSize, 3);
      const std::uint64_t start = std::min(m->offset, kObjectSize);
      std::uint64_t end = m->length == 0 ? kObjectSize : std::min(kObjectSize, start + m->length);
      if (m->object == "liar") end = kObjectSize;  // more bytes than asked
      (void)r->Send(
          ObjReadReply{Status::OK(), m->epoch, kObjectSize, m->offset > 0, (end - start) * 2, 8192},
          {object.Slice(start, end - start)});
    } else if (const auto* m = std::get_if<ObjStatRequest>(&req.body)) {
      (void)r->Send(ObjStatReply{Status::OK(), m->pool, kObjectSize, m->epoch * 1000});
    } else if (const auto* m = std::get_if<ObjSetXattrsRequest>(&req.body)) {
      (void)r->Send(ObjSetXattrsReply{Status::OK(), m->epoch + m->set.size() + m->remove.size()});
    } else if (const auto* m = std::get_if<ObjGetXattrsRequest>(&req.body)) {
      if (m->object == "missing") {
        (void)r->SendError(Status::NotFound("no object " + m->object));
      } else {
        (void)r->Send(ObjGetXattrsReply{Status::OK(), m->pool, m->epoch, {{"a", m->object}}});
      }
    } else if (const auto* m = std::get_if<ObjRemoveRequest>(&req.body)) {
      (void)r->Send(ObjRemoveReply{Status::OK(), m->epoch + 10});
    } else if (const auto* m = std::get_if<ObjListRequest>(&req.body)) {
      ObjListReply reply;
      const std::uint32_t n = m->pg == 99 ? m->max_entries + 1 : m->max_entries;
      for (std::uint32_t i = 0; i < n; ++i) reply.objects.push_back(m->cursor + std::to_string(i));
      reply.next_cursor = reply.objects.back();
      reply.end = m->pg == 7;
      (void)r->Send(std::move(reply));
    } else if (const auto* m = std::get_if<SubScanRequest>(&req.body)) {
      // One entry per requested slot, named after the cursor; shard 99 answers one too many.
      SubScanReply reply;
      const std::uint32_t n = m->shard == 99 ? m->max_entries + 1 : m->max_entries;
      for (std::uint32_t i = 0; i < n; ++i) {
        reply.entries.push_back({m->cursor + std::to_string(i), ShardState::kRemoved, i + 1u,
                                 kObjectSize, m->shard, i});
      }
      reply.next_cursor = reply.entries.back().object;
      reply.end = m->collection == "last";
      (void)r->Send(std::move(reply));
    } else if (const auto* m = std::get_if<SubPullRequest>(&req.body)) {
      if (m->epoch < 5) {
        (void)r->SendError(Status::Retryable(ESTALE, "map epoch 5 is newer"));
        return;
      }
      SubPullReply reply;
      for (const SubPullObject& o : m->objects) {
        Status st = o.prev_version == 1 ? Status::Retryable(ESTALE, "a client write got there")
                                        : Status::OK();
        reply.results.push_back({o.object, std::move(st), o.object_size * 2,
                                 static_cast<std::uint64_t>(m->helpers.size()) * 4096, o.version});
      }
      if (m->collection == "shuffled" && reply.results.size() > 1) {
        std::swap(reply.results[0], reply.results[1]);
      }
      (void)r->Send(std::move(reply));
    } else if (const auto* m = std::get_if<SubReadBatchRequest>(&req.body)) {
      // Each item's extents of a pattern seeded by its shard; "missing" is ENOENT, "stale" an OK
      // answer at another version (the client must refuse it), "liar" one byte more than asked;
      // collection "short" drops the last result.
      SubReadBatchReply reply;
      std::vector<Buffer> bytes;
      for (const SubReadBatchItem& item : m->items) {
        SubReadBatchResult res;
        res.object_size = kObjectSize;
        res.version = item.object == "stale" ? item.expect_version + 1 : item.expect_version;
        if (item.object == "missing") {
          res.status = Status::NotFound("no shard " + item.object);
          reply.results.push_back(std::move(res));
          continue;
        }
        const Buffer shard = ObjectPattern(kObjectSize, static_cast<std::uint8_t>(item.shard));
        for (const ByteExtent& e : item.extents) {
          const std::uint64_t start = std::min(e.offset, kObjectSize);
          std::uint64_t n = std::min(kObjectSize - start, e.length);
          if (item.object == "liar" && start + n < kObjectSize) ++n;
          res.lengths.push_back(n);
          bytes.push_back(shard.Slice(start, n));
        }
        reply.results.push_back(std::move(res));
      }
      if (m->items.front().collection == "short") reply.results.pop_back();
      (void)r->Send(std::move(reply), std::move(bytes));
    } else {
      (void)r->SendError(Status::Error(ENOTSUP, "not in this test"));
    }
  }

  std::optional<Request> last() {
    std::lock_guard lock(mu_);
    return last_;
  }

 private:
  std::mutex mu_;
  std::optional<Request> last_;
};

class PgOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handler_ = std::make_shared<EchoHandler>();
    auto s = Server::Start(ServerOptions{}, handler_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(s).value();
    ClientOptions co;
    co.port = server_->port();
    co.limits.max_payload_len = 1 << 20;
    auto c = OsdClient::Create(co);
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(c).value();
  }

  std::shared_ptr<EchoHandler> handler_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<OsdClient> client_;
};

TEST_F(PgOpsTest, SubWriteCarriesItsFieldsAndPayload) {
  const Buffer data = ObjectPattern(6000, 1);
  SubWriteRequest w{
      "pg.1.2", "obj", 3, 8, 7, SubWriteKind::kRange, 20000, 8192, {{0, 4096}, {6000, 1904}}};
  // The payload travels as two buffers; the server hands it over as one.
  ASSERT_TRUE(client_->SubWrite(w, {data.Slice(0, 1000), data.Slice(1000, 5000)}).ok());
  auto seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  const auto* m = std::get_if<SubWriteRequest>(&seen->body);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->collection, "pg.1.2");
  EXPECT_EQ(m->object, "obj");
  EXPECT_EQ(m->shard, 3u);
  EXPECT_EQ(m->version, 8u);
  EXPECT_EQ(m->prev_version, 7u);
  EXPECT_EQ(m->kind, SubWriteKind::kRange);
  EXPECT_EQ(m->object_size, 20000u);
  EXPECT_EQ(m->shard_size, 8192u);
  EXPECT_EQ(m->extents, w.extents);
  EXPECT_EQ(AsText(seen->payload), AsText(data));

  // The reply's status travels back with its class.
  w.prev_version = 99;
  Status stale = client_->SubWrite(w, {data});
  EXPECT_TRUE(stale.is_retryable());
  EXPECT_EQ(stale.code(), ESTALE);

  // Extents that do not account for the payload are refused before the handler.
  const auto before = server_->counters().requests[static_cast<int>(MsgType::kSubWrite)];
  w.prev_version = 7;
  Status bad = client_->SubWrite(w, {data.Slice(0, 100)});
  EXPECT_EQ(bad.code(), EINVAL);
  EXPECT_NE(bad.message().find("payload"), std::string::npos) << bad.message();
  EXPECT_EQ(std::get<SubWriteRequest>(handler_->last()->body).prev_version, 99u);
  EXPECT_EQ(server_->counters().requests[static_cast<int>(MsgType::kSubWrite)], before + 1);

  // The asynchronous form.
  std::promise<Status> done;
  client_->SubWriteAsync({"pg.1.2", "obj", 3, 9, 8, SubWriteKind::kRemove, 0, 0, {}}, {},
                         [&done](Status s) { done.set_value(std::move(s)); });
  EXPECT_TRUE(done.get_future().get().ok());
  EXPECT_EQ(std::get<SubWriteRequest>(handler_->last()->body).kind, SubWriteKind::kRemove);
}

TEST_F(PgOpsTest, SubResolveAndSubState) {
  auto rolled = client_->SubResolve({"pg.1.2", "obj", 3, 8, SubResolveAction::kRollback});
  ASSERT_TRUE(rolled.ok()) << rolled.status().message();
  EXPECT_EQ(*rolled, 7u);
  auto trimmed = client_->SubResolve({"pg.1.2", "obj", 3, 8, SubResolveAction::kTrim});
  ASSERT_TRUE(trimmed.ok());
  EXPECT_EQ(*trimmed, 8u);

  auto st = client_->SubState({"pg.1.2", "obj", 4});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_TRUE(st->status.ok());
  EXPECT_EQ(st->state, ShardState::kPresent);
  EXPECT_EQ(st->version, 104u);
  EXPECT_EQ(st->object_size, kObjectSize);
  EXPECT_EQ(st->shard_size, 5000u);
  EXPECT_EQ(st->undo_version, 103u);
  auto missing = client_->SubState({"pg.1.2", "missing", 4});
  EXPECT_EQ(missing.status().code(), ENOENT);
  EXPECT_EQ(client_->SubState({"", "obj", 4}).status().code(), EINVAL);
}

TEST_F(PgOpsTest, ObjReadReturnsDataAndCosts) {
  const Buffer object = ObjectPattern(kObjectSize, 3);
  auto all = client_->ObjRead({1, 5, "obj", 0, 0});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(AsText(all->data), AsText(object));
  EXPECT_EQ(all->version, 5u);
  EXPECT_EQ(all->object_size, kObjectSize);
  EXPECT_FALSE(all->degraded);
  EXPECT_EQ(all->network_bytes, 2 * kObjectSize);
  EXPECT_EQ(all->device_bytes, 8192u);

  std::promise<Result<ObjReadResult>> done;
  client_->ObjReadAsync({1, 6, "obj", 9000, 2000},
                        [&done](Result<ObjReadResult> r) { done.set_value(std::move(r)); });
  auto part = done.get_future().get();
  ASSERT_TRUE(part.ok()) << part.status().message();
  EXPECT_EQ(AsText(part->data), AsText(object.Slice(9000, 1000)));  // cut at the object's end
  EXPECT_TRUE(part->degraded);
  EXPECT_EQ(part->version, 6u);

  // More than the client accepts in a reply: refused by the server (EMSGSIZE), not sent back.
  EXPECT_EQ(client_->ObjRead({1, 5, "obj", 0, 2 << 20}).status().code(), EMSGSIZE);
  EXPECT_EQ(client_->ObjRead({1, 5, "", 0, 10}).status().code(), EINVAL);
  // A reply with more bytes than asked is caught by the client.
  EXPECT_EQ(client_->ObjRead({1, 5, "liar", 0, 10}).status().code(), EBADMSG);
}

TEST_F(PgOpsTest, ObjWriteStatRemoveList) {
  const Buffer data = ObjectPattern(3000, 9);
  auto w = client_->ObjWrite({2, 40, "obj", ObjWriteMode::kWrite, 100}, {data});
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->version, 41u);
  EXPECT_EQ(w->object_size, 3100u);
  auto seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  const auto& m = std::get<ObjWriteRequest>(seen->body);
  EXPECT_EQ(m.pool, 2u);
  EXPECT_EQ(m.object, "obj");
  EXPECT_EQ(m.mode, ObjWriteMode::kWrite);
  EXPECT_EQ(AsText(seen->payload), AsText(data));
  auto full = client_->ObjWrite({2, 40, "obj", ObjWriteMode::kWriteFull, 0}, {data});
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(std::get<ObjWriteRequest>(handler_->last()->body).mode, ObjWriteMode::kWriteFull);
  EXPECT_EQ(client_->ObjWrite({2, 40, "obj", ObjWriteMode::kAppend, 5}, {data}).status().code(),
            EINVAL);

  auto st = client_->ObjStat({77, 1, "obj"});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->version, 77u);
  EXPECT_EQ(st->size, kObjectSize);

  auto rm = client_->ObjRemove({1, 5, "obj"});
  ASSERT_TRUE(rm.ok());
  EXPECT_EQ(*rm, 15u);

  auto page = client_->ObjList({1, 5, 3, "k", 3});
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->objects, (std::vector<std::string>{"k0", "k1", "k2"}));
  EXPECT_EQ(page->next_cursor, "k2");
  EXPECT_FALSE(page->end);
  auto last = client_->ObjList({1, 5, 7, "", 1});
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->end);
  EXPECT_EQ(client_->ObjList({1, 5, 3, "", 0}).status().code(), EINVAL);
  EXPECT_EQ(client_->ObjList({1, 5, 99, "", 2}).status().code(), EBADMSG);  // 3 for 2 asked

  const auto c = server_->counters();
  EXPECT_EQ(c.requests[static_cast<int>(MsgType::kObjWrite)], 3u);
  EXPECT_EQ(c.requests[static_cast<int>(MsgType::kObjList)], 4u);
  EXPECT_EQ(c.protocol_errors_total(), 0u);
}

// Object metadata (issue 29): the requests reach the handler whole, the replies the caller.
TEST_F(PgOpsTest, ObjectMetadataCalls) {
  auto st = client_->ObjStat({3, 4, "obj"});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->mtime, 4000u);
  auto set = client_->ObjSetXattrs(
      {1, 10, "obj", kXattrsCreate | kXattrsMtime, {{"a", "1"}, {"b", "2"}}, {"c"}, 77});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(*set, 13u);
  auto seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  const auto& m = std::get<ObjSetXattrsRequest>(seen->body);
  EXPECT_EQ(m.flags, kXattrsCreate | kXattrsMtime);
  EXPECT_EQ(m.set, (std::vector<Attr>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(m.remove, (std::vector<std::string>{"c"}));
  EXPECT_EQ(m.mtime, 77u);
  // Refused by the server's checks before the handler: a name over the limit.
  EXPECT_EQ(client_->ObjSetXattrs({1, 10, "obj", 0, {{std::string(256, 'n'), ""}}, {}, 0})
                .status()
                .code(),
            ENAMETOOLONG);
  auto got = client_->ObjGetXattrs({5, 6, "obj"});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->version, 5u);
  EXPECT_EQ(got->mtime, 6u);
  EXPECT_EQ(got->xattrs, (std::vector<Attr>{{"a", "obj"}}));
  EXPECT_EQ(client_->ObjGetXattrs({5, 6, "missing"}).status().code(), ENOENT);
  auto trunc = client_->ObjWrite({2, 40, "obj", ObjWriteMode::kTruncate, 5}, {});
  ASSERT_TRUE(trunc.ok()) << trunc.status().message();
  seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(std::get<ObjWriteRequest>(seen->body).offset, 5u);
  const auto c = server_->counters();
  EXPECT_EQ(c.requests[static_cast<int>(MsgType::kObjSetXattrs)], 2u);
  EXPECT_EQ(c.requests[static_cast<int>(MsgType::kObjGetXattrs)], 2u);
  EXPECT_EQ(c.protocol_errors_total(), 0u);
}

TEST_F(PgOpsTest, SubScanPages) {
  auto page = client_->SubScan(SubScanRequest{"pg.1.2", 4, "k", 3});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->status.ok());
  ASSERT_EQ(page->entries.size(), 3u);
  EXPECT_EQ(page->entries[2], (SubScanEntry{"k2", ShardState::kRemoved, 3, kObjectSize, 4, 2}));
  EXPECT_EQ(page->next_cursor, "k2");
  EXPECT_FALSE(page->end);
  // The asynchronous form, the last page.
  std::promise<Result<SubScanReply>> p;
  client_->SubScanAsync(SubScanRequest{"last", 0, "", 1},
                        [&](Result<SubScanReply> r) { p.set_value(std::move(r)); });
  auto last = p.get_future().get();
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->end);
  // More entries than asked for is a bad reply.
  EXPECT_EQ(client_->SubScan(SubScanRequest{"pg.1.2", 99, "", 2}).status().code(), EBADMSG);
  // Refused before the handler: max_entries 0, a shard position above 255.
  EXPECT_EQ(client_->SubScan(SubScanRequest{"pg.1.2", 0, "", 0}).status().code(), EINVAL);
  EXPECT_EQ(client_->SubScan(SubScanRequest{"pg.1.2", 256, "", 1}).status().code(), EINVAL);
}

TEST_F(PgOpsTest, SubPullResultsPerObject) {
  SubPullRequest pull{3,
                      7,
                      "pg.3.0",
                      2,
                      SubPullMode::kRebuild,
                      {{0, 10}, {1, 11}, {3, 13}},
                      {{"a", 9, 1000, 0}, {"b", 8, 500, 1}}};
  auto reply = client_->SubPull(pull);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_TRUE(reply->status.ok());
  ASSERT_EQ(reply->results.size(), 2u);
  EXPECT_EQ(reply->results[0].object, "a");
  EXPECT_TRUE(reply->results[0].status.ok());
  EXPECT_EQ(reply->results[0].network_bytes, 2000u);
  EXPECT_EQ(reply->results[0].device_bytes, 3u * 4096);
  EXPECT_EQ(reply->results[0].rebuilt_bytes, 9u);
  EXPECT_EQ(reply->results[1].status.code(), ESTALE);
  EXPECT_TRUE(reply->results[1].status.is_retryable());
  auto seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  const auto* m = std::get_if<SubPullRequest>(&seen->body);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->pool, 3u);
  EXPECT_EQ(m->collection, "pg.3.0");
  EXPECT_EQ(m->shard, 2u);
  EXPECT_EQ(m->helpers, pull.helpers);
  EXPECT_EQ(m->objects, pull.objects);

  // A whole-request error is the Result's error.
  pull.epoch = 4;
  std::promise<Result<SubPullReply>> p;
  client_->SubPullAsync(pull, [&](Result<SubPullReply> r) { p.set_value(std::move(r)); });
  auto stale = p.get_future().get();
  EXPECT_EQ(stale.status().code(), ESTALE);
  EXPECT_TRUE(stale.status().is_retryable());
  // Results that do not match the objects asked for are a bad reply.
  pull.epoch = 7;
  pull.collection = "shuffled";
  EXPECT_EQ(client_->SubPull(pull).status().code(), EBADMSG);
  // Refused before the handler: kCopy from a helper holding another position.
  pull.collection = "pg.3.0";
  pull.mode = SubPullMode::kCopy;
  EXPECT_EQ(client_->SubPull(pull).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::msg

namespace ec::msg {
namespace {

TEST_F(PgOpsTest, ReadBatchAnswersPerItem) {
  SubReadBatchRequest batch;
  batch.items = {{"pg.1.2", "a", 1, 7, {{0, 100}, {500, 20}}},
                 {"pg.1.2", "missing", 2, 7, {{0, 10}}},
                 {"pg.1.2", "stale", 3, 7, {{0, 10}}},
                 {"pg.1.2", "b", 4, 0, {{kObjectSize - 5, 50}}}};
  auto got = client_->ReadBatch(batch);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 4u);
  const ReadBatchItem& a = (*got)[0];
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.version, 7u);
  EXPECT_EQ(a.object_size, kObjectSize);
  ASSERT_EQ(a.extents.size(), 2u);
  EXPECT_EQ(AsText(a.extents[0]), AsText(ObjectPattern(kObjectSize, 1).Slice(0, 100)));
  EXPECT_EQ(AsText(a.extents[1]), AsText(ObjectPattern(kObjectSize, 1).Slice(500, 20)));
  EXPECT_EQ((*got)[1].status.code(), ENOENT);
  EXPECT_TRUE((*got)[1].extents.empty());
  // An OK answer at another version than expected is turned into ESTALE by the client.
  EXPECT_EQ((*got)[2].status.code(), ESTALE) << (*got)[2].status.ToString();
  EXPECT_TRUE((*got)[2].extents.empty());
  // Shorter at the end of the shard.
  ASSERT_TRUE((*got)[3].status.ok());
  ASSERT_EQ((*got)[3].extents.size(), 1u);
  EXPECT_EQ((*got)[3].extents[0].size(), 5u);
  // The items crossed the wire field by field.
  const auto seen = handler_->last();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(std::get<SubReadBatchRequest>(seen->body).items, batch.items);

  // A reply that does not match the request: more bytes than asked, a result missing.
  EXPECT_EQ(
      client_->ReadBatch(SubReadBatchRequest{{{"pg", "liar", 1, 0, {{0, 10}}}}}).status().code(),
      EBADMSG);
  EXPECT_EQ(client_
                ->ReadBatch(SubReadBatchRequest{
                    {{"short", "a", 1, 0, {{0, 10}}}, {"short", "b", 1, 0, {{0, 10}}}}})
                .status()
                .code(),
            EBADMSG);
  // Refused by the server's checks before the handler: no item, more bytes than the client takes.
  EXPECT_EQ(client_->ReadBatch(SubReadBatchRequest{}).status().code(), EINVAL);
  EXPECT_EQ(client_
                ->ReadBatch(SubReadBatchRequest{
                    {{"pg", "a", 1, 0, {{0, 600000}}}, {"pg", "b", 1, 0, {{0, 600000}}}}})
                .status()
                .code(),
            EMSGSIZE);
}

}  // namespace
}  // namespace ec::msg
