// `ec-tool non-regression`: Ceph's ceph_erasure_code_non_regression, which creates and checks
// the folders of the ceph-erasure-code-corpus.
//
// A folder is named "{base}/plugin={plugin} stripe-width={stripe_width}" followed by " {k=v}" for
// every --parameter, in command-line order. It holds:
//   content   stripe_width bytes: a random 37-letter lowercase pattern, repeated and truncated;
//   0 .. N-1  the N chunks of one encode() of `content` with every chunk wanted.
// --create makes the folder (it must not exist). --check re-encodes `content` and compares every
// chunk ("chunk N encodes differently"), then decodes with chunk 0 erased and, if the code has
// more than one coding chunk, with chunks 0 and N-1 erased ("chunk N incorrectly recovered").
//
// The code is made from the --parameter values alone (the profile does not name the plugin),
// exactly as Ceph does, so profiles normalise the same way.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/profile.h"

namespace ec::tools::ec_tool {

struct NonRegressionOptions {
  std::string base = ".";
  std::string plugin = "jerasure";
  unsigned stripe_width = 4096;
  std::vector<std::string> parameters;  // "key=value", in command-line order
  bool create = false;
  bool check = false;
  std::string plugin_dir;  // where libec_<plugin>.so are found
};

// The folder the options name.
std::string NonRegressionDirectory(const NonRegressionOptions& options);

// The profile made of the parameters. A parameter without exactly one '=' is ignored, with
// "--parameter X ignored because it does not contain exactly one =" written to `warnings`.
ec::Profile NonRegressionProfile(const NonRegressionOptions& options, std::ostream* warnings);

// Options for an existing corpus folder: its name ("plugin=P stripe-width=N k=v ...") gives the
// plugin, stripe width and parameters; its parent is the base. Errors: EINVAL when the name does
// not have that shape.
ec::Result<NonRegressionOptions> NonRegressionOptionsForFolder(const std::string& folder);

// --create: makes the folder. Errors: "mkdir(DIR): <strerror>", "invalid profile: ...", write
// errors. On error the folder is removed again (nothing half-made is left).
ec::Status CreateNonRegressionFolder(const NonRegressionOptions& options, std::ostream* warnings);
// --check: verifies the folder. Errors: "invalid profile: ...", read errors, and data-loss
// statuses "chunk N encodes differently" / "chunk N incorrectly recovered" (with the erasures).
ec::Status CheckNonRegressionFolder(const NonRegressionOptions& options, std::ostream* warnings);
// The checks of --check on folder `dir` with a code already made (CheckNonRegressionFolder makes
// it from the options): re-encode `content`, compare every chunk, decode with {0} and, with more
// than one coding chunk, {0, N-1} erased. Errors: read errors ("failed to read PATH: ..."), the
// code's encode/decode errors (prefixed with what was done), data-loss statuses "chunk N encodes
// differently" / "chunk N incorrectly recovered (chunks {..} erased)".
ec::Status CheckNonRegressionChunks(const ec::ErasureCodeInterface& code, const std::string& dir);

// Runs --create then --check as the options ask. Errors: "must specifify either --check, or
// --create" (Ceph's spelling) when neither is set, else the first failure.
ec::Status RunNonRegression(const NonRegressionOptions& options, std::ostream* warnings);

}  // namespace ec::tools::ec_tool
