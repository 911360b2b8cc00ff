// Transaction::Rename: an object moves to another name as a metadata change, its blocks staying
// where they are; an existing destination is replaced and its blocks freed. Transaction::MoveBlocks
// does the same for some whole blocks of an object (an undo record of an overwrite). On both I/O
// paths, with and without the commit journal (without one, small transactions are deferred writes).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <tuple>

#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

using testing::MakeOptions;
using testing::TempDir;
using testing::ToBytes;
using testing::ToString;

using Param = std::tuple<IoBackend, bool>;  // backend, with a journal

class RenameTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    opts_ = MakeOptions(dir_, std::get<0>(GetParam()));
    if (!std::get<1>(GetParam())) opts_.journal_size = 0;
    Status s = ObjectStore::Mkfs(opts_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    Mount();
    Transaction t;
    t.CreateCollection("c");
    ASSERT_TRUE(store_->Apply(t).ok());
    empty_free_ = store_->free_bytes();
  }
  void Mount() {
    store_.reset();
    auto st = ObjectStore::Open(opts_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }
  // Writes `data` as the whole of object `name` with attribute "v" = `attr`.
  void Put(const std::string& name, const std::string& data, const std::string& attr) {
    Transaction t;
    t.Write("c", name, 0, ToBytes(data));
    t.SetAttr("c", name, "v", attr);
    Status s = store_->Apply(t);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::string ReadAll(const std::string& name) {
    auto info = store_->Stat("c", name);
    EXPECT_TRUE(info.ok()) << name << ": " << info.status().ToString();
    Extent e{0, info.ok() ? info->size : 0};
    auto r = store_->Read("c", name, std::span<const Extent>(&e, 1));
    EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    return r.ok() ? ToString((*r)[0]) : "";
  }
  std::string Attr(const std::string& name) {
    auto a = store_->GetAttr("c", name, "v");
    EXPECT_TRUE(a.ok()) << name << ": " << a.status().ToString();
    return a.ok() ? *a : "";
  }
  bool Exists(const std::string& name) {
    auto info = store_->Stat("c", name);
    EXPECT_TRUE(info.ok() || info.status().code() == ENOENT) << info.status().ToString();
    return info.ok();
  }
  std::vector<std::string> Names() {
    auto names = store_->List("c");
    EXPECT_TRUE(names.ok()) << names.status().ToString();
    return names.ok() ? *names : std::vector<std::string>{};
  }
  void ExpectFsckClean() {
    auto r = store_->Fsck(true);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& e : r->errors) ADD_FAILURE() << e;
  }
  std::uint64_t Blocks(std::uint64_t n) { return n * kBlockSize; }

  TempDir dir_;
  StoreOptions opts_;
  std::unique_ptr<ObjectStore> store_;
  std::uint64_t empty_free_ = 0;
};

TEST_P(RenameTest, MovesDataAndAttrsWithoutCopying) {
  std::string data(9000, 'a');
  data[8999] = 'z';
  Put("a", data, "one");
  EXPECT_EQ(ReadAll("a"), data);  // the old name's Onode is in the cache now
  std::uint64_t free = store_->free_bytes();
  EXPECT_EQ(free, empty_free_ - Blocks(3));
  Transaction t;
  t.Rename("c", "a", "b");
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(store_->free_bytes(), free);  // no block written or freed
  EXPECT_FALSE(Exists("a"));
  EXPECT_EQ(store_->GetAttr("c", "a", "v").status().code(), ENOENT);
  EXPECT_EQ(ReadAll("b"), data);
  EXPECT_EQ(Attr("b"), "one");
  EXPECT_EQ(store_->Stat("c", "b")->allocated_bytes, Blocks(3));
  EXPECT_EQ(Names(), std::vector<std::string>{"b"});
  ExpectFsckClean();
}

TEST_P(RenameTest, ReplacesAnExistingDestinationAndFreesItsBlocks) {
  Put("a", std::string(3 * kBlockSize, 'a'), "a");
  Put("b", std::string(5 * kBlockSize - 7, 'b'), "b");
  std::uint64_t free = store_->free_bytes();
  EXPECT_EQ(free, empty_free_ - Blocks(8));
  Transaction t;
  t.Rename("c", "a", "b");
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(store_->free_bytes(), free + Blocks(5));
  EXPECT_EQ(ReadAll("b"), std::string(3 * kBlockSize, 'a'));
  EXPECT_EQ(Attr("b"), "a");
  EXPECT_EQ(Names(), std::vector<std::string>{"b"});
  ExpectFsckClean();
  // The freed blocks are allocatable again and the moved ones are not handed out twice.
  Put("d", std::string(20 * kBlockSize, 'd'), "d");
  EXPECT_EQ(ReadAll("b"), std::string(3 * kBlockSize, 'a'));
  ExpectFsckClean();
}

TEST_P(RenameTest, MissingSourceFailsAndChangesNothing) {
  Put("b", "bee", "b");
  std::uint64_t free = store_->free_bytes();
  Transaction t;
  t.Write("c", "x", 0, ToBytes("new object"));
  t.Rename("c", "missing", "b");
  EXPECT_EQ(store_->Apply(t).code(), ENOENT);
  // Removed earlier in the same transaction: missing at that point.
  Transaction r;
  r.Remove("c", "b");
  r.Rename("c", "b", "x");
  EXPECT_EQ(store_->Apply(r).code(), ENOENT);
  Transaction nc;
  nc.Rename("no.such.collection", "b", "x");
  EXPECT_EQ(store_->Apply(nc).code(), ENOENT);
  EXPECT_EQ(store_->free_bytes(), free);
  EXPECT_FALSE(Exists("x"));
  EXPECT_EQ(ReadAll("b"), "bee");
  EXPECT_EQ(Names(), std::vector<std::string>{"b"});
  ExpectFsckClean();
}

TEST_P(RenameTest, BadNamesAreInvalid) {
  Put("a", "data", "a");
  for (const std::string& to : {std::string("a"), std::string(), std::string(4097, 'n')}) {
    Transaction t;
    t.Rename("c", "a", to);
    EXPECT_EQ(store_->Apply(t).code(), EINVAL) << to.size();
  }
  Transaction t;
  t.Rename("c", "", "b");
  EXPECT_EQ(store_->Apply(t).code(), EINVAL);
  EXPECT_EQ(ReadAll("a"), "data");
  EXPECT_EQ(Names(), std::vector<std::string>{"a"});
}

TEST_P(RenameTest, WriteToTheOldNameAfterARenameCreatesAFreshObject) {
  Put("a", std::string(10000, 'o'), "old");
  std::uint64_t free = store_->free_bytes();
  Transaction t;
  t.Rename("c", "a", "b");
  t.Write("c", "a", 0, ToBytes("fresh"));
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(ReadAll("a"), "fresh");
  EXPECT_EQ(store_->GetAttr("c", "a", "v").status().code(), ENODATA);
  EXPECT_EQ(ReadAll("b"), std::string(10000, 'o'));
  EXPECT_EQ(Attr("b"), "old");
  EXPECT_EQ(store_->free_bytes(), free - Blocks(1));
  ExpectFsckClean();
}

TEST_P(RenameTest, DataWrittenEarlierInTheTransactionMovesAlong) {
  // A new object: its blocks are only staged when it is renamed.
  Transaction t;
  t.Write("c", "a", 0, ToBytes(std::string(6000, 'n')));
  t.SetAttr("c", "a", "v", "new");
  t.Rename("c", "a", "b");
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_FALSE(Exists("a"));
  EXPECT_EQ(ReadAll("b"), std::string(6000, 'n'));
  EXPECT_EQ(Attr("b"), "new");
  EXPECT_EQ(store_->free_bytes(), empty_free_ - Blocks(2));
  // An existing object partly overwritten, then renamed over another one: staged and committed
  // blocks move together, the replaced committed block and the old destination are freed.
  Put("d", std::string(kBlockSize, 'd'), "d");
  std::uint64_t free = store_->free_bytes();
  Transaction u;
  u.Write("c", "b", 100, ToBytes("XYZ"));
  u.Write("c", "b", 7000, ToBytes("tail"));
  u.Rename("c", "b", "d");
  u.Write("c", "d", 0, ToBytes("H"));
  ASSERT_TRUE(store_->Apply(u).ok());
  std::string want = std::string(6000, 'n') + std::string(1000, '\0') + "tail";
  want.replace(100, 3, "XYZ");
  want[0] = 'H';
  EXPECT_TRUE(ReadAll("d") == want);
  EXPECT_EQ(Attr("d"), "new");
  EXPECT_EQ(Names(), std::vector<std::string>{"d"});
  EXPECT_EQ(store_->free_bytes(), free + Blocks(1));  // 2 rewritten in place of 2, old d freed
  ExpectFsckClean();
}

TEST_P(RenameTest, RenameBackAndForth) {
  Put("a", std::string(5000, 'a'), "a");
  Put("b", std::string(5000, 'b'), "b");
  std::uint64_t free = store_->free_bytes();
  {  // In one transaction: a swap through a third name, and a round trip.
    Transaction t;
    t.Rename("c", "a", "tmp");
    t.Rename("c", "b", "a");
    t.Rename("c", "tmp", "b");
    t.Rename("c", "b", "x");
    t.Rename("c", "x", "b");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  EXPECT_EQ(store_->free_bytes(), free);
  EXPECT_EQ(ReadAll("a"), std::string(5000, 'b'));
  EXPECT_EQ(ReadAll("b"), std::string(5000, 'a'));
  EXPECT_EQ(Attr("a"), "b");
  EXPECT_EQ(Names(), (std::vector<std::string>{"a", "b"}));
  // Across transactions, as a PG's undo record does it: move away, then back.
  for (int i = 0; i < 3; ++i) {
    Transaction t;
    t.Rename("c", "a", "a.undo");
    ASSERT_TRUE(store_->Apply(t).ok());
    EXPECT_EQ(Names(), (std::vector<std::string>{"a.undo", "b"}));
    Transaction back;
    back.Rename("c", "a.undo", "a");
    ASSERT_TRUE(store_->Apply(back).ok());
  }
  EXPECT_EQ(ReadAll("a"), std::string(5000, 'b'));
  EXPECT_EQ(store_->free_bytes(), free);
  ExpectFsckClean();
}

TEST_P(RenameTest, RenameAndRemoveInOneTransaction) {
  Put("a", std::string(9000, 'a'), "a");
  Put("b", std::string(5000, 'b'), "b");
  {
    Transaction t;
    t.Rename("c", "a", "b");
    t.Remove("c", "b");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  EXPECT_EQ(Names(), std::vector<std::string>{});
  EXPECT_EQ(store_->free_bytes(), empty_free_);
  ExpectFsckClean();
  // Remove the destination first, then rename onto the free name; then drop the collection.
  Put("a", std::string(9000, 'a'), "a");
  Put("b", std::string(5000, 'b'), "b");
  {
    Transaction t;
    t.Remove("c", "b");
    t.Rename("c", "a", "b");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  EXPECT_EQ(ReadAll("b"), std::string(9000, 'a'));
  EXPECT_EQ(store_->free_bytes(), empty_free_ - Blocks(3));
  {
    Transaction t;
    t.Rename("c", "b", "z");
    t.Remove("c", "z");
    t.RemoveCollection("c");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  EXPECT_EQ(store_->free_bytes(), empty_free_);
  ExpectFsckClean();
}

TEST_P(RenameTest, RenameNeedsAnEmptyCollectionToRemoveIt) {
  Put("a", "data", "a");
  Transaction t;
  t.Rename("c", "a", "b");
  t.RemoveCollection("c");
  EXPECT_EQ(store_->Apply(t).code(), ENOTEMPTY);
  EXPECT_EQ(ReadAll("a"), "data");
}

TEST_P(RenameTest, RenamesArePersisted) {
  Put("a", std::string(12000, 'a'), "a");
  Put("b", std::string(100, 'b'), "b");
  Put("keep", std::string(4096, 'k'), "k");
  Transaction t;
  t.Rename("c", "a", "b");
  t.Rename("c", "keep", "kept");
  t.Write("c", "kept", 4096, ToBytes("more"));
  ASSERT_TRUE(store_->Apply(t).ok());
  std::uint64_t free = store_->free_bytes();
  Mount();
  EXPECT_EQ(store_->free_bytes(), free);
  EXPECT_EQ(Names(), (std::vector<std::string>{"b", "kept"}));
  EXPECT_EQ(ReadAll("b"), std::string(12000, 'a'));
  EXPECT_EQ(Attr("b"), "a");
  EXPECT_EQ(ReadAll("kept"), std::string(4096, 'k') + "more");
  EXPECT_EQ(Attr("kept"), "k");
  ExpectFsckClean();
}

// Transactions naming either end of a rename are ordered with it: a writer of the destination
// racing a renamer neither leaks nor shares blocks.
TEST_P(RenameTest, ConcurrentRenamesAndWritesOfTheDestination) {
  Put("p", std::string(3 * kBlockSize, 'p'), "p");
  std::atomic<bool> failed{false};
  std::thread renamer([&] {
    for (int i = 0; i < 150 && !failed; ++i) {
      Transaction there;
      there.Rename("c", "p", "q");
      Transaction back;
      back.Rename("c", "q", "p");
      if (!store_->Apply(there).ok() || !store_->Apply(back).ok()) failed = true;
    }
  });
  std::thread writer([&] {
    for (int i = 0; i < 150 && !failed; ++i) {
      Transaction t;
      t.Write("c", "q", 0, ToBytes(std::string(2 * kBlockSize + 1, 'q')));
      if (!store_->Apply(t).ok()) failed = true;
    }
  });
  renamer.join();
  writer.join();
  ASSERT_FALSE(failed);
  // p holds its first contents, or a write to q made while it was there.
  std::string p = ReadAll("p");
  std::string rewritten = std::string(2 * kBlockSize + 1, 'q') + std::string(kBlockSize - 1, 'p');
  EXPECT_TRUE(p == std::string(3 * kBlockSize, 'p') || p == rewritten) << p.size();
  std::uint64_t used = 0;
  for (const std::string& name : Names()) used += store_->Stat("c", name)->allocated_bytes;
  EXPECT_EQ(store_->free_bytes(), empty_free_ - used);
  ExpectFsckClean();
}

// The undo record of an overwrite: the old blocks move to the undo object and the write takes
// new ones, one transaction; no block is read, written twice or leaked, across a remount.
TEST_P(RenameTest, MoveBlocksHandsOldBlocksToAnotherObjectWithoutCopying) {
  std::string data(3 * kBlockSize + 100, 'a');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i / kBlockSize);
  Put("s", data, "s");
  std::uint64_t free = store_->free_bytes();
  EXPECT_EQ(free, empty_free_ - Blocks(4));
  Transaction t;
  t.Touch("c", "u");
  t.MoveBlocks("c", "s", "u", Blocks(1), Blocks(2));
  t.Write("c", "s", Blocks(1), ToBytes(std::string(2 * kBlockSize, 'x')));
  ASSERT_TRUE(store_->Apply(t).ok());
  // Two new blocks for the write; the two old ones now belong to "u".
  EXPECT_EQ(store_->free_bytes(), free - Blocks(2));
  std::string want = data;
  want.replace(kBlockSize, 2 * kBlockSize, std::string(2 * kBlockSize, 'x'));
  EXPECT_EQ(ReadAll("s"), want);
  EXPECT_EQ(ReadAll("u"), std::string(kBlockSize, '\0') + data.substr(kBlockSize, 2 * kBlockSize));
  EXPECT_EQ(store_->Stat("c", "u")->allocated_bytes, Blocks(2));
  ExpectFsckClean();
  Mount();
  EXPECT_EQ(ReadAll("s"), want);
  EXPECT_EQ(store_->Stat("c", "u")->size, Blocks(3));
  // Up to the source's end only: the last block is partial (100 bytes), the destination's size
  // stops there.
  Transaction tail;
  tail.MoveBlocks("c", "s", "v", Blocks(3), Blocks(4));
  ASSERT_TRUE(store_->Apply(tail).ok());
  EXPECT_EQ(store_->Stat("c", "v")->size, Blocks(3) + 100);
  EXPECT_EQ(ReadAll("v").substr(Blocks(3)), data.substr(Blocks(3)));
  EXPECT_EQ(ReadAll("s").substr(Blocks(3)), std::string(100, '\0'));  // a hole now
  // Removing both frees every block.
  Transaction rm;
  for (const char* name : {"s", "u", "v"}) rm.Remove("c", name);
  ASSERT_TRUE(store_->Apply(rm).ok());
  EXPECT_EQ(store_->free_bytes(), empty_free_);
  ExpectFsckClean();
}

TEST_P(RenameTest, MoveBlocksRefusesPartialBlocksAndMissingSources) {
  Put("s", std::string(2 * kBlockSize, 's'), "s");
  std::uint64_t free = store_->free_bytes();
  Transaction odd;
  odd.MoveBlocks("c", "s", "u", 100, kBlockSize);
  EXPECT_EQ(store_->Apply(odd).code(), EINVAL);
  Transaction self;
  self.MoveBlocks("c", "s", "s", 0, kBlockSize);
  EXPECT_EQ(store_->Apply(self).code(), EINVAL);
  Transaction missing;
  missing.MoveBlocks("c", "nope", "u", 0, kBlockSize);
  EXPECT_EQ(store_->Apply(missing).code(), ENOENT);
  EXPECT_EQ(store_->free_bytes(), free);
  EXPECT_FALSE(Exists("u"));
  ExpectFsckClean();
}

INSTANTIATE_TEST_SUITE_P(Backends, RenameTest,
                         ::testing::Combine(::testing::Values(IoBackend::kUring, IoBackend::kSync),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::string(IoBackendName(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "Journal" : "NoJournal");
                         });

}  // namespace
}  // namespace ec::osd::store
