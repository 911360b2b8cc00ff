// The lrc profile: what Ceph's lrc plugin (ErasureCodeLrc) accepts, parsed into layers and CRUSH
// steps, with Ceph's checks, messages and error numbers. Pure functions: no plugin is loaded here
// (lrc_code.h makes the layers' codes).
//
// Two ways to describe a code:
//   k=K m=M l=L  (all three or none). The chunks form g = (k+m)/l local groups; each group holds
//                k/g data chunks, m/g global parities and one local parity. Generated (and not
//                kept in the profile once the code is made):
//                  mapping = g x ("D" * k/g + "_" * m/g + "_")
//                  layers  = [ global: g x ("D" * k/g + "c" * m/g + "_"), "" ]
//                            [ local i: "D" * l + "c" in group i, "_" * (l+1) elsewhere, "" ] ...
//                e.g. k=4 m=2 l=3: mapping DD__DD__, layers DDc_DDc_, DDDc____, ____DDDc.
//                CRUSH steps: [choose crush-locality g, chooseleaf crush-failure-domain l+1]
//                with crush-locality, else [chooseleaf crush-failure-domain 0].
//   mapping=...  a string of D (data) and other characters, one per chunk, and
//   layers=...   a JSON array of [chunks_map, profile]: chunks_map has one character per chunk
//                (D: an input of this layer, c: a parity it computes, anything else: not in the
//                layer); profile is a JSON object of strings or a "key=value key=value" string.
//                Per-layer defaults: plugin=jerasure, technique=reed_sol_van, k=#D, m=#c.
//   crush-steps  (optional) a JSON array of [op, type, n] steps.
//
// Errors: Ceph's lrc errors are -(MAX_ERRNO + n) with MAX_ERRNO = 4095; as a Status their code()
// is 4095 + n (ceph_code() gives Ceph's number back), with Ceph's message (see LrcError).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "ec/profile.h"

namespace ec::lrc {

// Ceph's ERROR_LRC_* numbers (ErasureCodeLrc.h): the error code is kMaxErrno + value.
inline constexpr int kMaxErrno = 4095;
enum class LrcError {
  kArray = 1,
  kObject = 2,
  kInt = 3,
  kStr = 4,
  kPlugin = 5,
  kDescription = 6,
  kParseJson = 7,
  kMapping = 8,
  kMappingSize = 9,
  kFirstMapping = 10,
  kCountConstraint = 11,
  kConfigOptions = 12,
  kLayersCount = 13,
  kRuleOp = 14,
  kRuleType = 15,
  kRuleN = 16,
  kAllOrNothing = 17,
  kGenerated = 18,
  kKMModulo = 19,
  kKModulo = 20,
  kMModulo = 21,
};
inline int LrcErrno(LrcError e) {
  return kMaxErrno + static_cast<int>(e);
}
Status LrcStatus(LrcError e, std::string message);

// One CRUSH step of the rule an lrc pool uses (op "choose" or "chooseleaf", a bucket type, n).
struct RuleStep {
  std::string op;
  std::string type;
  int n = 0;
  bool operator==(const RuleStep&) const = default;
};

// One layer as described: its chunk map and its own profile (defaults not yet filled in).
struct LayerSpec {
  std::string chunks_map;
  Profile profile;
};

// Ceph's default for k, m and l: "not set".
inline constexpr const char* kUnsetKml = "-1";

// Ceph's parse_kml. Reads k, m, l (absent ones are written back as "-1", like Ceph); when they are
// set, checks them and writes the generated `mapping` and `layers` into `profile`, sets *steps to
// the generated CRUSH steps and *generated to true. Errors, in Ceph's order:
//   kAllOrNothing "All of k, m, l must be set or none of them in {profile}"
//   kGenerated    "The mapping|layers|crush-steps parameter cannot be set when k, m, l are set in
//                  {profile}"
//   kKMModulo     "k + m must be a multiple of l in {profile}" (also for l = 0)
//   kKModulo      "k must be a multiple of (k + m) / l in {profile}"
//   kMModulo      "m must be a multiple of (k + m) / l in {profile}"
//   EINVAL        Ceph's "could not convert ..." for a value that is not an integer
// Beyond Ceph: k, m or l below 1 (with all three set) is EINVAL "k, m and l must be positive"
// (Ceph divides by them or makes empty layers).
Status ParseKml(Profile& profile, bool* generated, std::vector<RuleStep>* steps);

// Ceph's parse_rule: crush-root (default "default") and crush-device-class (default "") are written
// back; `crush-steps`, when present, replaces *steps. Errors:
//   kParseJson "failed to parse crush-steps='S' at line L, column C : REASON"
//   kArray     "crush-steps='S' must be a JSON array but is of type T instead" and
//              "element of the array S must be a JSON array but E at position P is of type T
//              instead"
//   kRuleOp / kRuleType "element 0|1 of the array E found in S must be a JSON string but is of
//              type T instead"; kRuleN "element 2 ... must be a JSON int ..."
// T is json_spirit's type number, as Ceph prints it (0 object, 1 array, 2 string, 3 bool, 4 int,
// 5 real, 6 null).
Status ParseRuleSteps(Profile& profile, std::vector<RuleStep>* steps);

// Ceph's layers_description + layers_parse: the `layers` key as a list of LayerSpec. Errors:
//   kDescription "could not find 'layers' in {profile}"
//   kParseJson   "failed to parse layers='S' at line L, column C : REASON"
//   kArray       "layers='S' must be a JSON array but is of type T instead", "each element of the
//                array S must be a JSON array but E at position P is of type T instead"
//   kStr         "the first element of the entry E (first is zero) P in S is of type T instead of
//                string"
//   kConfigOptions "the second element of the entry E (first is zero) P in S is of type T instead
//                of string or object"
//   EINVAL       a profile string that is JSON but not an object ("X must be a JSON object but is
//                of type T instead"); beyond Ceph (which throws): an object value that is not a
//                string ("the value of K in layer P of S is not a string").
// An empty entry ([]) adds no layer and elements after the second are ignored, as in Ceph.
Result<std::vector<LayerSpec>> ParseLayers(const Profile& profile);

// Ceph's get_json_str_map: a JSON object of strings, or (when `text` is not JSON) words separated
// by spaces, tabs or newlines, each "key=value" or a bare "key" (empty value).
Status ParseLayerProfile(const std::string& text, Profile* out);

}  // namespace ec::lrc
