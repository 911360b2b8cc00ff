// The store's on-disk formats, byte for byte. Every expected string below was produced by the store
// code before its formats moved onto the base layer's codec (host-order memcpy, on x86-64), so
// these tests prove that stores made by that code still read, and that new stores are the same
// bytes: the formats kept their versions.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <string>

#include "common/crc32c.h"
#include "osd/store/aligned_buffer.h"
#include "osd/store/allocator.h"
#include "osd/store/journal.h"
#include "osd/store/onode.h"
#include "osd/store/store_test_support.h"
#include "osd/store/superblock.h"

namespace ec::osd::store {
namespace {

std::string Hex(const void* p, std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* b = static_cast<const unsigned char*>(p);
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += kHex[b[i] >> 4];
    s += kHex[b[i] & 15];
  }
  return s;
}

std::string Unhex(const std::string& h) {
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  }
  return out;
}

Onode SampleOnode() {
  Onode o;
  o.size = 10000;
  o.attrs["a"] = "xy";
  o.attrs["k"] = "";
  o.blocks[0] = {5, 0x11223344};
  o.blocks[1] = {6, 0x55667788};
  o.blocks[2] = {9, 0xAABBCCDD};
  return o;
}

// size | 2 attrs | 2 runs: (0 -> 5, 2 crcs), (2 -> 9, 1 crc)
const std::string kOnodeHex =
    "1027000000000000"
    "02000000"
    "0100000061"
    "020000007879"
    "010000006b"
    "00000000"
    "02000000"
    "0000000000000000"
    "0500000000000000"
    "02000000"
    "44332211"
    "88776655"
    "0200000000000000"
    "0900000000000000"
    "01000000"
    "ddccbbaa";

TEST(StoreFormat, OnodeBytes) {
  const std::string enc = SampleOnode().Encode();
  EXPECT_EQ(Hex(enc.data(), enc.size()), kOnodeHex);
  auto back = Onode::Decode(Unhex(kOnodeHex));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, SampleOnode());
}

TEST(StoreFormat, OnodeDamageIsDataLoss) {
  const std::string good = Unhex(kOnodeHex);
  for (std::size_t len = 0; len < good.size(); ++len) {
    auto r = Onode::Decode(good.substr(0, len));
    ASSERT_FALSE(r.ok()) << len;
    EXPECT_TRUE(r.status().is_data_loss()) << r.status().ToString();
    EXPECT_EQ(r.status().message().rfind("corrupt object metadata: ", 0), 0u);
  }
  // An attribute count no record of this size could hold is refused before anything is made.
  std::string huge_count = good;
  huge_count[8] = huge_count[9] = huge_count[10] = huge_count[11] = '\xff';
  auto r = Onode::Decode(huge_count);
  EXPECT_TRUE(r.status().is_data_loss());
  // A run whose logical blocks would wrap around 2^64.
  Onode o;
  o.size = 4096;
  std::string wrap = o.Encode();
  wrap.resize(wrap.size() - 4);  // the run count 0
  wrap += Unhex(
      "01000000ffffffffffffffff000000000000000002000000"
      "0000000000000000");
  EXPECT_TRUE(Onode::Decode(wrap).status().is_data_loss());
}

const std::string kSuperblockHex =
    "454353544f524500"                  // magic
    "02000000"                          // version
    "00100000"                          // block size
    "000102030405060708090a0b0c0d0e0f"  // uuid
    "0000000400000000"                  // device size: 64 MiB
    "0100000000000000"                  // journal block
    "1000000000000000"                  // journal blocks
    "a1238577"                          // crc32c
    "00000000";

TEST(StoreFormat, SuperblockBytes) {
  Superblock sb;
  for (std::uint8_t i = 0; i < 16; ++i) sb.uuid[i] = i;
  sb.device_size = 64ull << 20;
  sb.journal_block = 1;
  sb.journal_blocks = 16;
  AlignedBuffer block(kBlockSize);
  sb.Encode(block.span());
  EXPECT_EQ(Hex(block.data(), 64), kSuperblockHex);

  AlignedBuffer old(kBlockSize);
  const std::string bytes = Unhex(kSuperblockHex);
  std::memcpy(old.data(), bytes.data(), bytes.size());
  auto back = Superblock::Decode(old.span());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->uuid, sb.uuid);
  EXPECT_EQ(back->version, kFormatVersion);
  EXPECT_EQ(back->device_size, sb.device_size);
  EXPECT_EQ(back->journal_block, 1u);
  EXPECT_EQ(back->journal_blocks, 16u);

  old.data()[40] = std::byte{2};  // journal block 2: the crc no longer matches
  EXPECT_TRUE(Superblock::Decode(old.span()).status().is_data_loss());
}

TEST(StoreFormat, AllocatorSegmentAndKeys) {
  Allocator a(100);
  ASSERT_TRUE(a.Allocate(3).ok());  // blocks 1..3 (block 0 is the superblock's)
  const std::string seg = a.EncodeSegment(0);
  ASSERT_EQ(seg.size(), 512u);
  // Blocks 0..3 used; bits past block 99 are kept set.
  EXPECT_EQ(Hex(seg.data(), 24),
            "0f00000000000000"
            "00000000f0ffffff"
            "0000000000000000");
  EXPECT_EQ(seg.find_first_not_of('\0', 16), std::string::npos);
  Allocator b(100);
  ASSERT_TRUE(b.DecodeSegment(0, seg).ok());
  EXPECT_TRUE(Allocator::Diff(a, b, 10).empty());
  EXPECT_FALSE(b.DecodeSegment(0, seg.substr(1)).ok());

  // Keys sort like their numbers: big-endian.
  const std::string alloc_key = keys::AllocSegment(0x0102030405060708ull);
  EXPECT_EQ(Hex(alloc_key.data(), alloc_key.size()), "410102030405060708");
  const std::string deferred_key = keys::Deferred(258);
  EXPECT_EQ(Hex(deferred_key.data(), deferred_key.size()), "570000000000000102");
}

TEST(StoreFormat, JournalRecordAndCheckpointBytes) {
  testing::TempDir dir;
  DeviceOptions d;
  d.backend = IoBackend::kSync;
  d.create_size = testing::kTestDeviceSize;
  auto dev = OpenFileDevice(dir.File("dev"), d);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  Superblock sb;
  for (std::uint8_t i = 0; i < 16; ++i) sb.uuid[i] = i;
  sb.device_size = (*dev)->size();
  sb.journal_block = 1;
  sb.journal_blocks = 16;
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.File("db"), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);

  Journal j(**dev, *db, sb);
  ASSERT_TRUE(j.Replay().ok());
  rocksdb::WriteBatch batch;
  ASSERT_TRUE(batch.Put("key", "value").ok());
  WrittenBlock wb{1000, 0xA1B2C3D4};
  Status st = j.Commit(batch, std::span<const WrittenBlock>(&wb, 1), {});
  ASSERT_TRUE(st.ok()) << st.ToString();
  AlignedBuffer ring(kBlockSize);
  IoRequest r{IoRequest::Op::kRead, 1 * kBlockSize, {iovec{ring.data(), kBlockSize}}};
  ASSERT_TRUE((*dev)->Submit(std::span<IoRequest>(&r, 1)).ok());
  EXPECT_EQ(Hex(ring.data(), 83),
            "45434a524e4c0001"                  // magic
            "000102030405060708090a0b0c0d0e0f"  // uuid
            "0100000000000000"                  // seq 1
            "17000000"                          // batch bytes
            "01000000"                          // data blocks
            "13bd16f3"                          // body crc
            "af9fe025"                          // header crc
            "e803000000000000d4c3b2a1"          // block 1000, its crc
            "000000000000000001000000"          // the RocksDB batch: seq, count
            "01036b65790576616c7565");          // Put "key" "value"

  ASSERT_TRUE(j.Checkpoint().ok());
  std::string pos;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), std::string(Journal::kPosKey), &pos).ok());
  EXPECT_EQ(Hex(pos.data(), pos.size()), "01000000000000000100000000000000");  // seq 1, block 1

  // A second record whose data block really holds its crc (replay checks the last one's).
  AlignedBuffer data(kBlockSize);
  std::memset(data.data(), 0x5a, kBlockSize);
  WrittenBlock wb2{1001, Crc32c(data.span())};
  IoRequest w{IoRequest::Op::kWrite, 1001 * kBlockSize, {iovec{data.data(), kBlockSize}}};
  rocksdb::WriteBatch batch2;
  ASSERT_TRUE(batch2.Put("key2", "value2").ok());
  ASSERT_TRUE(
      j.Commit(batch2, std::span<const WrittenBlock>(&wb2, 1), std::span<const IoRequest>(&w, 1))
          .ok());

  // Back to a checkpoint before both (seq 0, ring block 0, in the old bytes) with the database
  // missing their batches: replay decodes both records and applies them again.
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), std::string(Journal::kPosKey),
                      Unhex("00000000000000000000000000000000"))
                  .ok());
  ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), "key").ok());
  Journal again(**dev, *db, sb);
  st = again.Replay();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(again.stats().replayed, 2u);
  std::string v;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "key", &v).ok());
  EXPECT_EQ(v, "value");
}

}  // namespace
}  // namespace ec::osd::store
