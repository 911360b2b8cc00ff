#include "common/status.h"

#include <cstring>

namespace ec {

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = message_;
  out += " (";
  out += std::strerror(code_);
  if (class_ == Class::kDataLoss) out += ", data loss";
  if (class_ == Class::kRetryable) out += ", retryable";
  out += ")";
  return out;
}

}  // namespace ec
