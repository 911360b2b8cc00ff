// The lrc plugin: creates ErasureCodeLrc codes (see lrc_code.h for the profile).
//
// Two ways in, like the other plugins:
//   - built-in: a program linked with ec_lrc_static calls ec::RegisterLrcBuiltin() once; the
//     registry then creates the plugin on the first load("lrc") without dlopen;
//   - shared object: libec_lrc.so exports __erasure_code_version / __erasure_code_init
//     (plugins/plugin_entry.cc); init registers an LrcPlugin under the name it is given.
// Either way an lrc code makes its layers' codes (jerasure, isa) through the registry, from the
// directory the lrc plugin was asked to use.
//
// Thread safety: factory() may be called concurrently.
#pragma once

#include <string>

#include "ec/plugin.h"

namespace ec {

class LrcPlugin final : public ErasureCodePlugin {
 public:
  // Creates an ErasureCodeLrc with `directory` for its layers and init()s it with `profile`
  // (normalised in place). Errors: those of ErasureCodeLrc::init; EINVAL if `out` is null.
  Status factory(const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out) override;
};

// Registers the built-in "lrc" plugin with PluginRegistry::instance() (idempotent).
void RegisterLrcBuiltin();

}  // namespace ec
