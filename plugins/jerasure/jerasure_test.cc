// jerasure plugin: profiles (defaults, round trip, every Ceph error message), chunk sizes, and
// the plugin entry points. Codec behaviour: jerasure_codec_test.cc; Ceph corpus:
// jerasure_corpus_test.cc.
#include <dlfcn.h>

#include <string>

#include "ec/plugin.h"
#include "plugins/jerasure/jerasure_cauchy.h"
#include "plugins/jerasure/jerasure_rs.h"
#include "plugins/jerasure/jerasure_test_util.h"

namespace ec::jerasure {
namespace {

using testing::FactoryStatus;
using testing::MakeCode;

struct DefaultsCase {
  const char* technique;
  const char* k;
  const char* m;
  const char* w;
  const char* packetsize;  // nullptr: the key is not read
  bool per_chunk_key;      // jerasure-per-chunk-alignment is read and written back
};

const DefaultsCase kDefaults[] = {
    {"reed_sol_van", "7", "3", "8", nullptr, true},
    {"reed_sol_r6_op", "7", "2", "8", nullptr, false},
    {"cauchy_orig", "7", "3", "8", "2048", true},
    {"cauchy_good", "7", "3", "8", "2048", true},
    {"liberation", "2", "2", "7", "2048", false},
    {"blaum_roth", "2", "2", "7", "2048", false},
    {"liber8tion", "2", "2", "8", "2048", false},
};

TEST(JerasureProfile, DefaultsAreWrittenBack) {
  for (const DefaultsCase& c : kDefaults) {
    SCOPED_TRACE(c.technique);
    Profile profile;
    ASSERT_TRUE(FactoryStatus(std::string("technique=") + c.technique, &profile).ok());
    EXPECT_EQ(profile["technique"], c.technique);
    EXPECT_EQ(profile["k"], c.k);
    EXPECT_EQ(profile["m"], c.m);
    EXPECT_EQ(profile["w"], c.w);
    EXPECT_EQ(profile.count("packetsize"), c.packetsize ? 1u : 0u);
    if (c.packetsize) {
      EXPECT_EQ(profile["packetsize"], c.packetsize);
    }
    EXPECT_EQ(profile.count("jerasure-per-chunk-alignment"), c.per_chunk_key ? 1u : 0u);
    if (c.per_chunk_key) {
      EXPECT_EQ(profile["jerasure-per-chunk-alignment"], "false");
    }
    EXPECT_EQ(profile["crush-root"], "default");
    EXPECT_EQ(profile["crush-failure-domain"], "host");
    EXPECT_EQ(profile["crush-device-class"], "");
    auto code = MakeCode(std::string("technique=") + c.technique);
    ASSERT_TRUE(code);
    EXPECT_EQ(code->get_profile(), profile);
    EXPECT_EQ(code->get_data_chunk_count(), static_cast<unsigned>(std::stoi(c.k)));
    EXPECT_EQ(code->get_chunk_count(), static_cast<unsigned>(std::stoi(c.k) + std::stoi(c.m)));
    EXPECT_EQ(code->get_sub_chunk_count(), 1u);
  }
}

TEST(JerasureProfile, InitOfGetProfileRoundTrips) {
  const char* profiles[] = {
      "technique=reed_sol_van k=4 m=2",
      "technique=reed_sol_van k=3 m=2 w=16 jerasure-per-chunk-alignment=true",
      "technique=reed_sol_r6_op k=5 w=32",
      "technique=cauchy_orig k=3 m=2 packetsize=32",
      "technique=cauchy_good k=6 m=3 w=16 packetsize=8 jerasure-per-chunk-alignment=yes",
      "technique=liberation k=5 w=7 packetsize=8",
      "technique=blaum_roth k=4 w=6 packetsize=16",
      "technique=liber8tion k=7 packetsize=64",
      "technique=reed_sol_van k=2 m=2 mapping=_DD_ crush-root=r crush-failure-domain=osd",
  };
  for (const char* text : profiles) {
    SCOPED_TRACE(text);
    auto first = MakeCode(text);
    ASSERT_TRUE(first);
    Profile copy = first->get_profile();
    auto code = MakeJerasureCode(copy.at("technique"));
    ASSERT_TRUE(code->init(copy).ok());
    EXPECT_EQ(copy, first->get_profile());
    EXPECT_EQ(code->get_profile(), first->get_profile());
    EXPECT_EQ(code->get_chunk_mapping(), first->get_chunk_mapping());
    EXPECT_EQ(code->get_chunk_size(4651), first->get_chunk_size(4651));
  }
}

TEST(JerasureProfile, MappingIsParsed) {
  auto code = MakeCode("technique=reed_sol_van k=2 m=2 mapping=_DD_");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_chunk_mapping(), (std::vector<int>{1, 2, 0, 3}));
}

// Every message of reference section 2.1, with the exact text Ceph writes.
struct ErrorCase {
  const char* profile;
  int code;
  const char* message;
};

const ErrorCase kErrors[] = {
    {"technique=foo", ENOENT,
     "technique=foo is not a valid coding technique.  Choose one of the following: "
     "reed_sol_van, reed_sol_r6_op, cauchy_orig, cauchy_good, liberation, blaum_roth, "
     "liber8tion"},
    {"k=2", ENOENT,
     "technique= is not a valid coding technique.  Choose one of the following: "
     "reed_sol_van, reed_sol_r6_op, cauchy_orig, cauchy_good, liberation, blaum_roth, "
     "liber8tion"},
    {"technique=reed_sol_van k=1", EINVAL, "k=1 must be >= 2"},
    {"technique=cauchy_good m=0", EINVAL, "m=0 must be >= 1"},
    {"technique=reed_sol_van k=2 m=1 mapping=DD_c", EINVAL,
     "mapping DD_c maps 4 chunks instead of the expected 3 and will be ignored"},
    {"technique=reed_sol_van w=7", EINVAL,
     "ReedSolomonVandermonde: w=7 must be one of {8, 16, 32} : revert to 8"},
    {"technique=reed_sol_r6_op m=3", EINVAL,
     "ReedSolomonRAID6: m=3 must be 2 for RAID6: revert to 2"},
    {"technique=reed_sol_r6_op w=12", EINVAL,
     "ReedSolomonRAID6: w=12 must be one of {8, 16, 32} : revert to 8"},
    {"technique=liberation k=8", EINVAL,
     "k=8 must be less than or equal to w=7\nreverting to k=2, w=7, packetsize=2048"},
    {"technique=liberation w=9", EINVAL,
     "w=9 must be greater than two and be prime\nreverting to k=2, w=7, packetsize=2048"},
    {"technique=liberation packetsize=0", EINVAL,
     "packetsize=0 must be set\nreverting to k=2, w=7, packetsize=2048"},
    {"technique=liberation packetsize=6", EINVAL,
     "packetsize=6 must be a multiple of sizeof(int) = 4\n"
     "reverting to k=2, w=7, packetsize=2048"},
    {"technique=blaum_roth w=9", EINVAL,
     "w=9 must be greater than two and w+1 must be prime\n"
     "reverting to k=2, w=7, packetsize=2048"},
    {"technique=liber8tion m=3", EINVAL, "liber8tion: m=3 must be 2 for liber8tion: revert to 2"},
    {"technique=liber8tion w=7", EINVAL, "liber8tion: w=7 must be 8 for liber8tion: revert to 8"},
    {"technique=liber8tion k=9", EINVAL,
     "k=9 must be less than or equal to w=8\nreverting to k=2, w=8, packetsize=2048"},
    {"technique=liber8tion packetsize=0", EINVAL,
     "packetsize=0 must be set\nreverting to k=2, w=8, packetsize=2048"},
    // Several problems: every message, in Ceph's order.
    {"technique=reed_sol_r6_op k=1 m=3 w=7", EINVAL,
     "k=1 must be >= 2\nReedSolomonRAID6: m=3 must be 2 for RAID6: revert to 2\n"
     "ReedSolomonRAID6: w=7 must be one of {8, 16, 32} : revert to 8"},
    // Beyond Ceph (it would crash or read out of bounds): refused with EINVAL.
    {"technique=cauchy_good w=33", EINVAL, "w=33 must be between 1 and 32"},
    {"technique=cauchy_orig packetsize=0", EINVAL, "packetsize=0 must be a positive integer"},
    {"technique=liberation m=3", EINVAL, "m=3 must be less than or equal to 2"},
};

TEST(JerasureProfile, ErrorMessagesAreCephs) {
  for (const ErrorCase& c : kErrors) {
    SCOPED_TRACE(c.profile);
    Status s = FactoryStatus(c.profile);
    EXPECT_EQ(s.code(), c.code);
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(JerasureProfile, UnparsableIntegerKeepsCephsMessage) {
  Profile profile;
  Status s = FactoryStatus("technique=reed_sol_van k=abc", &profile);
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message().rfind("could not convert k=abc to int because ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(", set to default 7"), std::string::npos) << s.message();
}

TEST(JerasureProfile, LiberationRevertWritesDefaultsIntoProfile) {
  Profile profile;
  Status s = FactoryStatus("technique=liberation k=9 w=9 packetsize=3", &profile);
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(profile["k"], "2");
  EXPECT_EQ(profile["w"], "7");
  EXPECT_EQ(profile["packetsize"], "2048");
}

TEST(JerasureProfile, BlaumRothAcceptsFireflyW7AndPrimeMinusOne) {
  EXPECT_TRUE(FactoryStatus("technique=blaum_roth w=7").ok());
  EXPECT_TRUE(FactoryStatus("technique=blaum_roth w=6 k=6").ok());
  EXPECT_TRUE(FactoryStatus("technique=blaum_roth w=10 k=3").ok());
}

TEST(JerasureProfile, ImpossibleMatricesAreRefused) {
  // Cauchy needs k+m distinct field elements; Vandermonde w=8 at most 256 rows.
  EXPECT_EQ(FactoryStatus("technique=cauchy_orig k=7 m=3 w=2").code(), EINVAL);
  EXPECT_EQ(FactoryStatus("technique=reed_sol_van k=250 m=10").code(), EINVAL);
  // Other cauchy word sizes work (fields are created on demand).
  EXPECT_TRUE(FactoryStatus("technique=cauchy_good k=4 m=3 w=4 packetsize=8").ok());
}

// Reference section 3 examples.
TEST(JerasureChunkSize, ReferenceExamples) {
  EXPECT_EQ(MakeCode("technique=reed_sol_van k=3 m=2")->get_chunk_size(4651), 1568u);
  EXPECT_EQ(MakeCode("technique=reed_sol_van k=3 m=2 jerasure-per-chunk-alignment=true")
                ->get_chunk_size(4651),
            1664u);
  EXPECT_EQ(MakeCode("technique=cauchy_good k=3 m=2 packetsize=32")->get_chunk_size(4651), 2048u);
  // w*packetsize = 256 per chunk: 1551 -> 1792.
  EXPECT_EQ(MakeCode("technique=cauchy_good k=3 m=2 packetsize=32 "
                     "jerasure-per-chunk-alignment=true")
                ->get_chunk_size(4651),
            1792u);
  // A 4K stripe unit keeps 4096-byte chunks for reed_sol_van w=8.
  for (int k = 2; k <= 12; ++k) {
    auto code = MakeCode("technique=reed_sol_van m=2 k=" + std::to_string(k));
    EXPECT_EQ(code->get_chunk_size(4096 * k), 4096u) << k;
  }
  // Default packetsize 2048, w=8: alignment 65536*k, so a 4K unit becomes a 64 KiB chunk.
  EXPECT_EQ(MakeCode("technique=cauchy_good k=4 m=2")->get_chunk_size(4 * 4096), 65536u);
  // Liberation family: k*w*packetsize*4 (w=7, packetsize=32: 1792 for k=2).
  EXPECT_EQ(MakeCode("technique=liberation packetsize=32")->get_chunk_size(10000), 5376u);
  // Liberation ignores per-chunk alignment, as Ceph does.
  EXPECT_EQ(MakeCode("technique=liberation packetsize=32 jerasure-per-chunk-alignment=true")
                ->get_chunk_size(10000),
            5376u);
  // w*packetsize*4 not a multiple of 16 (w=3, packetsize=1): k*w*packetsize*16 = 96 is used.
  auto odd = MakeCode("technique=cauchy_orig k=2 m=1 w=3 packetsize=1");
  EXPECT_EQ(odd->get_chunk_size(1), 48u);
  // reed_sol_van w=16 per-chunk: w*16 = 256.
  EXPECT_EQ(MakeCode("technique=reed_sol_van k=3 w=16 jerasure-per-chunk-alignment=true")
                ->get_chunk_size(4651),
            1792u);
}

TEST(JerasurePlugin, BuiltinRegistration) {
  RegisterJerasureBuiltin();
  Profile profile = {{"technique", "reed_sol_van"}, {"k", "4"}, {"m", "2"}};
  ErasureCodeInterfaceRef code;
  Status s = PluginRegistry::instance().factory("jerasure", "", profile, &code);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(code->get_chunk_count(), 6u);
  Profile bad = {{"technique", "nope"}};
  EXPECT_EQ(PluginRegistry::instance().factory("jerasure", "", bad, &code).code(), ENOENT);
}

TEST(JerasurePlugin, SharedObjectEntryPoints) {
  const std::string path = std::string(ECSTORE_PLUGIN_BUILD_DIR) + "/libec_jerasure.so";
  void* library = dlopen(path.c_str(), RTLD_NOW);
  ASSERT_NE(library, nullptr) << dlerror();
  using VersionFn = const char* (*)();
  using InitFn = int (*)(const char*, const char*);
  auto version = reinterpret_cast<VersionFn>(dlsym(library, "__erasure_code_version"));
  auto init = reinterpret_cast<InitFn>(dlsym(library, "__erasure_code_init"));
  ASSERT_NE(version, nullptr);
  ASSERT_NE(init, nullptr);
  EXPECT_STREQ(version(), kPluginVersion);
  // Registered under the name it is given; a second registration is EEXIST.
  ASSERT_EQ(init("jerasure_from_so", ECSTORE_PLUGIN_BUILD_DIR), 0);
  EXPECT_EQ(init("jerasure_from_so", ECSTORE_PLUGIN_BUILD_DIR), -EEXIST);
  ErasureCodePlugin* plugin = PluginRegistry::instance().get("jerasure_from_so");
  ASSERT_NE(plugin, nullptr);
  Profile profile = {{"technique", "cauchy_good"}, {"k", "3"}, {"m", "2"}};
  ErasureCodeInterfaceRef code;
  ASSERT_TRUE(plugin->factory("", profile, &code).ok());
  EXPECT_EQ(code->get_chunk_size(4651), 65536u);  // packetsize 2048: alignment 3*8*2048*4
  // Plugins are never unloaded while the process runs (see ec/plugin.h).
}

}  // namespace
}  // namespace ec::jerasure
