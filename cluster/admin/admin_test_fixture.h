// Tests only: the fixture of ec-admin's in-process command tests (admin_test.cc,
// scrub_admin_test.cc): a real etcd (testing::EtcdServer) per test suite, a key prefix of its own
// per test, and the commands run through RunCommand with a fixed clock.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/admin/admin_command.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/map_store.h"

namespace ec::cluster::admin::test_support {

inline constexpr std::int64_t kNow = 1'700'000'000'000;  // ms since 1970

inline std::vector<std::string> Split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class AdminFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new etcd::testing::EtcdServer;
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(server_ != nullptr && server_->running());
    client_ = std::make_unique<etcd::Client>(server_->client_options());
    prefix_ = "/t" + std::to_string(next_prefix_++) + "/";
    store_ = std::make_unique<MapStore>(client_.get(), prefix_);
    ctx_.store = store_.get();
    ctx_.etcd_endpoints = "http://" + server_->endpoint().ToString();
    ctx_.cluster_id = "test-cluster";
    ctx_.now_ms = [] { return kNow; };
  }

  CommandResult Run(const std::string& line, Format format = Format::kPlain) {
    AdminContext ctx = ctx_;
    ctx.format = format;
    return RunCommand(Split(line), ctx);
  }
  // Runs a command that must succeed and returns its result.
  CommandResult Ok(const std::string& line, Format format = Format::kPlain) {
    CommandResult r = Run(line, format);
    EXPECT_EQ(r.exit_code, 0) << line << "\n" << r.err;
    return r;
  }
  nlohmann::json Json(const std::string& line) {
    CommandResult r = Ok(line, Format::kJson);
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }
  // A command that must fail with "Error <name>: ..." (exit code that errno, as `ceph`'s;
  // nothing on stdout).
  std::string Fails(const std::string& line, const std::string& errno_name) {
    CommandResult r = Run(line);
    EXPECT_NE(r.exit_code, 0) << line;
    EXPECT_EQ(ErrnoName(r.exit_code), errno_name) << line << ": exit " << r.exit_code;
    EXPECT_EQ(r.out, "") << line;
    EXPECT_EQ(r.err.rfind("Error " + errno_name + ": ", 0), 0u) << line << "\n" << r.err;
    return r.err;
  }
  // Words that are no command: named first (Ceph's "no valid command found"), with the closest
  // commands, then "Error EINVAL: invalid command"; exit EINVAL.
  std::string Unknown(const std::string& line, const std::string& named) {
    CommandResult r = Run(line);
    EXPECT_EQ(r.exit_code, EINVAL) << line;
    EXPECT_EQ(r.out, "") << line;
    const std::string first =
        "no valid command found; '" + named + "' is not a command (see ec-admin --help)";
    EXPECT_EQ(r.err.rfind(first, 0), 0u) << line << "\n" << r.err;
    const std::string last = "Error EINVAL: invalid command\n";
    EXPECT_TRUE(r.err.size() >= last.size() &&
                r.err.compare(r.err.size() - last.size(), last.size(), last) == 0)
        << line << "\n"
        << r.err;
    return r.err;
  }
  ClusterMap Map() {
    Result<ClusterMap> m = store_->Load();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ClusterMap{};
  }
  // OSD `id` boots on `host` (up and in), 90 s before kNow.
  void Boot(int id, const std::string& host) {
    Result<ClusterMap> m =
        store_->Apply({MapChange::OsdBoot(id, "127.0.0.1:" + std::to_string(6800 + id), host,
                                          "uuid-" + std::to_string(id), kNow - 90'000)});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
  }
  void Down(int id) {
    Result<ClusterMap> m = store_->Apply({MapChange::OsdDown(id, kNow - 1000)});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
  }

  inline static etcd::testing::EtcdServer* server_ = nullptr;
  inline static int next_prefix_ = 0;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MapStore> store_;
  std::string prefix_;
  AdminContext ctx_;
};

}  // namespace ec::cluster::admin::test_support
