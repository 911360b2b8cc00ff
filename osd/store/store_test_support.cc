#include "osd/store/store_test_support.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ec::osd::store::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ec_store_test.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) std::abort();
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

StoreOptions MakeOptions(const TempDir& dir, IoBackend backend, std::uint64_t size) {
  StoreOptions o;
  o.device_path = dir.File("dev");
  o.db_path = dir.File("db");
  o.device_size = size;
  o.backend = backend;
  return o;
}

Result<std::unique_ptr<ObjectStore>> MkfsAndOpen(const TempDir& dir, IoBackend backend,
                                                 std::uint64_t size) {
  const StoreOptions o = MakeOptions(dir, backend, size);
  EC_RETURN_IF_ERROR(ObjectStore::Mkfs(o));
  return ObjectStore::Open(o);
}

std::vector<std::byte> RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng() & 0xFF);
  return v;
}

std::vector<std::byte> ToBytes(const std::string& s) {
  std::vector<std::byte> v(s.size());
  if (!s.empty())
    std::memcpy(v.data(), s.data(), s.size());  // an empty vector's data() may be null
  return v;
}

std::string ToString(const Buffer& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

std::uint64_t TestSeed() {
  std::uint64_t seed = 0;
  if (const char* s = std::getenv("ECSTORE_TEST_SEED")) {
    seed = std::strtoull(s, nullptr, 10);
  } else {
    seed = std::random_device{}();
  }
  std::cout << "seed " << seed << " (replay with ECSTORE_TEST_SEED=" << seed << ")\n";
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

Status CountingDevice::Submit(std::span<IoRequest> batch) {
  ++submits;
  for (const IoRequest& r : batch) {
    if (r.op == IoRequest::Op::kRead) blocks_read += r.length() / kBlockSize;
  }
  return base_->Submit(batch);
}

}  // namespace ec::osd::store::testing
