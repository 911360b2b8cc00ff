// A model of a store's contents for randomized tests (store_model_test.cc, crash_test.cc): the
// collections and objects a sequence of acknowledged transactions must leave, random valid ops that
// update model and transaction together, and checks of a store against the model.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>

#include "osd/store/store_test_support.h"

namespace ec::osd::store::testing {

struct ModelObject {
  std::string data;
  std::map<std::string, std::string> attrs;
};
using Key = std::pair<std::string, std::string>;
struct Model {
  std::set<std::string> colls;
  std::map<Key, ModelObject> objects;
};

class ModelTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  // Subclasses may use everything below.
  void Mount() {
    store_.reset();
    auto st = ObjectStore::Open(opts_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }

  // Adds one valid random op to `t` and applies it to `m`.
  void RandomOp(Model& m, Transaction& t) {
    const std::vector<std::string> colls = {"pg.0", "pg.1", "pg.2"};
    std::string coll = colls[rng_() % colls.size()];
    std::string name = "obj." + std::to_string(rng_() % 10);
    Key key{coll, name};
    if (m.colls.count(coll) == 0) {
      t.CreateCollection(coll);
      m.colls.insert(coll);
      return;
    }
    auto it = m.objects.find(key);
    bool exists = it != m.objects.end();
    switch (rng_() % 11) {
      case 0:
      case 1:
      case 2:
      case 3: {  // write: unaligned, aligned, or far past the end (holes)
        std::uint64_t off = rng_() % 3 == 0 ? (rng_() % 16) * kBlockSize : rng_() % 70000;
        std::size_t len = rng_() % 3 == 0 ? (1 + rng_() % 4) * kBlockSize : 1 + rng_() % 20000;
        auto bytes = testing::RandomBytes(rng_, len);
        t.Write(coll, name, off, bytes);
        std::string& d = m.objects[key].data;
        if (d.size() < off + len) d.resize(off + len, '\0');
        std::memcpy(d.data() + off, bytes.data(), len);
        return;
      }
      case 4:
        if (exists) {
          std::uint64_t size = rng_() % 80000;
          t.Truncate(coll, name, size);
          it->second.data.resize(size, '\0');
          return;
        }
        break;
      case 5:
        if (exists) {
          t.Remove(coll, name);
          m.objects.erase(it);
          return;
        }
        break;
      case 6: {
        std::string k = "a" + std::to_string(rng_() % 4);
        std::string v = std::to_string(rng_());
        t.SetAttr(coll, name, k, v);
        m.objects[key].attrs[k] = v;
        return;
      }
      case 7:
        if (exists && !it->second.attrs.empty()) {
          std::string k = it->second.attrs.begin()->first;
          t.RemoveAttr(coll, name, k);
          it->second.attrs.erase(k);
          return;
        }
        break;
      case 8:
        t.Touch(coll, name);
        m.objects[key];
        return;
      case 9:
        if (exists) {  // to a free name or over another object, whose blocks are then freed
          std::string to = "obj." + std::to_string(rng_() % 10);
          if (to != name) {
            t.Rename(coll, name, to);
            ModelObject moved = std::move(it->second);
            m.objects.erase(it);
            m.objects[Key{coll, to}] = std::move(moved);
            return;
          }
        }
        break;
      default: {
        bool empty = true;
        for (const auto& [k, o] : m.objects) empty = empty && k.first != coll;
        if (empty && rng_() % 4 == 0) {
          t.RemoveCollection(coll);
          m.colls.erase(coll);
          return;
        }
        break;
      }
    }
    t.Touch(coll, name);
    m.objects[key];
  }

  void CheckObject(const Key& key, const ModelObject& want, bool random_extents) {
    auto info = store_->Stat(key.first, key.second);
    ASSERT_TRUE(info.ok()) << key.first << "/" << key.second << ": " << info.status().ToString();
    ASSERT_EQ(info->size, want.data.size()) << key.first << "/" << key.second;
    std::vector<Extent> ext;
    if (random_extents) {
      for (std::uint64_t i = 0, n = 1 + rng_() % 6; i < n; ++i) {
        std::uint64_t off = rng_() % (want.data.size() + 5000);
        ext.push_back({off, rng_() % 9000});
      }
    } else {
      ext.push_back({0, want.data.size()});
    }
    auto r = store_->Read(key.first, key.second, ext);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (std::size_t i = 0; i < ext.size(); ++i) {
      std::string expect = ext[i].offset >= want.data.size()
                               ? std::string()
                               : want.data.substr(ext[i].offset, ext[i].length);
      ASSERT_EQ(testing::ToString((*r)[i]), expect)
          << key.first << "/" << key.second << " extent " << ext[i].offset << "+" << ext[i].length;
    }
    for (const auto& [k, v] : want.attrs) {
      auto a = store_->GetAttr(key.first, key.second, k);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      EXPECT_EQ(*a, v);
    }
  }

  void CheckAll(const Model& m) {
    auto colls = store_->ListCollections();
    ASSERT_TRUE(colls.ok());
    EXPECT_EQ(std::set<std::string>(colls->begin(), colls->end()), m.colls);
    for (const std::string& c : m.colls) {
      auto names = store_->List(c);
      ASSERT_TRUE(names.ok());
      std::vector<std::string> want;
      for (const auto& [k, o] : m.objects) {
        if (k.first == c) want.push_back(k.second);
      }
      EXPECT_EQ(*names, want) << c;
    }
    for (const auto& [k, o] : m.objects) {
      CheckObject(k, o, false);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  // Whether the store holds exactly `m` (no assertions: for choosing between the states a crash may
  // leave, before CheckAll asserts one of them).
  bool Matches(const Model& m) {
    auto colls = store_->ListCollections();
    if (!colls.ok() || std::set<std::string>(colls->begin(), colls->end()) != m.colls) return false;
    for (const std::string& c : m.colls) {
      auto names = store_->List(c);
      std::vector<std::string> want;
      for (const auto& [k, o] : m.objects) {
        if (k.first == c) want.push_back(k.second);
      }
      if (!names.ok() || *names != want) return false;
    }
    for (const auto& [k, o] : m.objects) {
      Extent all{0, o.data.size() + 1};
      auto r = store_->Read(k.first, k.second, std::span<const Extent>(&all, 1));
      if (!r.ok() || testing::ToString((*r)[0]) != o.data) return false;
      for (const auto& [ak, av] : o.attrs) {
        auto a = store_->GetAttr(k.first, k.second, ak);
        if (!a.ok() || *a != av) return false;
      }
    }
    return true;
  }

  void CheckFsck(bool deep) {
    auto r = store_->Fsck(deep);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& e : r->errors) ADD_FAILURE() << e;
  }

  TempDir dir_;
  StoreOptions opts_;
  std::unique_ptr<ObjectStore> store_;
  std::mt19937_64 rng_;
};

}  // namespace ec::osd::store::testing
