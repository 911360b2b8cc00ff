// Profile parsing: defaults written back, Ceph's messages, sub-code creation through the
// registry, chunk sizes, and the plugin entry points.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <functional>

#include "ec/plugin.h"
#include "plugins/clay/clay_test_util.h"
#include "tests/support/test_env.h"

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

// Every loss of one or two chunks of `all`: decoded from every survivor (a failure is counted in
// *eio when it is EIO, for codes that cannot decode every pair), and a single loss also rebuilt
// from the sub-chunks minimum_to_decode names; read_bytes(lost) is what that plan must read (0:
// not checked).
void CheckLosses(const ErasureCodeInterface& code, const ChunkMap& all, std::size_t cs, int* eio,
                 const std::function<std::size_t(int)>& read_bytes) {
  const int n = static_cast<int>(code.get_chunk_count());
  const std::size_t sub = cs / code.get_sub_chunk_count();
  for (int a = 0; a < n; ++a) {
    for (int b = a; b < n; ++b) {
      ShardSet lost = {a, b};
      ChunkMap survivors;
      ShardSet avail;
      for (const auto& [id, chunk] : all) {
        if (lost.count(id)) continue;
        survivors[id] = chunk;
        avail.insert(id);
      }
      ChunkMap decoded;
      Status s = code.decode(lost, survivors, &decoded, cs);
      if (!s.ok() && eio != nullptr && a != b) {
        EXPECT_EQ(s.code(), EIO) << a << "," << b << ": " << s.ToString();
        ++*eio;
        continue;
      }
      ASSERT_TRUE(s.ok()) << a << "," << b << ": " << s.ToString();
      for (int id : lost) EXPECT_TRUE(clay_test::SameBytes(decoded.at(id), all.at(id))) << id;
      if (a != b) continue;
      auto plan = code.minimum_to_decode({a}, avail);
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      std::size_t read = 0;
      ChunkMap helpers;
      for (const auto& [id, ranges] : *plan) {
        helpers[id] = clay_test::Gather(all.at(id), ranges, sub);
        read += helpers[id].size();
      }
      if (read_bytes && read_bytes(a) != 0) {
        EXPECT_EQ(read, read_bytes(a)) << "chunk " << a;
      }
      ChunkMap repaired;
      s = code.decode({a}, helpers, &repaired, cs);
      ASSERT_TRUE(s.ok()) << a << ": " << s.ToString();
      EXPECT_TRUE(clay_test::SameBytes(repaired.at(a), all.at(a))) << "repair of " << a;
    }
  }
}

TEST(ClayProfile, ShecScalarCodeEncodesAndDecodes) {
  // scalar_mds=shec: the sub-codes come from libec_shec.so ({k+nu, m, c=2} and {2, 2, c=2}).
  std::mt19937_64 rng(ectest::Seed());
  for (const char* text : {"k=4 m=2 scalar_mds=shec", "k=3 m=2 d=4 scalar_mds=shec",
                           "k=4 m=2 scalar_mds=shec technique=multiple"}) {
    SCOPED_TRACE(text);
    Status s;
    auto code = clay_test::MakeClay(text, &s);
    ASSERT_TRUE(code) << s.ToString();
    EXPECT_EQ(code->get_profile().at("scalar_mds"), "shec");
    EXPECT_EQ(code->get_profile().at("technique"),
              std::string(text).find("multiple") == std::string::npos ? "single" : "multiple");
    const unsigned k = code->get_data_chunk_count();
    const std::size_t cs = code->get_chunk_size(k * 4096);
    const Buffer data = clay_test::RandomBuffer(rng, k * cs);
    const ChunkMap all = clay_test::EncodeAll(*code, data);
    ASSERT_EQ(clay_test::VerifyCodeword(*code, all), "");
    // Every loss of one or two chunks (m = 2): from all survivors, and a single loss from the
    // sub-chunks the repair plan names.
    CheckLosses(*code, all, cs, nullptr, nullptr);
  }
}

// k=5 m=3 d=7 over shec(6,3,c=2): the sub-chunk repair of a data chunk needs its whole group
// (3 nodes) decoded in each plane, a pattern this shec cannot decode, so the plan for one lost data
// chunk is a whole decode from k chunks (Ceph plans the repair and cannot run it); the parity
// chunks, whose group holds the shortening's virtual node, are repaired from sub-chunks. Every
// loss of two chunks decodes, two of one group as well, as long as the layered decode takes
// sources its sub-code can invert (Ceph 16.2's tool writes wrong bytes for chunks 3 and 4 lost,
// without an error).
TEST(ClayProfile, ShecScalarCodeThatIsNotMdsFallsBackToADecode) {
  std::mt19937_64 rng(ectest::Seed());
  Status s;
  auto code = clay_test::MakeClay("k=5 m=3 d=7 scalar_mds=shec technique=multiple", &s);
  ASSERT_TRUE(code) << s.ToString();
  const std::size_t cs = code->get_chunk_size(5 * 4320);
  const ChunkMap all = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 5 * cs));
  ASSERT_EQ(clay_test::VerifyCodeword(*code, all), "");
  // Data chunks: a decode from k whole chunks; parity: d helpers x 1/q.
  CheckLosses(*code, all, cs, nullptr, [&](int lost) { return lost < 5 ? 5 * cs : 7 * cs / 3; });
}

// k=4 m=3 d=5 over shec(5,3,c=2) (a virtual node, as nu=1): some 5-subsets of its nodes are
// singular although the pattern decodes, so the layered decode must not take just the lowest
// known nodes. Chunk 3 lost left {0,1,2,virtual,4} as its sources, a singular set: every single
// loss decodes (ceph_side_by_side.sh found it when its random subset left out chunk 3), and so
// does every pair, from every survivor and from the k chunks minimum_to_decode names.
TEST(ClayProfile, ShecScalarCodeChoosesSourcesThatDecode) {
  std::mt19937_64 rng(ectest::Seed());
  Status s;
  auto code = clay_test::MakeClay("k=4 m=3 d=5 scalar_mds=shec", &s);
  ASSERT_TRUE(code) << s.ToString();
  const std::size_t cs = code->get_chunk_size(4 * 4096);
  const ChunkMap all = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 4 * cs));
  ASSERT_EQ(clay_test::VerifyCodeword(*code, all), "");
  CheckLosses(*code, all, cs, nullptr, nullptr);  // every loss of one or two chunks
  // The data chunks from what minimum_to_decode and minimum_to_decode_with_cost name.
  const ShardSet data = {0, 1, 2, 3};
  for (int a = 0; a < 7; ++a) {
    for (int b = a + 1; b < 7; ++b) {
      ShardSet avail;
      std::map<int, int> costs;
      for (int id = 0; id < 7; ++id) {
        if (id == a || id == b) continue;
        avail.insert(id);
        costs[id] = 1;
      }
      auto plan = code->minimum_to_decode(data, avail);
      ASSERT_TRUE(plan.ok()) << a << "," << b << ": " << plan.status().ToString();
      auto cheapest = code->minimum_to_decode_with_cost(data, costs);
      ASSERT_TRUE(cheapest.ok()) << a << "," << b << ": " << cheapest.status().ToString();
      ShardSet planned;
      for (const auto& [id, ranges] : *plan) planned.insert(id);
      for (const ShardSet& from : {planned, *cheapest}) {
        ChunkMap chunks, decoded;
        for (int id : from) chunks[id] = all.at(id);
        s = code->decode(data, chunks, &decoded, cs);
        ASSERT_TRUE(s.ok()) << a << "," << b << ": " << s.ToString();
        for (int id : data)
          EXPECT_TRUE(clay_test::SameBytes(decoded.at(id), all.at(id))) << a << "," << b;
      }
    }
  }
}

TEST(ClayProfile, SubCodeErrorsPassThrough) {
  // shec's own limits: k <= 12 (k=13 m=2 d=14 has nu=1, a sub-code with k+nu=14).
  Status s = InitError("k=13 m=2 d=14 scalar_mds=shec");
  EXPECT_EQ(s.code(), EINVAL) << s.ToString();
  EXPECT_NE(s.message().find("k=14 must be less than or equal to 12"), std::string::npos)
      << s.message();
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
