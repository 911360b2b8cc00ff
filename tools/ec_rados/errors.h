// How ec-rados words an error, after rados: "<action>: (<errno>) <strerror>", then the library's
// own message when it has one ("getting p/x: (2) No such file or directory: object x does not
// exist in pg 1.3"). The program prints it after "error: ".
#pragma once

#include <cstring>
#include <string>

#include "cluster/client/rados.h"
#include "common/status.h"

namespace ec::tools::rados {

inline std::string ErrnoText(int code) {
  return "(" + std::to_string(code) + ") " + std::strerror(code);
}

inline std::string ErrorText(const std::string& action, const Status& s) {
  std::string text = action + ": " + ErrnoText(s.code());
  if (!s.message().empty()) text += ": " + s.message();
  return text;
}

// An object as rados names it in its errors: "<pool>/<object>".
inline std::string Where(const cluster::client::IoCtx& io, const std::string& object) {
  return io.pool_name() + "/" + object;
}

// The error of a failed `action`: the library's errno, rados's wording (ErrorText).
inline Status Failed(const std::string& action, const Status& s) {
  return Status::Error(s.code(), ErrorText(action, s));
}

}  // namespace ec::tools::rados
