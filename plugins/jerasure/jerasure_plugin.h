// The jerasure erasure-code plugin: Ceph's `plugin=jerasure`, byte-compatible with Ceph's
// ErasureCodePluginJerasure (checked against ceph-erasure-code-corpus v0.92-988).
//
// Techniques and defaults (Ceph's DEFAULT_K/M/W; packetsize default 2048):
//   technique       k  m  w  packetsize  class                   file
//   reed_sol_van    7  3  8  -           ReedSolomonVandermonde  jerasure_rs.h
//   reed_sol_r6_op  7  2  8  -           ReedSolomonRaid6        jerasure_rs.h
//   cauchy_orig     7  3  8  2048        CauchyOrig              jerasure_cauchy.h
//   cauchy_good     7  3  8  2048        CauchyGood              jerasure_cauchy.h
//   liberation      2  2  7  2048        Liberation              jerasure_liberation.h
//   blaum_roth      2  2  7  2048        BlaumRoth               jerasure_liberation.h
//   liber8tion      2  2  8  2048        Liber8tion              jerasure_liberation.h
// Keys common to all techniques and the encode/decode contract: jerasure_code.h.
//
// Two ways to use it:
//   - as a shared object libec_jerasure.so (entry points in plugins/plugin_entry.cc), loaded by
//     PluginRegistry::load("jerasure", dir);
//   - linked in (ec_jerasure_static): call ec::RegisterJerasureBuiltin() once, then
//     PluginRegistry::instance().factory("jerasure", ...) finds it without dlopen.
//
// Factory errors: an absent, empty or unknown technique gives ENOENT with
//   "technique=T is not a valid coding technique.  Choose one of the following: reed_sol_van,
//    reed_sol_r6_op, cauchy_orig, cauchy_good, liberation, blaum_roth, liber8tion"
// (one line); otherwise the code's init() result.
//
// Thread safety: the factory and RegisterJerasureBuiltin may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "ec/galois_fields.h"
#include "ec/plugin.h"
#include "plugins/jerasure/jerasure_code.h"

namespace ec {

// Registers "jerasure" with PluginRegistry::instance() as a built-in plugin.
void RegisterJerasureBuiltin();

}  // namespace ec

namespace ec::jerasure {

// The technique names, in Ceph's order.
inline constexpr const char* kTechniques[] = {"reed_sol_van", "reed_sol_r6_op", "cauchy_orig",
                                              "cauchy_good",  "liberation",     "blaum_roth",
                                              "liber8tion"};

// A new, uninitialised code for `technique`, or nullptr when the name is unknown.
std::unique_ptr<JerasureCode> MakeJerasureCode(const std::string& technique);

class JerasurePlugin : public ErasureCodePlugin {
 public:
  Status factory(const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out) override;
  // Prepares the gf-complete fields (w = 4, 8, 16, 32), as Ceph's jerasure plugin does at load.
  Status prepare() override { return InitGaloisFields(); }
};

}  // namespace ec::jerasure
