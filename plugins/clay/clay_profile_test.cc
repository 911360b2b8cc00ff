// Profile parsing: defaults written back, Ceph's messages, sub-code creation through the
// registry, chunk sizes, and the plugin entry points.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "ec/plugin.h"
#include "plugins/clay/clay_test_util.h"

namespace ec {
namespace {

Status InitError(const std::string& text) {
  Status s;
  auto code = clay_test::MakeClay(text, &s);
  EXPECT_FALSE(code) << text;
  return s;
}

TEST(ClayProfile, DefaultsAreWrittenBack) {
  auto code = clay_test::MakeClay("");
  ASSERT_TRUE(code);
  const Profile& p = code->get_profile();
  EXPECT_EQ(p.at("k"), "4");
  EXPECT_EQ(p.at("m"), "2");
  EXPECT_EQ(p.at("d"), "5");
  EXPECT_EQ(p.at("scalar_mds"), "jerasure");
  EXPECT_EQ(p.at("technique"), "reed_sol_van");
  EXPECT_EQ(p.at("crush-failure-domain"), "host");
  EXPECT_EQ(code->get_sub_chunk_count(), 8u);
  EXPECT_EQ(code->get_chunk_count(), 6u);
  EXPECT_EQ(code->get_data_chunk_count(), 4u);
  // d defaults to k+m-1 of the given k and m; isa's default technique is reed_sol_van too.
  code = clay_test::MakeClay("k=8 m=4 scalar_mds=isa");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_profile().at("d"), "11");
  EXPECT_EQ(code->get_profile().at("technique"), "reed_sol_van");
  EXPECT_EQ(code->get_sub_chunk_count(), 64u);
  // init(get_profile()) gives the same code.
  Profile again = code->get_profile();
  ErasureCodeClay twin(PluginRegistry::default_directory());
  ASSERT_TRUE(twin.init(again).ok());
  EXPECT_EQ(twin.get_profile(), code->get_profile());
}

TEST(ClayProfile, CephMessages) {
  Status s = InitError("k=4 m=2 d=6");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "value of d 6 must be within [ 4,5]");
  s = InitError("k=4 m=2 d=3");
  EXPECT_EQ(s.message(), "value of d 3 must be within [ 4,5]");
  s = InitError("scalar_mds=foo");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(),
            "scalar_mds foo is not currently supported, use one of 'jerasure', "
            "'isa', 'shec'");
  s = InitError("technique=cauchy");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(),
            "technique cauchy is not currently supported, use one of "
            "'reed_sol_van', 'reed_sol_r6_op', 'cauchy_orig', 'cauchy_good', "
            "'liber8tion'");
  s = InitError("scalar_mds=isa technique=cauchy_good");
  EXPECT_EQ(s.message(),
            "technique cauchy_good is not currently supported, use one of "
            "'reed_sol_van', 'cauchy'");
  s = InitError("scalar_mds=shec technique=reed_sol_van");
  EXPECT_EQ(s.message(),
            "technique reed_sol_van is not currently supported, use one of "
            "'single', 'multiple'");
  s = InitError("k=1");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "k=1 must be >= 2");
  s = InitError("m=0");
  EXPECT_EQ(s.message(), "m=0 must be >= 1");
  s = InitError("k=four");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message().rfind("could not convert k=four to int because", 0), 0u) << s.message();
  s = InitError("d=x");
  EXPECT_EQ(s.message().rfind("could not convert d=x to int", 0), 0u) << s.message();
}

TEST(ClayProfile, ErrorsWhereCephSaysNothing) {
  // k+m+nu > 254: Ceph returns EINVAL without a word.
  Status s = InitError("k=200 m=60 d=259");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("k+m+nu=300"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("254"), std::string::npos) << s.message();
  // q^t too large for a chunk alignment (Ceph overflows an int).
  s = InitError("k=60 m=4 d=63");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("sub-chunks"), std::string::npos) << s.message();
  // A mapping would silently mislabel chunks in Ceph's clay.
  s = InitError("mapping=_DD_DD");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("mapping"), std::string::npos);
  EXPECT_TRUE(clay_test::MakeClay("mapping=DDDD__"));  // the identity is harmless
}

TEST(ClayProfile, SubCodeErrorsPassThrough) {
  // shec: the registry's load failure until that plugin exists.
  Status s = InitError("scalar_mds=shec");
  EXPECT_EQ(s.code(), EIO) << s.ToString();
  EXPECT_NE(s.message().find("load dlopen("), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("libec_shec.so"), std::string::npos) << s.message();
  // reed_sol_r6_op needs m=2: the jerasure plugin says so.
  s = InitError("k=4 m=3 d=6 technique=reed_sol_r6_op");
  EXPECT_NE(s.code(), 0);
  EXPECT_NE(s.message().find("RAID6"), std::string::npos) << s.message();
  // isa Vandermonde is limited to m <= 4.
  s = InitError("k=4 m=5 d=8 scalar_mds=isa");
  EXPECT_NE(s.code(), 0);
  EXPECT_NE(s.message().find("m=5"), std::string::npos) << s.message();
}

TEST(ClayProfile, ChunkSizes) {
  struct Case {
    const char* profile;
    unsigned stripe_width;
    unsigned chunk;
  };
  const Case cases[] = {
      {"k=4 m=2 d=5", 4 * 4096, 4096},
      {"k=4 m=3 d=5", 4 * 4096, 4096},
      {"k=8 m=4 d=11", 8 * 4096, 4096},
      {"k=8 m=3 d=10", 8 * 4096, 5184},
      {"k=10 m=4 d=13", 10 * 4096, 8192},
      {"k=16 m=4 d=19", 16 * 4096, 32768},
      {"k=9 m=6 d=14", 9 * 4096, 6912},
      {"k=8 m=3 d=10", 4651, 2592},
      {"k=4 m=2 d=5 scalar_mds=isa", 4651, 1280},
      {"k=4 m=2", 0, 0},
  };
  for (const Case& c : cases) {
    auto code = clay_test::MakeClay(c.profile);
    ASSERT_TRUE(code) << c.profile;
    EXPECT_EQ(code->get_chunk_size(c.stripe_width), c.chunk) << c.profile << " " << c.stripe_width;
  }
  // Bit-matrix sub-codes align to their own packet blocks: cauchy_good (2,2) -> 65536.
  auto code = clay_test::MakeClay("technique=cauchy_good");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_chunk_size(1), 8u * 65536u);
  EXPECT_FALSE(code->fast_path());
  EXPECT_TRUE(clay_test::MakeClay("")->fast_path());
}

TEST(ClayProfile, SharedObjectEntryPoints) {
  const std::string path = PluginRegistry::default_directory() + "/libec_clay.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto version = reinterpret_cast<const char* (*)()>(dlsym(lib, "__erasure_code_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), kPluginVersion);
  EXPECT_NE(dlsym(lib, "__erasure_code_init"), nullptr);
  // Register it under another name through its init entry point and make a code with it.
  auto init =
      reinterpret_cast<int (*)(const char*, const char*)>(dlsym(lib, "__erasure_code_init"));
  ASSERT_EQ(init("clay_from_so", PluginRegistry::default_directory().c_str()), 0);
  ErasureCodePlugin* plugin = PluginRegistry::instance().get("clay_from_so");
  ASSERT_NE(plugin, nullptr);
  Profile profile{{"k", "3"}, {"m", "2"}};
  ErasureCodeInterfaceRef code;
  ASSERT_TRUE(plugin->factory(PluginRegistry::default_directory(), profile, &code).ok());
  EXPECT_EQ(code->get_sub_chunk_count(), 8u);  // q=2, nu=1, t=3
}

}  // namespace
}  // namespace ec
