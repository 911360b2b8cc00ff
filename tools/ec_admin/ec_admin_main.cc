// ec-admin: the cluster map's admin tool with Ceph's `ceph` command syntax (issue 13 item 5).
// Only the program's frame is here: the config file, the etcd client, the exit code (the errno
// of the error, as `ceph`'s: admin_command.h). The commands are cluster/admin
// (ec_cluster_admin), which the tests drive in-process.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cluster/admin/admin_command.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_store.h"
#include "common/cli.h"
#include "common/cli_errors.h"
#include "common/config.h"

namespace {

constexpr const char* kSystemConf = "/etc/ecstore/ecstore.conf";

// Prints "Error ENOENT: <message>" and returns the exit status: the status's errno.
int Fail(const ec::Status& status) {
  const ec::cluster::admin::CommandResult r = ec::cluster::admin::ErrorResult(status);
  std::cerr << r.err;
  return r.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  namespace admin = ec::cluster::admin;
  std::vector<std::string> args(argv + 1, argv + argc);
  ec::Result<admin::GlobalArgs> global = admin::ParseGlobalArgs(args);
  if (!global.ok()) return Fail(global.status());
  if (global->help) {
    std::cout << (global->words.empty() ? admin::HelpText() : admin::HelpFor(global->words));
    return 0;
  }
  if (global->version) {
    std::cout << "ec-admin " << ec::cli::kVersion << "\n";
    return 0;
  }
  if (global->words.empty()) {
    std::cerr << admin::HelpText();
    return ec::cli::kUsageExitStatus;
  }

  std::string conf = ec::ConfigPath(global->conf);
  if (conf.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(kSystemConf, ec)) {
      return Fail(ec::Status::Invalid("no config: pass -c CONF or set EC_CONF"));
    }
    conf = kSystemConf;
  }
  ec::Result<ec::ClientConfig> config = ec::LoadClientConfig(conf);
  if (!config.ok()) return Fail(config.status());
  if (config->etcd_endpoints.empty()) {
    return Fail(ec::Status::Invalid(conf + ": no etcd_endpoints in [global]"));
  }
  ec::Result<ec::etcd::ClientOptions> options = ec::etcd::MakeClientOptions(
      {config->etcd_endpoints,
       config->etcd_op_timeout,
       {config->etcd_ca_file, config->etcd_cert_file, config->etcd_key_file},
       config->etcd_user,
       config->etcd_password_file});
  if (!options.ok()) return Fail(options.status().WithPrefix(conf));
  const ec::etcd::Client client(*options);
  const ec::cluster::MapStore store(&client, config->etcd_prefix);

  admin::AdminContext ctx;
  ctx.store = &store;
  ctx.format = global->format;
  ctx.etcd_endpoints = config->etcd_endpoints;
  ctx.cluster_id = config->etcd_prefix;
  ctx.osd_pool_default_flag_ec_optimizations = config->osd_pool_default_flag_ec_optimizations;
  ctx.osd_pool_default_size = config->osd_pool_default_size;
  ctx.osd_pool_default_min_size = config->osd_pool_default_min_size;
  ctx.keyring = config->keyring;  // the mon. key of the auth commands
  const admin::CommandResult result = admin::RunCommand(global->words, ctx);
  std::cout << result.out << std::flush;
  std::cerr << result.err << std::flush;
  return result.exit_code;
}
