// The shec profile: Ceph's defaults, limits and messages, chunk sizes, and the plugin entry points.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "ec/plugin.h"
#include "plugins/shec/shec_plugin.h"
#include "plugins/shec/shec_test_util.h"

namespace ec {
namespace {

using shec_test::InitError;
using shec_test::MakeCode;

TEST(ShecProfile, DefaultsAreWrittenBack) {
  auto code = MakeCode("");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_data_chunk_count(), 4u);
  EXPECT_EQ(code->get_chunk_count(), 7u);
  EXPECT_EQ(code->c(), 2);
  EXPECT_EQ(code->w(), 8);
  EXPECT_EQ(code->technique(), shec::Technique::kMultiple);
  const Profile& p = code->get_profile();
  EXPECT_EQ(p.at("technique"), "multiple");
  EXPECT_EQ(p.at("k"), "4");
  EXPECT_EQ(p.at("m"), "3");
  EXPECT_EQ(p.at("c"), "2");
  EXPECT_EQ(p.at("w"), "8");
  EXPECT_EQ(p.at("crush-root"), "default");
  EXPECT_EQ(p.at("crush-failure-domain"), "host");
  // init(get_profile()) gives the same code.
  Profile again = p;
  ErasureCodeShec twin(shec::Technique::kMultiple, nullptr);
  ASSERT_TRUE(twin.init(again).ok());
  EXPECT_EQ(twin.get_profile(), p);
  EXPECT_EQ(twin.codec()->matrix(), code->codec()->matrix());
}

TEST(ShecProfile, CephsMessages) {
  struct Case {
    const char* profile;
    const char* first_line;
    const char* values;
  };
  const Case cases[] = {
      {"k=4 m=3", "(k, m, c) must be choosed", "(0, 0, 0)"},
      {"c=1", "(k, m, c) must be choosed", "(0, 0, 0)"},
      {"k=x m=3 c=2", "could not convert k=xto int", "(0, 3, 2)"},
      {"k=4 m=3 c=", "could not convert c=to int", "(4, 3, 0)"},
      {"k=0 m=3 c=2", "k=0 must be a positive number", "(0, 3, 2)"},
      {"k=4 m=-1 c=2", "m=-1 must be a positive number", "(4, -1, 2)"},
      {"k=4 m=3 c=0", "c=0 must be a positive number", "(4, 3, 0)"},
      {"k=4 m=3 c=4", "c=4 must be less than or equal to m=3", "(4, 3, 4)"},
      {"k=13 m=3 c=2", "k=13 must be less than or equal to 12", "(13, 3, 2)"},
      {"k=12 m=9 c=2", "k+m=21 must be less than or equal to 20", "(12, 9, 2)"},
      {"k=3 m=4 c=2", "m=4 must be less than or equal to k=3", "(3, 4, 2)"},
  };
  for (const Case& c : cases) {
    Status s = InitError(c.profile);
    EXPECT_EQ(s.code(), EINVAL) << c.profile;
    EXPECT_EQ(s.message(),
              std::string(c.first_line) + "\n(k, m, c)=" + c.values + " is not a valid parameter.")
        << c.profile;
  }
  Status s = InitError("technique=foo");
  EXPECT_EQ(s.code(), ENOENT);
  EXPECT_EQ(s.message(),
            "technique=foo is not a valid coding technique. Choose one of the following: single, "
            "multiple");
  EXPECT_EQ(InitError("technique=").code(), ENOENT);
}

TEST(ShecProfile, LimitsThatPass) {
  for (const char* p : {"k=1 m=1 c=1", "k=12 m=8 c=8", "k=10 m=10 c=1", "k=12 m=7 c=4 w=32"}) {
    EXPECT_TRUE(InitError(p).ok()) << p;
  }
}

TEST(ShecProfile, BadWordSizeFallsBackToEight) {
  for (const char* w : {"7", "64", "x", ""}) {
    auto code = MakeCode(std::string("k=4 m=3 c=2 w=") + w);
    ASSERT_TRUE(code) << w;
    EXPECT_EQ(code->w(), 8);
    EXPECT_EQ(code->get_profile().at("w"), "8");
  }
  auto code = MakeCode("k=4 m=3 c=2 w=16 technique=single");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->w(), 16);
  EXPECT_EQ(code->technique(), shec::Technique::kSingle);
}

TEST(ShecProfile, ChunkSizes) {
  struct Case {
    const char* profile;
    unsigned stripe_width;
    unsigned chunk;
  };
  const Case cases[] = {
      {"k=4 m=3 c=2", 4651, 1184},  // ceph-ec-reference.md §3: alignment 128
      {"k=4 m=3 c=2", 4 * 4096, 4096},  {"k=3 m=2 c=1", 4096, 1376},
      {"k=1 m=1 c=1", 10000, 10016},    {"k=4 m=3 c=2 w=16", 4096, 1024},
      {"k=4 m=3 c=2 w=32", 4097, 1152}, {"k=12 m=7 c=4", 65536, 5472},
  };
  for (const Case& c : cases) {
    auto code = MakeCode(c.profile);
    ASSERT_TRUE(code) << c.profile;
    EXPECT_EQ(code->get_chunk_size(c.stripe_width), c.chunk) << c.profile << " " << c.stripe_width;
  }
}

TEST(ShecProfile, RegistryBuiltinAndSharedObject) {
  RegisterShecBuiltin();
  Profile profile = {{"k", "6"}, {"m", "3"}, {"c", "2"}};
  ErasureCodeInterfaceRef code;
  ASSERT_TRUE(PluginRegistry::instance().factory("shec", "", profile, &code).ok());
  EXPECT_EQ(code->get_chunk_count(), 9u);
  EXPECT_EQ(profile.at("technique"), "multiple");

  const char* dir = std::getenv("EC_PLUGIN_DIR");
  ASSERT_NE(dir, nullptr) << "EC_PLUGIN_DIR must point at the build's lib/ folder";
  const std::string path = std::string(dir) + "/libec_shec.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto version = reinterpret_cast<const char* (*)()>(dlsym(lib, "__erasure_code_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), kPluginVersion);
  EXPECT_NE(dlsym(lib, "__erasure_code_init"), nullptr);
}

}  // namespace
}  // namespace ec
