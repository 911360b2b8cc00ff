#include "plugins/isa/isa_plugin.h"

#include "plugins/isa/isa_code.h"

namespace ec {

IsaPlugin::IsaPlugin() : tables_(std::make_shared<isa::IsaTableCache>()) {}

Status IsaPlugin::factory(const std::string& /*directory*/, Profile& profile,
                          ErasureCodeInterfaceRef* out) {
  if (out == nullptr) return Status::Invalid("isa factory: no place to return the code");
  auto code = std::make_shared<ErasureCodeIsa>(tables_);
  EC_RETURN_IF_ERROR(code->init(profile));
  *out = std::move(code);
  return Status::OK();
}

void RegisterIsaBuiltin() {
  PluginRegistry::instance().register_builtin("isa", [] { return std::make_unique<IsaPlugin>(); });
}

}  // namespace ec
