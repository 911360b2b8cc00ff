#include "plugins/shec/shec_plugin.h"

#include "ec/galois_fields.h"
#include "plugins/shec/shec_code.h"

namespace ec {

ShecPlugin::ShecPlugin() : tables_(std::make_shared<shec::ShecTableCache>()) {}

Status ShecPlugin::prepare() {
  return InitGaloisFields();
}

Status ShecPlugin::factory(const std::string& /*directory*/, Profile& profile,
                           ErasureCodeInterfaceRef* out) {
  if (out == nullptr) return Status::Invalid("shec factory: no place to return the code");
  auto it = profile.find("technique");
  if (it == profile.end()) it = profile.emplace("technique", "multiple").first;
  shec::Technique technique;
  if (it->second == "single") {
    technique = shec::Technique::kSingle;
  } else if (it->second == "multiple") {
    technique = shec::Technique::kMultiple;
  } else {
    return Status::NotFound("technique=" + it->second +
                            " is not a valid coding technique. Choose one of the following: "
                            "single, multiple");
  }
  auto code = std::make_shared<ErasureCodeShec>(technique, tables_);
  EC_RETURN_IF_ERROR(code->init(profile));
  *out = std::move(code);
  return Status::OK();
}

void RegisterShecBuiltin() {
  PluginRegistry::instance().register_builtin("shec",
                                              [] { return std::make_unique<ShecPlugin>(); });
}

}  // namespace ec
