// Every error path of the plugin loader, proven with the broken plugins of plugins/test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ec/plugin.h"

namespace ec {
namespace {

std::string Dir() {
  return PluginRegistry::default_directory();
}

TEST(Registry, DefaultDirectoryFollowsEnvironment) {
  // ecstore_add_test sets EC_PLUGIN_DIR to build/lib.
  ASSERT_NE(getenv("EC_PLUGIN_DIR"), nullptr);
  EXPECT_EQ(Dir(), getenv("EC_PLUGIN_DIR"));
}

TEST(Registry, DefaultDirectoryWithoutEnvironmentIsBesideLibec) {
  const char* env = getenv("EC_PLUGIN_DIR");
  ASSERT_NE(env, nullptr);
  const std::string saved = env;
  unsetenv("EC_PLUGIN_DIR");
  const std::string dir = Dir();
  setenv("EC_PLUGIN_DIR", saved.c_str(), 1);
  // In the build tree libec.so and the plugins share build/lib, and no ecstore/erasure-code
  // folder is there (an install's layout; tests/install checks that one).
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "libec.so")) << dir;
  EXPECT_TRUE(std::filesystem::equivalent(dir, saved)) << dir << " vs " << saved;
}

TEST(Registry, LoadsAndUsesAWorkingPlugin) {
  auto& reg = PluginRegistry::instance();
  ASSERT_TRUE(reg.load("test_example", Dir()).ok());
  EXPECT_NE(reg.get("test_example"), nullptr);
  // A second load is a no-op.
  EXPECT_TRUE(reg.load("test_example", Dir()).ok());
  Profile p = {{"k", "3"}};
  ErasureCodeInterfaceRef code;
  Status s = reg.factory("test_example", Dir(), p, &code);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(code->get_chunk_count(), 4u);
  EXPECT_EQ(p.at("m"), "1");  // the factory normalised the caller's profile
  std::vector<std::byte> in(300, std::byte{7});
  ChunkMap chunks;
  ASSERT_TRUE(code->encode({0, 1, 2, 3}, in, &chunks).ok());
  chunks.erase(1);
  ChunkMap out;
  ASSERT_TRUE(code->decode({1}, chunks, &out, 100).ok());
  EXPECT_EQ(out[1].span()[0], std::byte{7});
  // Registering the same name twice is EEXIST.
  EXPECT_EQ(reg.add("test_example", nullptr).code(), EEXIST);
}

TEST(Registry, AvailableListsTheLibrariesOfADirectory) {
  auto& reg = PluginRegistry::instance();
  const std::vector<std::string> names = reg.available(Dir());
  for (const char* name : {"test_example", "test_wrong_version"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  // A library without the init symbol is not a plugin (a plugin built without its entry point).
  for (const char* name : {"test_missing_entry_point"}) {
    EXPECT_EQ(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // A folder without plugins still lists the built-ins and what is registered already.
  ASSERT_TRUE(reg.load("test_example", Dir()).ok());
  const std::vector<std::string> elsewhere = reg.available("/nonexistent-ec-plugin-dir");
  EXPECT_NE(std::find(elsewhere.begin(), elsewhere.end(), "test_example"), elsewhere.end());
  EXPECT_EQ(std::find(elsewhere.begin(), elsewhere.end(), "test_wrong_version"), elsewhere.end());
}

TEST(Registry, MissingLibraryIsEIO) {
  Status s = PluginRegistry::instance().load("does_not_exist", Dir());
  EXPECT_EQ(s.code(), EIO);
  EXPECT_NE(s.message().find("load dlopen(" + Dir() + "/libec_does_not_exist.so)"),
            std::string::npos)
      << s.message();
}

TEST(Registry, MissingVersionIsEXDEV) {
  Status s = PluginRegistry::instance().load("test_missing_version", Dir());
  EXPECT_EQ(s.code(), EXDEV);
  EXPECT_NE(s.message().find("but it claims to be an older version instead"), std::string::npos)
      << s.message();
}

TEST(Registry, WrongVersionIsEXDEV) {
  Status s = PluginRegistry::instance().load("test_wrong_version", Dir());
  EXPECT_EQ(s.code(), EXDEV);
  EXPECT_NE(s.message().find(std::string("version ") + kPluginVersion +
                             " but it claims to be 0.0.0-wrong instead"),
            std::string::npos)
      << s.message();
}

TEST(Registry, MissingEntryPointIsENOENT) {
  Status s = PluginRegistry::instance().load("test_missing_entry_point", Dir());
  EXPECT_EQ(s.code(), ENOENT);
  EXPECT_NE(s.message().find("__erasure_code_init"), std::string::npos) << s.message();
}

TEST(Registry, FailingInitReportsItsError) {
  Status s = PluginRegistry::instance().load("test_fail_to_initialize", Dir());
  EXPECT_EQ(s.code(), ESRCH);
  EXPECT_NE(s.message().find("erasure_code_init(test_fail_to_initialize,"), std::string::npos)
      << s.message();
  EXPECT_EQ(PluginRegistry::instance().get("test_fail_to_initialize"), nullptr);
}

TEST(Registry, InitThatDoesNotRegisterIsEBADF) {
  Status s = PluginRegistry::instance().load("test_fail_to_register", Dir());
  EXPECT_EQ(s.code(), EBADF);
  EXPECT_NE(s.message().find("did not register test_fail_to_register"), std::string::npos);
}

TEST(Registry, BadNamesAreRefused) {
  EXPECT_EQ(PluginRegistry::instance().load("../etc", Dir()).code(), EINVAL);
  EXPECT_EQ(PluginRegistry::instance().load("", Dir()).code(), EINVAL);
}

class FakePlugin : public ErasureCodePlugin {
 public:
  explicit FakePlugin(bool change_profile) : change_(change_profile) {}
  Status factory(const std::string& dir, Profile& profile, ErasureCodeInterfaceRef* out) override {
    // Delegate to the example plugin, then tamper with the profile if asked to.
    Status s = PluginRegistry::instance().factory("test_example", dir, profile, out);
    if (change_) profile["extra"] = "1";
    return s;
  }
  bool change_;
};

TEST(Registry, BuiltinsAreFoundBeforeDlopenAndProfilesAreChecked) {
  auto& reg = PluginRegistry::instance();
  reg.register_builtin("fake_ok", [] { return std::make_unique<FakePlugin>(false); });
  reg.register_builtin("fake_bad", [] { return std::make_unique<FakePlugin>(true); });
  Profile p = {{"k", "2"}};
  ErasureCodeInterfaceRef code;
  ASSERT_TRUE(reg.load("fake_ok", "/nonexistent").ok());  // built-in: the directory is unused
  ASSERT_TRUE(reg.factory("fake_ok", Dir(), p, &code).ok());
  Profile q = {{"k", "2"}};
  Status s = reg.factory("fake_bad", Dir(), q, &code);
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("factory profile {"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("!= get_profile()"), std::string::npos);
}

TEST(Registry, Preload) {
  EXPECT_TRUE(PluginRegistry::instance().preload("test_example, test_example", Dir()).ok());
  EXPECT_EQ(PluginRegistry::instance().preload("test_example nope", Dir()).code(), EIO);
}

}  // namespace
}  // namespace ec
