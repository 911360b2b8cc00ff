// The isa plugin: creates ErasureCodeIsa codes (see isa_code.h for the profile) for the registry.
//
// Two ways in:
//   - built-in: a program linked with ec_isa_static calls ec::RegisterIsaBuiltin() once; the
//     registry then creates the plugin on the first load("isa") without dlopen;
//   - shared object: libec_isa.so exports __erasure_code_version / __erasure_code_init
//     (plugins/plugin_entry.cc); init registers an IsaPlugin under the name it is given.
//
// Thread safety: factory() may be called concurrently; the codes of one plugin share their
// matrix codecs and decode-table caches (IsaTableCache).
#pragma once

#include <memory>
#include <string>

#include "ec/plugin.h"
#include "plugins/isa/isa_table_cache.h"

namespace ec {

class IsaPlugin final : public ErasureCodePlugin {
 public:
  IsaPlugin();
  // Creates an ErasureCodeIsa and init()s it with `profile` (normalised in place).
  // Errors: those of ErasureCodeIsa::init (ENOENT for a bad technique, EINVAL otherwise), and
  // EINVAL if `out` is null. `directory` is unused.
  Status factory(const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out) override;

 private:
  std::shared_ptr<isa::IsaTableCache> tables_;
};

// Registers the built-in "isa" plugin with PluginRegistry::instance() (idempotent).
void RegisterIsaBuiltin();

}  // namespace ec
