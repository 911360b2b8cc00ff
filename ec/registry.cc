#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>

#include "ec/plugin.h"

namespace ec {

PluginRegistry& PluginRegistry::instance() {
  static PluginRegistry* registry = new PluginRegistry();  // never destroyed: plugins outlive main
  return *registry;
}

Status PluginRegistry::add(const std::string& name, std::unique_ptr<ErasureCodePlugin> plugin) {
  // add() is called from a plugin's init, which runs inside load() with the mutex held; the
  // loading thread owns the lock, so take it only when nobody is loading on this thread.
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (loading_thread_ != std::this_thread::get_id()) lock.lock();
  if (plugins_.count(name)) return Status::Error(EEXIST, "plugin " + name + " already registered");
  plugins_[name] = std::move(plugin);
  return Status::OK();
}

ErasureCodePlugin* PluginRegistry::get(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : it->second.get();
}

void PluginRegistry::register_builtin(const std::string& name, BuiltinFactory factory) {
  std::lock_guard<std::mutex> lock(mutex_);
  builtins_[name] = std::move(factory);
}

Status PluginRegistry::load(const std::string& name, const std::string& directory) {
  std::lock_guard<std::mutex> lock(mutex_);
  return load_locked(name, directory);
}

Status PluginRegistry::load_locked(const std::string& name, const std::string& directory) {
  if (plugins_.count(name)) return Status::OK();
  auto builtin = builtins_.find(name);
  if (builtin != builtins_.end()) {
    plugins_[name] = builtin->second();
    return Status::OK();
  }
  if (name.empty() || name.find('/') != std::string::npos) {
    return Status::Invalid("invalid plugin name '" + name + "'");
  }
  const std::string path = directory + "/libec_" + name + ".so";
  void* library = dlopen(path.c_str(), RTLD_NOW);
  if (library == nullptr) {
    const char* err = dlerror();
    return Status::IOError("load dlopen(" + path + "): " + (err ? err : "unknown error"));
  }
  using VersionFn = const char* (*)();
  auto version_fn = reinterpret_cast<VersionFn>(dlsym(library, "__erasure_code_version"));
  std::string claimed = version_fn ? version_fn() : "an older version";
  if (claimed != kPluginVersion) {
    dlclose(library);
    return Status::Error(EXDEV, "expected plugin " + path + " version " + kPluginVersion +
                                    " but it claims to be " + claimed + " instead");
  }
  using InitFn = int (*)(const char*, const char*);
  auto init_fn = reinterpret_cast<InitFn>(dlsym(library, "__erasure_code_init"));
  if (init_fn == nullptr) {
    // Copy the message first: dlclose() frees the buffer dlerror() points into.
    const char* err = dlerror();
    const std::string reason = err ? err : "symbol not found";
    dlclose(library);
    return Status::NotFound("load dlsym(" + path + ", __erasure_code_init): " + reason);
  }
  loading_thread_ = std::this_thread::get_id();
  int r = init_fn(name.c_str(), directory.c_str());
  loading_thread_ = std::thread::id();
  if (r != 0) {
    int e = r < 0 ? -r : r;
    // A plugin that failed must not stay half-registered.
    plugins_.erase(name);
    dlclose(library);
    return Status::Error(e,
                         "erasure_code_init(" + name + "," + directory + "): " + std::strerror(e));
  }
  if (!plugins_.count(name)) {
    dlclose(library);
    return Status::Error(EBADF, "load __erasure_code_init() did not register " + name);
  }
  libraries_[name] = library;  // never dlclose'd: codes made by the plugin may outlive any caller
  return Status::OK();
}

Status PluginRegistry::preload(const std::string& names, const std::string& directory) {
  std::size_t pos = 0;
  while (pos < names.size()) {
    std::size_t end = names.find_first_of(", \t", pos);
    if (end == std::string::npos) end = names.size();
    std::string name = names.substr(pos, end - pos);
    pos = end + 1;
    if (name.empty()) continue;
    EC_RETURN_IF_ERROR(load(name, directory));
  }
  return Status::OK();
}

Status PluginRegistry::factory(const std::string& name, const std::string& directory,
                               Profile& profile, ErasureCodeInterfaceRef* out) {
  ErasureCodePlugin* plugin = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EC_RETURN_IF_ERROR(load_locked(name, directory));
    plugin = plugins_[name].get();
  }
  // The plugin's factory runs unlocked: CLAY's factory asks the registry for its scalar codes.
  ErasureCodeInterfaceRef code;
  EC_RETURN_IF_ERROR(plugin->factory(directory, profile, &code));
  if (!code) return Status::IOError("plugin " + name + " returned no code");
  if (profile != code->get_profile()) {
    return Status::Invalid("factory profile " + ProfileToString(profile) + " != get_profile() " +
                           ProfileToString(code->get_profile()));
  }
  *out = std::move(code);
  return Status::OK();
}

namespace {

// True when the file's bytes hold the init symbol's name: a plugin exports it, while a library
// that merely shares the libec_ prefix (one built without its entry point) does not. Nothing is
// loaded.
bool NamesInitSymbol(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes.find(std::string("__erasure_code_init") + '\0') != std::string::npos;
}

}  // namespace

std::vector<std::string> PluginRegistry::available(const std::string& directory) {
  std::set<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, plugin] : plugins_) names.insert(name);
    for (const auto& [name, factory] : builtins_) names.insert(name);
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string file = entry.path().filename().string();
    constexpr std::string_view kPrefix = "libec_", kSuffix = ".so";
    if (file.size() > kPrefix.size() + kSuffix.size() && file.starts_with(kPrefix) &&
        file.ends_with(kSuffix) && NamesInitSymbol(entry.path())) {
      names.insert(file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size()));
    }
  }
  return {names.begin(), names.end()};
}

std::string PluginRegistry::default_directory() {
  if (const char* env = std::getenv("EC_PLUGIN_DIR"); env != nullptr && *env != '\0') return env;
  // Relative to libec.so itself rather than to the program, so that any program linked against
  // an installed libec (a user's too, wherever it lives) finds the plugins installed beside it.
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&PluginRegistry::default_directory), &info) == 0 ||
      info.dli_fname == nullptr || std::strchr(info.dli_fname, '/') == nullptr) {
    return "lib";
  }
  const std::filesystem::path libdir = std::filesystem::path(info.dli_fname).parent_path();
  std::error_code ec;
  const std::filesystem::path installed = libdir / ECSTORE_PLUGIN_SUBDIR;
  if (std::filesystem::is_directory(installed, ec)) return installed.string();
  return libdir.string();
}

}  // namespace ec
