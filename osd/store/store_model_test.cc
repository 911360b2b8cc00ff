// Randomized model test: thousands of random transactions and reads against an in-memory model,
// with remounts and fsck in between. The seed is printed; replay with ECSTORE_TEST_SEED.
#include <gtest/gtest.h>

#include <cstdlib>

#include "osd/store/store_model.h"

namespace ec::osd::store {
namespace {

using testing::MakeOptions;
using testing::Model;
using testing::ModelTest;

TEST_P(ModelTest, RandomTransactionsMatchTheModel) {
  std::uint64_t seed = testing::TestSeed();
  rng_.seed(seed);
  int txs = 2500;
  if (const char* n = std::getenv("ECSTORE_MODEL_TXS")) txs = std::atoi(n);
  opts_ = MakeOptions(dir_, GetParam());
  ASSERT_TRUE(ObjectStore::Mkfs(opts_).ok());
  Mount();
  Model model;
  int failed = 0;
  for (int i = 0; i < txs; ++i) {
    Model next = model;
    Transaction t;
    for (std::uint64_t n = 1 + rng_() % 4; n > 0; --n) RandomOp(next, t);
    bool poison = rng_() % 20 == 0;  // an op that must fail and undo the whole transaction
    if (poison && rng_() % 2 == 0) t.Remove("pg.0", "no.such.object");
    if (poison) t.Rename("pg.0", "no.such.object", "obj.0");
    Status s = store_->Apply(t);
    if (poison) {
      ASSERT_FALSE(s.ok()) << "tx " << i;
      ++failed;
    } else {
      ASSERT_TRUE(s.ok()) << "tx " << i << ": " << s.ToString();
      model = std::move(next);
    }
    if (!model.objects.empty() && rng_() % 3 == 0) {
      auto it = model.objects.begin();
      std::advance(it, static_cast<long>(rng_() % model.objects.size()));
      CheckObject(it->first, it->second, true);
      if (HasFatalFailure()) return;
    }
    if (i % 500 == 499) {
      Mount();
      CheckAll(model);
      CheckFsck(false);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(failed, 0);
  Mount();
  CheckAll(model);
  CheckFsck(true);
}

INSTANTIATE_TEST_SUITE_P(Backends, ModelTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
