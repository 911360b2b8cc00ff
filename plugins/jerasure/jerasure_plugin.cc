#include "plugins/jerasure/jerasure_plugin.h"

#include "plugins/jerasure/jerasure_cauchy.h"
#include "plugins/jerasure/jerasure_liberation.h"
#include "plugins/jerasure/jerasure_rs.h"

namespace ec::jerasure {

std::unique_ptr<JerasureCode> MakeJerasureCode(const std::string& technique) {
  if (technique == "reed_sol_van") return std::make_unique<ReedSolomonVandermonde>();
  if (technique == "reed_sol_r6_op") return std::make_unique<ReedSolomonRaid6>();
  if (technique == "cauchy_orig") return std::make_unique<CauchyOrig>();
  if (technique == "cauchy_good") return std::make_unique<CauchyGood>();
  if (technique == "liberation") return std::make_unique<Liberation>();
  if (technique == "blaum_roth") return std::make_unique<BlaumRoth>();
  if (technique == "liber8tion") return std::make_unique<Liber8tion>();
  return nullptr;
}

Status JerasurePlugin::factory(const std::string& /*directory*/, Profile& profile,
                               ErasureCodeInterfaceRef* out) {
  std::string technique;
  if (auto it = profile.find("technique"); it != profile.end()) technique = it->second;
  std::unique_ptr<JerasureCode> code = MakeJerasureCode(technique);
  if (!code) {
    std::string names;
    for (const char* name : kTechniques) names += std::string(names.empty() ? "" : ", ") + name;
    return Status::NotFound(
        "technique=" + technique +
        " is not a valid coding technique.  Choose one of the following: " + names);
  }
  EC_RETURN_IF_ERROR(code->init(profile));
  *out = std::move(code);
  return Status::OK();
}

}  // namespace ec::jerasure

namespace ec {

void RegisterJerasureBuiltin() {
  PluginRegistry::instance().register_builtin(
      "jerasure", [] { return std::make_unique<jerasure::JerasurePlugin>(); });
}

}  // namespace ec
