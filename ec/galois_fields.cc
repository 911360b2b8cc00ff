#include "ec/galois_fields.h"

#include <mutex>
#include <string>

extern "C" {
#include <galois.h>
}

namespace ec {

namespace {

std::mutex& FieldMutex() {
  static std::mutex mutex;
  return mutex;
}

// Caller holds FieldMutex(): galois_init_default_field checks and fills jerasure's global field
// table without a lock of its own.
Status EnsureFieldLocked(int w) {
  if (w < 1 || w > 32) {
    return Status::Invalid("w=" + std::to_string(w) + " must be between 1 and 32");
  }
  int r = galois_init_default_field(w);
  if (r != 0) {
    return Status::Error(r, "failed to gf_init_easy(" + std::to_string(w) + ")");
  }
  return Status::OK();
}

}  // namespace

Status InitGaloisFields() {
  static const Status result = [] {
    std::lock_guard<std::mutex> lock(FieldMutex());
    for (int w : {4, 8, 16, 32}) {
      Status s = EnsureFieldLocked(w);
      if (!s.ok()) return s;
    }
    return Status::OK();
  }();
  return result;
}

Status EnsureGaloisField(int w) {
  std::lock_guard<std::mutex> lock(FieldMutex());
  return EnsureFieldLocked(w);
}

}  // namespace ec
