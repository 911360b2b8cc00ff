// The plugin ABI and the plugin registry (Ceph's ErasureCodePlugin.{h,cc} shape).
//
// A plugin is a shared object libec_<name>.so exporting two C symbols:
//   const char* __erasure_code_version(void);   // must equal ec::kPluginVersion
//   int __erasure_code_init(const char* name, const char* directory);
// The init function must register an ErasureCodePlugin under `name` with
// PluginRegistry::instance().add(). Plugins linked into a program can instead be registered as
// built-ins (register_builtin), which load() consults before dlopen.
//
// Errors of load(), each distinct (the message names the path):
//   EIO     dlopen failed                          "load dlopen(PATH): <dlerror>"
//   EXDEV   version symbol missing or different    "expected plugin PATH version X but it claims
//                                                   to be Y instead"
//   ENOENT  init symbol missing                    "load dlsym(PATH, __erasure_code_init): ..."
//   <err>   init returned -err / err               "erasure_code_init(NAME,DIR): <strerror>"
//   EBADF   init did not register NAME             "load __erasure_code_init() did not register
//   NAME" EEXIST  add() of a name already registered
//
// Thread safety: all registry methods are safe to call concurrently. Plugins are never unloaded
// while the process runs (as in Ceph with disable_dlclose), so references stay valid.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ec/erasure_code_interface.h"

namespace ec {

extern const char* const kPluginVersion;

class ErasureCodePlugin {
 public:
  virtual ~ErasureCodePlugin() = default;
  // Creates and init()s a code for `profile` (normalised in place). `directory` is where the
  // plugin came from, for plugins that load others (CLAY).
  virtual Status factory(const std::string& directory, Profile& profile,
                         ErasureCodeInterfaceRef* out) = 0;
  // Called once by the shared object's __erasure_code_init (plugins/plugin_entry.cc) before the
  // plugin is registered; an error refuses the load with that error. For one-time set-up that
  // Ceph's plugins do at load (jerasure: its Galois fields). Default: nothing to do.
  virtual Status prepare() { return Status::OK(); }
};

class PluginRegistry {
 public:
  using BuiltinFactory = std::function<std::unique_ptr<ErasureCodePlugin>()>;

  static PluginRegistry& instance();

  // Registers `plugin` under `name`. EEXIST if the name is taken.
  Status add(const std::string& name, std::unique_ptr<ErasureCodePlugin> plugin);
  // The plugin registered under `name`, or nullptr.
  ErasureCodePlugin* get(const std::string& name);
  // Makes a built-in plugin available under `name` (replaces an earlier built-in of that name).
  void register_builtin(const std::string& name, BuiltinFactory factory);

  // Loads `name` (built-in first, else DIR/libec_NAME.so) unless already registered.
  Status load(const std::string& name, const std::string& directory);
  // Loads every plugin of a comma/space separated list.
  Status preload(const std::string& names, const std::string& directory);
  // load() if needed, then plugin->factory(); checks that the normalised profile equals the
  // code's get_profile() ("factory profile {..} != get_profile() {..}", EINVAL).
  Status factory(const std::string& name, const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out);

  // Names of the plugins load() can find for `directory`: built-ins, plugins already registered
  // and every DIR/libec_NAME.so that names the init symbol, sorted, each once. Nothing is loaded
  // (a name listed may still fail to load). For messages such as "available plugins: ...".
  std::vector<std::string> available(const std::string& directory);

  // The plugin directory used when none is given: $EC_PLUGIN_DIR if set; else, where libec.so
  // itself was loaded from (LIBDIR, found with dladdr), LIBDIR/ecstore/erasure-code if that
  // directory exists (an installed tree: `cmake --install` puts the plugins there), otherwise
  // LIBDIR (the build tree: build/lib holds libec.so and the plugins). "lib" if libec's path is
  // unknown. No environment variable is needed in the build tree or after an install.
  static std::string default_directory();

 private:
  PluginRegistry() = default;
  Status load_locked(const std::string& name, const std::string& directory);

  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<ErasureCodePlugin>> plugins_;
  std::map<std::string, BuiltinFactory> builtins_;
  std::map<std::string, void*> libraries_;
  // The thread running a plugin's init inside load(); its add() must not take mutex_ again.
  std::atomic<std::thread::id> loading_thread_{};
};

}  // namespace ec

// Symbols a plugin shared object exports.
extern "C" {
const char* __erasure_code_version();
int __erasure_code_init(const char* plugin_name, const char* directory);
}
