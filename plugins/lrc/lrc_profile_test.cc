// The lrc profile: generated layers, explicit mapping + layers, crush-steps, and Ceph's checks
// with their messages and error numbers (lrc_profile.h, lrc_code.h).
#include <gtest/gtest.h>

#include "ec/plugin.h"
#include "plugins/lrc/lrc_plugin.h"
#include "plugins/lrc/lrc_test_util.h"

namespace ec {
namespace {

using lrc::LrcErrno;
using lrc::LrcError;
using lrc_test::InitError;
using lrc_test::MakeLrc;

std::vector<std::string> LayerMaps(const ErasureCodeLrc& code) {
  std::vector<std::string> maps;
  for (const auto& layer : code.layers()) maps.push_back(layer.chunks_map);
  return maps;
}

TEST(LrcProfile, GeneratedLayersOfTheCorpusProfiles) {
  struct Want {
    const char* kml;
    const char* mapping;
    std::vector<std::string> layers;
  };
  for (const Want& w : {
           Want{"k=2 m=2 l=2", "D__D__", {"Dc_Dc_", "DDc___", "___DDc"}},
           Want{"k=4 m=2 l=3", "DD__DD__", {"DDc_DDc_", "DDDc____", "____DDDc"}},
           Want{"k=8 m=4 l=3",
                "DD__DD__DD__DD__",
                {"DDc_DDc_DDc_DDc_", "DDDc____________", "____DDDc________", "________DDDc____",
                 "____________DDDc"}},
       }) {
    Result<Profile> p = ParseProfile(std::string("plugin=lrc ") + w.kml);
    ASSERT_TRUE(p.ok());
    bool generated = false;
    std::vector<lrc::RuleStep> steps;
    ASSERT_TRUE(lrc::ParseKml(*p, &generated, &steps).ok()) << w.kml;
    EXPECT_TRUE(generated);
    EXPECT_EQ(p->at("mapping"), w.mapping) << w.kml;
    auto specs = lrc::ParseLayers(*p);
    ASSERT_TRUE(specs.ok()) << specs.status().message();
    std::vector<std::string> maps;
    for (const auto& spec : *specs) {
      maps.push_back(spec.chunks_map);
      EXPECT_TRUE(spec.profile.empty());
    }
    EXPECT_EQ(maps, w.layers) << w.kml;
    EXPECT_EQ(steps, (std::vector<lrc::RuleStep>{{"chooseleaf", "host", 0}}));

    auto code = MakeLrc(w.kml);
    ASSERT_TRUE(code);
    EXPECT_EQ(LayerMaps(*code), w.layers);
  }
}

TEST(LrcProfile, KmlCodeCountsSizesAndProfile) {
  Status s;
  auto code = MakeLrc("k=4 m=2 l=3", &s);
  ASSERT_TRUE(code) << s.ToString();
  EXPECT_EQ(code->get_chunk_count(), 8u);  // k + m + (k+m)/l
  EXPECT_EQ(code->get_data_chunk_count(), 4u);
  EXPECT_EQ(code->get_coding_chunk_count(), 4u);
  EXPECT_EQ(code->get_sub_chunk_count(), 1u);
  EXPECT_EQ(code->get_chunk_size(4651), 1184u);  // the global layer: jerasure k=4
  EXPECT_EQ(code->get_chunk_mapping(), (std::vector<int>{0, 1, 4, 5, 2, 3, 6, 7}));
  // The generated mapping and layers are not kept; the base defaults are.
  EXPECT_EQ(code->get_profile(), (Profile{{"crush-device-class", ""},
                                          {"crush-failure-domain", "host"},
                                          {"crush-root", "default"},
                                          {"k", "4"},
                                          {"l", "3"},
                                          {"m", "2"},
                                          {"plugin", "lrc"}}));
  const auto& global = code->layers().front().profile;
  EXPECT_EQ(global.at("plugin"), "jerasure");
  EXPECT_EQ(global.at("technique"), "reed_sol_van");
  EXPECT_EQ(global.at("k"), "4");
  EXPECT_EQ(global.at("m"), "2");
  EXPECT_EQ(code->layers()[1].profile.at("k"), "3");
  EXPECT_EQ(code->layers()[1].profile.at("m"), "1");

  auto wide = MakeLrc("k=8 m=4 l=3");
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->get_chunk_count(), 16u);
  auto small = MakeLrc("k=2 m=2 l=2");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->get_chunk_count(), 6u);
}

TEST(LrcProfile, CrushLocalityMakesTwoSteps) {
  auto code = MakeLrc("k=4 m=2 l=3 crush-locality=rack crush-failure-domain=osd");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->rule_steps(),
            (std::vector<lrc::RuleStep>{{"choose", "rack", 2}, {"chooseleaf", "osd", 4}}));
  EXPECT_EQ(code->get_profile().at("crush-locality"), "rack");
}

TEST(LrcProfile, KmlErrorsHaveCephsTextAndNumbers) {
  Status s = InitError("k=4 m=2");
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kAllOrNothing));
  EXPECT_EQ(s.ceph_code(), -(4095 + 17));
  EXPECT_EQ(s.message(), "All of k, m, l must be set or none of them in {k=4,l=-1,m=2,plugin=lrc}");

  s = InitError("k=4 m=2 l=3 mapping=DD__DD__");
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kGenerated));
  EXPECT_EQ(s.message(),
            "The mapping parameter cannot be set when k, m, l are set in "
            "{k=4,l=3,m=2,mapping=DD__DD__,plugin=lrc}");
  EXPECT_EQ(InitError(Profile{{"k", "4"}, {"m", "2"}, {"l", "3"}, {"crush-steps", "[]"}}).code(),
            LrcErrno(LrcError::kGenerated));

  s = InitError("k=4 m=2 l=4");
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kKMModulo));
  EXPECT_EQ(s.message(), "k + m must be a multiple of l in {k=4,l=4,m=2,plugin=lrc}");
  EXPECT_EQ(InitError("k=4 m=2 l=0").code(), LrcErrno(LrcError::kKMModulo));

  s = InitError("k=4 m=2 l=2");  // 3 groups do not divide k=4
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kKModulo));
  EXPECT_EQ(s.message(), "k must be a multiple of (k + m) / l in {k=4,l=2,m=2,plugin=lrc}");
  // (k+m)/l divides k+m, so when it divides k it divides m: kMModulo cannot happen.

  s = InitError("k=x m=2 l=3");  // k falls back to -1: not all of them are set
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kAllOrNothing));
  s = InitError("k=0 m=2 l=2");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("must be positive"), std::string::npos) << s.message();
}

// The profile of an explicit description: plugin=lrc, mapping, layers (JSON), more keys.
Profile Explicit(const std::string& mapping, const std::string& layers, Profile more = {}) {
  more["plugin"] = "lrc";
  more["mapping"] = mapping;
  more["layers"] = layers;
  return more;
}

TEST(LrcProfile, ExplicitMappingAndLayers) {
  Profile p =
      Explicit("DD__DD__", R"([ [ "DDc_DDc_", "" ], [ "DDDc____", "plugin=isa technique=cauchy" ],)"
                           R"( [ "____DDDc", { "plugin": "jerasure", "technique": "cauchy_good",)"
                           R"( "packetsize": "32" } ] ])");
  RegisterLrcBuiltin();
  ErasureCodeInterfaceRef ref;
  Profile normalised = p;
  Status s = PluginRegistry::instance().factory("lrc", PluginRegistry::default_directory(),
                                                normalised, &ref);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto code = std::dynamic_pointer_cast<ErasureCodeLrc>(ref);
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_chunk_count(), 8u);
  EXPECT_EQ(code->get_data_chunk_count(), 4u);
  // An explicit profile keeps mapping and layers, and Ceph's k=-1 m=-1 l=-1.
  EXPECT_EQ(code->get_profile().at("mapping"), "DD__DD__");
  EXPECT_EQ(code->get_profile().at("layers"), p.at("layers"));
  EXPECT_EQ(code->get_profile().at("k"), "-1");
  EXPECT_EQ(code->get_profile().at("l"), "-1");
  EXPECT_EQ(code->layers()[1].profile.at("plugin"), "isa");
  EXPECT_EQ(code->layers()[1].profile.at("technique"), "cauchy");
  EXPECT_EQ(code->layers()[2].profile.at("packetsize"), "32");
  EXPECT_EQ(code->rule_steps(), (std::vector<lrc::RuleStep>{{"chooseleaf", "host", 0}}));

  Profile again = code->get_profile();
  ErasureCodeInterfaceRef twin;
  ASSERT_TRUE(PluginRegistry::instance()
                  .factory("lrc", PluginRegistry::default_directory(), again, &twin)
                  .ok());
  EXPECT_EQ(twin->get_profile(), code->get_profile());
}

TEST(LrcProfile, CrushSteps) {
  auto layers = R"([["DDc",""]])";
  ErasureCodeLrc code(PluginRegistry::default_directory());
  Profile p = Explicit("DD_", layers,
                       {{"crush-steps", R"([["choose","rack",2],["chooseleaf","host",4]])"}});
  ASSERT_TRUE(code.init(p).ok());
  EXPECT_EQ(code.rule_steps(),
            (std::vector<lrc::RuleStep>{{"choose", "rack", 2}, {"chooseleaf", "host", 4}}));
  EXPECT_EQ(code.get_profile().at("crush-steps"),
            R"([["choose","rack",2],["chooseleaf","host",4]])");

  Status s = InitError(Explicit("DD_", layers, {{"crush-steps", "[x"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kParseJson));
  EXPECT_EQ(s.message().rfind("failed to parse crush-steps='[x' at line 1, column ", 0), 0u)
      << s.message();
  s = InitError(Explicit("DD_", layers, {{"crush-steps", R"("a")"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kArray));
  EXPECT_EQ(s.message(), R"(crush-steps='"a"' must be a JSON array but is of type 2 instead)");
  s = InitError(Explicit("DD_", layers, {{"crush-steps", "[1]"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kArray));
  EXPECT_EQ(s.message(),
            "element of the array [1] must be a JSON array but 1 at position 0 is of type 4 "
            "instead");
  s = InitError(Explicit("DD_", layers, {{"crush-steps", "[[1]]"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kRuleOp));
  EXPECT_EQ(s.message(),
            "element 0 of the array [1] found in [[1]] must be a JSON string but is of type 4 "
            "instead");
  s = InitError(Explicit("DD_", layers, {{"crush-steps", R"([["a",{}]])"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kRuleType));
  s = InitError(Explicit("DD_", layers, {{"crush-steps", R"([["a","b","c"]])"}}));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kRuleN));
  EXPECT_NE(s.message().find("must be a JSON int but is of type 2 instead"), std::string::npos);
}

TEST(LrcProfile, LayersErrorsHaveCephsTextAndNumbers) {
  Status s = InitError("mapping=DD_");
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kDescription));
  EXPECT_EQ(s.message(),
            "could not find 'layers' in "
            "{crush-device-class=,crush-root=default,k=-1,l=-1,m=-1,mapping=DD_,plugin=lrc}");

  s = InitError(Explicit("DD_", "[ [ \"DDc\""));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kParseJson));
  EXPECT_EQ(s.message().rfind("failed to parse layers='[ [ \"DDc\"' at line 1, column ", 0), 0u)
      << s.message();

  s = InitError(Explicit("DD_", "{}"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kArray));
  EXPECT_EQ(s.message(), "layers='{}' must be a JSON array but is of type 0 instead");

  s = InitError(Explicit("DD_", "[1]"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kArray));
  EXPECT_EQ(s.message(),
            "each element of the array [1] must be a JSON array but 1 at position 0 is of type 4 "
            "instead");

  s = InitError(Explicit("DD_", "[[1]]"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kStr));
  EXPECT_EQ(s.message(),
            "the first element of the entry 1 (first is zero) 0 in [[1]] is of type 4 instead of "
            "string");

  s = InitError(Explicit("DD_", R"([["DDc",[]]])"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kConfigOptions));
  EXPECT_EQ(s.message(),
            R"(the second element of the entry [] (first is zero) 0 in [["DDc",[]]] is of type 1 )"
            "instead of string or object");

  s = InitError(Explicit("DD_", R"([["DDc","[1]"]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "[1] must be a JSON object but is of type 1 instead");

  s = InitError(Profile{{"layers", R"([["DDc",""]])"}});
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kMapping));
  EXPECT_EQ(s.message().rfind("the 'mapping' profile is missing from {", 0), 0u) << s.message();

  s = InitError(Explicit("DD_", "[]"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kLayersCount));
  EXPECT_EQ(s.message(), "layers parameter has 0 which is less than the minimum of one. []");
  // An empty entry adds no layer (Ceph's rule).
  EXPECT_EQ(InitError(Explicit("DD_", "[[]]")).code(), LrcErrno(LrcError::kLayersCount));

  s = InitError(Explicit("DD_", R"([["DDc_",""]])"));
  EXPECT_EQ(s.code(), LrcErrno(LrcError::kMappingSize));
  EXPECT_NE(s.message().find("It is expected to be 3 characters long but is 4 characters long"),
            std::string::npos)
      << s.message();

  // A layer's own plugin errors come back as they are.
  s = InitError(Explicit("DD_", R"([["DDc","technique=nope"]])"));
  EXPECT_EQ(s.code(), ENOENT);
  EXPECT_NE(s.message().find("technique=nope is not a valid coding technique"), std::string::npos)
      << s.message();
}

TEST(LrcProfile, BeyondCephRefusesLayersThatCannotWork) {
  Status s = InitError(Explicit("DD_", R"([["DDc","plugin=clay"]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "layer 'DDc' uses plugin=clay: lrc layers must be jerasure or isa codes");

  s = InitError(Explicit("DD_", R"([["DDc","k=3"]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("has 2 D and 1 c but its profile makes a code of k=3 m=1"),
            std::string::npos)
      << s.message();

  s = InitError(Explicit("DD_", R"([["DDc",""],["cDD",""]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "layer 1 'cDD' computes chunk 0, a data chunk of mapping DD_");

  s = InitError(Explicit("DD__", R"([["DDc_",""],["DDc_",""]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "layer 1 'DDc_' computes chunk 2, which layer 0 computes already");

  s = InitError(Explicit("DD__", R"([["DDDc",""],["DDc_",""]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "layer 0 'DDDc' reads chunk 2 before layer 1 computes it");

  s = InitError(Explicit("___", R"([["DDc",""]])"));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.message(), "mapping ___ has no data chunk ('D')");
}

TEST(LrcProfile, LayerProfileStrings) {
  Profile p;
  ASSERT_TRUE(lrc::ParseLayerProfile("plugin=isa  technique=cauchy\tflag", &p).ok());
  EXPECT_EQ(p, (Profile{{"plugin", "isa"}, {"technique", "cauchy"}, {"flag", ""}}));
  p.clear();
  ASSERT_TRUE(lrc::ParseLayerProfile(R"({"plugin":"isa"})", &p).ok());
  EXPECT_EQ(p, (Profile{{"plugin", "isa"}}));
  p.clear();
  ASSERT_TRUE(lrc::ParseLayerProfile("", &p).ok());
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(lrc::ParseLayerProfile(R"({"k":3})", &p).code(), EINVAL);
}

}  // namespace
}  // namespace ec
