// Small objects of an erasure pool kept as copies (issue 30 item 2, resolve.h "Object forms"), in
// process on object_io's fixture: an RS(2,2) pool without padding, min_size 3, whose small objects
// are 3 copies on positions 0..2 and an empty shard on position 3. Checked: the copies hold the
// object's bytes whole and the form is recorded; a copy alone serves a read; and a conversion in
// either direction cut short on every subset of the positions (its SubWrites landed there only,
// then its primary died) settles to the old or the new content, never an error or a mix.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "osd/pg/object_io.h"
#include "osd/pg/object_io_test_util.h"

namespace ec::osd::pg {
namespace {

using namespace std::chrono_literals;
using testing::Geometry;
using testing::kEpoch;
using testing::ObjectIoTest;

class ObjectFormTest : public ObjectIoTest {
 protected:
  Geometry MakeGeometry() const override {
    return {
        {{"plugin", "isa"}, {"k", "2"}, {"m", "2"}, {"technique", "reed_sol_van"}}, 4, 2, 3, true};
  }

  // A write of `data` at `offset` (write_full when `full`) in `form`, through `io`, acknowledged
  // at `min_size`.
  Result<ObjectState> Write(const ObjectIo& io, const ObjectState& state, msg::ObjectForm form,
                            std::uint64_t offset, const Buffer& data, bool full,
                            std::uint64_t version, int min_size) {
    auto plan = PlanWrite(io.codec->layout, state.exists, state.size,
                          full ? msg::ObjWriteMode::kWriteFull : msg::ObjWriteMode::kWrite, offset,
                          data.size(), 1ull << 30);
    if (!plan.ok()) return plan.status();
    MetaUpdate meta;
    meta.mtime = version;
    return WriteObjectInForm(io, *codec_, form, state, *plan, data, version, min_size, meta);
  }

  // The io of object `name` for the form of `state`.
  ObjectIo IoFor(const std::string& name, const ObjectState& state) const {
    ObjectIo io = io_;
    io.object = name;
    io.codec = &codec_->ForForm(state.form);
    return io;
  }

  msg::SubStateReply StateOf(const std::string& name, int p) {
    auto st = osds_[p]->client->SubState(
        msg::SubStateRequest{loc_.collection, name, static_cast<std::uint32_t>(p)});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? *st : msg::SubStateReply{};
  }

  // The object's content as a fresh resolve settles it, with every position answering.
  std::string SettledContent(const std::string& name, msg::ObjectForm* form = nullptr) {
    ObjectIo io = io_;
    io.object = name;
    auto st = ResolveObject(io);
    if (!st.ok()) return "resolve: " + st.status().ToString();
    if (!st->exists) return "absent";
    if (form != nullptr) *form = st->form;
    auto got = ReadObject(IoFor(name, *st), *st, 0, st->size);
    if (!got.ok()) return "read: " + got.status().ToString();
    return std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size());
  }
};

constexpr msg::ObjectForm kCopies = msg::ObjectForm::kReplicas;
constexpr msg::ObjectForm kShards = msg::ObjectForm::kErasure;

TEST_F(ObjectFormTest, ASmallObjectIsThreeWholeCopiesAndAnEmptyShard) {
  ASSERT_EQ(codec_->small_copies, 3);
  ObjectIo io = IoFor("small", Absent());
  auto st = Write(io, Absent(), kCopies, 0, Bytes(6000, 's'), true, (kEpoch << 32) | 1, 3);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->form, kCopies);
  for (int p = 0; p < 4; ++p) {
    const msg::SubStateReply s = StateOf("small", p);
    EXPECT_EQ(s.form, kCopies) << p;
    EXPECT_EQ(s.shard_size, p < 3 ? 6000u : 0u) << p;  // whole copies; nothing past them
    EXPECT_EQ(s.object_size, 6000u) << p;
  }
  msg::ObjectForm form = kShards;
  EXPECT_EQ(SettledContent("small", &form), std::string(6000, 's'));
  EXPECT_EQ(form, kCopies);
  // One copy alone serves a read (the others' OSDs down), from its bytes as they are.
  ObjectIo one = IoFor("small", *st);
  one.clients.erase(0);
  one.clients.erase(1);
  one.clients.erase(3);
  auto got = ReadObject(one, *st, 1000, 100);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes.data()), 100),
            std::string(100, 's'));
  EXPECT_TRUE(got->degraded);
  // A write of part of it stays copies: every copy gets the new bytes, the empty shard nothing.
  SubWrites();
  auto grown =
      Write(IoFor("small", *st), *st, kCopies, 6000, Bytes(100, 't'), false, (kEpoch << 32) | 2, 3);
  ASSERT_TRUE(grown.ok()) << grown.status().ToString();
  EXPECT_EQ(SubWrites(), (std::vector<int>{1, 1, 1, 0}));
  EXPECT_EQ(SettledContent("small"), std::string(6000, 's') + std::string(100, 't'));
}

// Every subset of the positions taking the conversion's SubWrites (the others never got them:
// its primary was killed), in both directions. Copies -> shards: the new version needs k shards,
// else it is rolled back to the copies. Shards -> copies (a write_full below the size): one copy
// of the new version settles it. Never an error, never a mix.
TEST_F(ObjectFormTest, AConversionCutShortAnywhereReadsOldOrNew) {
  const std::string small(3000, 'a');
  const std::string grown = small + std::string(9000, 'b');
  const std::string big(12000, 'c');
  const std::string shrunk(500, 'd');
  std::uint64_t counter = 1;
  for (int to_shards = 0; to_shards < 2; ++to_shards) {
    for (int subset = 1; subset < 16; ++subset) {
      const std::string name = "conv-" + std::to_string(to_shards) + "-" + std::to_string(subset);
      SCOPED_TRACE(name);
      // The object before: copies of `small`, or shards of `big`.
      const msg::ObjectForm before = to_shards ? kCopies : kShards;
      auto first = Write(IoFor(name, Absent()), Absent(), before, 0,
                         to_shards ? Bytes(3000, 'a') : Bytes(12000, 'c'), true,
                         (kEpoch << 32) | counter++, 3);
      ASSERT_TRUE(first.ok()) << first.status().ToString();
      ASSERT_EQ(first->form, before);
      // The conversion reaches the positions of `subset` only (min_size 1 so that it is not
      // rolled back by the primary: it died before it could).
      ObjectIo cut = IoFor(name, *first);
      std::vector<int> reached;
      for (int p = 0; p < 4; ++p) {
        if ((subset & (1 << p)) == 0) {
          cut.clients.erase(p);
        } else {
          reached.push_back(p);
        }
      }
      // (Copies -> shards as the write_full of the grown content: the conversion's SubWrites are
      // those of a growing write, whose old bytes the primary read before sending them.)
      Buffer content = Buffer::Allocate(grown.size());
      std::memcpy(content.data(), grown.data(), grown.size());
      auto conv = to_shards
                      ? Write(cut, *first, kShards, 0, content, true, (kEpoch << 32) | counter++, 1)
                      : Write(cut, *first, kCopies, 0, Bytes(500, 'd'), true,
                              (kEpoch << 32) | counter++, 1);
      ASSERT_TRUE(conv.ok()) << conv.status().ToString();
      // What must settle: the rule of resolve.h.
      bool copy = false;
      for (int p : reached) copy = copy || p < 3;
      const bool forward = to_shards ? reached.size() >= 2 : copy || reached.size() >= 2;
      msg::ObjectForm form = before;
      const std::string got = SettledContent(name, &form);
      if (to_shards) {
        EXPECT_EQ(got, forward ? grown : small);
      } else {
        EXPECT_EQ(got, forward ? shrunk : big);
      }
      EXPECT_EQ(form, forward ? (to_shards ? kShards : kCopies) : before);
      // And again: settled once, it stays (the rolled-back shards hold the old form again).
      EXPECT_EQ(SettledContent(name), got);
    }
  }
}

// A write of copies that one late copy may still take fails EINPROGRESS (one copy settles it, so
// the client must not repeat it blindly), and indeed the next resolve rolls it forward.
TEST_F(ObjectFormTest, AFailedWriteOfCopiesThatOneCopyMayHoldIsInProgress) {
  ObjectIo io = IoFor("late", Absent());
  auto first = Write(io, Absent(), kCopies, 0, Bytes(3000, 'a'), true, (kEpoch << 32) | 1, 3);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  for (int p : {1, 2, 3}) osds_[p]->gate->delay_ms = 600;
  auto second = Write(IoFor("late", *first), *first, kCopies, 0, Bytes(3000, 'b'), true,
                      (kEpoch << 32) | 2, 3);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EINPROGRESS) << second.status().ToString();
  for (int p : {1, 2, 3}) osds_[p]->gate->delay_ms = 0;
  std::this_thread::sleep_for(700ms);
  EXPECT_EQ(SettledContent("late"), std::string(3000, 'b'));
}

}  // namespace
}  // namespace ec::osd::pg
