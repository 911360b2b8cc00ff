// One source, six plugins: each build defines one TEST_PLUGIN_* macro and gets one defect.
//   example             a working plugin (a k=2 m=1 XOR code) registered as "test_example"
//   fail_to_initialize  __erasure_code_init returns -ESRCH
//   fail_to_register    __erasure_code_init returns 0 without registering
//   missing_entry_point no __erasure_code_init symbol
//   missing_version     no __erasure_code_version symbol
//   wrong_version       claims version "0.0.0-wrong"
#include <cerrno>
#include <cstring>

#include "ec/erasure_code.h"
#include "ec/plugin.h"

namespace {

// A tiny XOR code (k data chunks, one parity) so that the example plugin is really usable.
class XorCode : public ec::ErasureCode {
 public:
  ec::Status init(ec::Profile& profile) override {
    EC_RETURN_IF_ERROR(init_base(profile));
    int k = 0;
    EC_RETURN_IF_ERROR(ec::ProfileToInt("k", profile, &k, "2"));
    if (k < 2 || k > 32) return ec::Status::Invalid("k=" + std::to_string(k) + " out of [2,32]");
    k_ = static_cast<unsigned>(k);
    m_ = 1;
    profile["m"] = "1";
    profile_ = profile;
    return ec::Status::OK();
  }
  unsigned get_chunk_size(unsigned stripe_width) const override {
    return (stripe_width + k_ - 1) / k_;
  }
  ec::Status encode_chunks(const ec::ConstChunkSpans& in,
                           const ec::ChunkSpans& out) const override {
    std::size_t len = 0;
    EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
    auto it = out.find(static_cast<int>(k_));
    if (it == out.end()) return ec::Status::Invalid("parity buffer missing");
    std::memset(it->second.data(), 0, len);
    for (const auto& [id, span] : in)
      for (std::size_t b = 0; b < len; ++b) it->second[b] ^= span[b];
    return ec::Status::OK();
  }
  ec::Status decode_chunks(const ec::ShardSet&, const ec::ConstChunkSpans& in,
                           const ec::ChunkSpans& out) const override {
    std::size_t len = 0;
    EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
    if (in.size() < k_ || out.size() != 1) return ec::Status::IOError("cannot decode");
    auto& target = out.begin()->second;
    std::memset(target.data(), 0, len);
    for (const auto& [id, span] : in)
      for (std::size_t b = 0; b < len; ++b) target[b] ^= span[b];
    return ec::Status::OK();
  }
};

class XorPlugin : public ec::ErasureCodePlugin {
 public:
  ec::Status factory(const std::string&, ec::Profile& profile,
                     ec::ErasureCodeInterfaceRef* out) override {
    auto code = std::make_shared<XorCode>();
    EC_RETURN_IF_ERROR(code->init(profile));
    *out = code;
    return ec::Status::OK();
  }
};

}  // namespace

extern "C" {

#ifndef TEST_PLUGIN_MISSING_VERSION
const char* __erasure_code_version() {
#ifdef TEST_PLUGIN_WRONG_VERSION
  return "0.0.0-wrong";
#else
  return ECSTORE_PLUGIN_VERSION;
#endif
}
#endif

#ifndef TEST_PLUGIN_MISSING_ENTRY_POINT
int __erasure_code_init(const char* name, const char* /*directory*/) {
#if defined(TEST_PLUGIN_FAIL_TO_INITIALIZE)
  (void)name;
  return -ESRCH;
#elif defined(TEST_PLUGIN_FAIL_TO_REGISTER)
  (void)name;
  return 0;
#else
  ec::Status s = ec::PluginRegistry::instance().add(name, std::make_unique<XorPlugin>());
  return s.ok() ? 0 : -s.code();
#endif
}
#endif

}  // extern "C"
