#include "plugins/jerasure/jerasure_liberation.h"

extern "C" {
#include <jerasure.h>
#include <liberation.h>
}

namespace ec::jerasure {

namespace {
constexpr const char* kDefaultPacketsize = "2048";
}  // namespace

bool Liberation::CheckK(const Params& params, InitErrors* errors) const {
  if (params.k <= params.w) return true;
  errors->Add(EINVAL, "k=" + std::to_string(params.k) +
                          " must be less than or equal to w=" + std::to_string(params.w));
  return false;
}

bool Liberation::CheckW(int w, InitErrors* errors) const {
  if (w > 2 && IsPrime(w)) return true;
  errors->Add(EINVAL, "w=" + std::to_string(w) + " must be greater than two and be prime");
  return false;
}

bool Liberation::CheckPacketsizeSet(InitErrors* errors) const {
  if (packetsize_ == 0) {
    errors->Add(EINVAL, "packetsize=0 must be set");
    return false;
  }
  if (packetsize_ < 0) {
    errors->Add(EINVAL,
                "packetsize=" + std::to_string(packetsize_) + " must be a positive integer");
    return false;
  }
  return true;
}

bool Liberation::CheckPacketsizeMultiple(InitErrors* errors) const {
  if (packetsize_ % static_cast<int>(sizeof(int)) == 0) return true;
  errors->Add(EINVAL, "packetsize=" + std::to_string(packetsize_) +
                          " must be a multiple of sizeof(int) = " + std::to_string(sizeof(int)));
  return false;
}

void Liberation::RevertToDefaults(Profile& profile, Params& params, InitErrors* errors) {
  errors->Add(EINVAL, std::string("reverting to k=") + defaults().k + ", w=" + defaults().w +
                          ", packetsize=" + kDefaultPacketsize);
  profile["k"] = defaults().k;
  errors->Add(ProfileToInt("k", profile, &params.k, defaults().k));
  profile["w"] = defaults().w;
  errors->Add(ProfileToInt("w", profile, &params.w, defaults().w));
  profile["packetsize"] = kDefaultPacketsize;
  errors->Add(ProfileToInt("packetsize", profile, &packetsize_, kDefaultPacketsize));
}

void Liberation::ParseTechnique(Profile& profile, Params& params, InitErrors* errors) {
  errors->Add(ProfileToInt("packetsize", profile, &packetsize_, kDefaultPacketsize));
  if (params.m > 2) {
    // jerasure's bit-matrix has two coding rows; Ceph would read past it.
    errors->Add(EINVAL, "m=" + std::to_string(params.m) + " must be less than or equal to 2");
  }
  bool error = false;
  if (!CheckK(params, errors)) error = true;
  if (!CheckW(params.w, errors)) error = true;
  if (!CheckPacketsizeSet(errors) || !CheckPacketsizeMultiple(errors)) error = true;
  if (error) {
    RevertToDefaults(profile, params, errors);
    return;
  }
  CheckSizes(params, packetsize_, errors);
}

int* Liberation::BuildBitmatrix() const {
  return liberation_coding_bitmatrix(k(), w_);
}

bool BlaumRoth::CheckW(int w, InitErrors* errors) const {
  // Firefly's default w=7 produced usable chunks: tolerated for backward compatibility.
  if (w == 7) return true;
  if (w > 2 && IsPrime(w + 1)) return true;
  errors->Add(EINVAL, "w=" + std::to_string(w) + " must be greater than two and w+1 must be prime");
  return false;
}

int* BlaumRoth::BuildBitmatrix() const {
  return blaum_roth_coding_bitmatrix(k(), w_);
}

void Liber8tion::ParseTechnique(Profile& profile, Params& params, InitErrors* errors) {
  if (params.m != 2) {
    errors->Add(EINVAL, "liber8tion: m=" + std::to_string(params.m) +
                            " must be 2 for liber8tion: revert to 2");
  }
  if (params.w != 8) {
    errors->Add(EINVAL, "liber8tion: w=" + std::to_string(params.w) +
                            " must be 8 for liber8tion: revert to 8");
  }
  errors->Add(ProfileToInt("packetsize", profile, &packetsize_, kDefaultPacketsize));
  bool error = false;
  if (!CheckK(params, errors)) error = true;
  if (!CheckPacketsizeSet(errors)) error = true;
  if (error) {
    RevertToDefaults(profile, params, errors);
    return;
  }
  CheckSizes(params, packetsize_, errors);
}

int* Liber8tion::BuildBitmatrix() const {
  return liber8tion_coding_bitmatrix(k());
}

}  // namespace ec::jerasure
