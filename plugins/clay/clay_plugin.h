// The clay plugin: creates ErasureCodeClay codes (see clay_code.h for the profile).
//
// Two ways in, like the other plugins:
//   - built-in: a program linked with ec_clay_static calls ec::RegisterClayBuiltin() once; the
//     registry then creates the plugin on the first load("clay") without dlopen;
//   - shared object: libec_clay.so exports __erasure_code_version / __erasure_code_init
//     (plugins/plugin_entry.cc); init registers a ClayPlugin under the name it is given.
// Either way a CLAY code builds its two scalar sub-codes through the registry (scalar_mds =
// jerasure, isa or shec), from the directory the clay plugin was asked to use.
//
// Thread safety: factory() may be called concurrently.
#pragma once

#include <string>

#include "ec/plugin.h"

namespace ec {

class ClayPlugin final : public ErasureCodePlugin {
 public:
  // Creates an ErasureCodeClay with `directory` for its sub-codes and init()s it with `profile`
  // (normalised in place). Errors: those of ErasureCodeClay::init; EINVAL if `out` is null.
  Status factory(const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out) override;
};

// Registers the built-in "clay" plugin with PluginRegistry::instance() (idempotent).
void RegisterClayBuiltin();

}  // namespace ec
