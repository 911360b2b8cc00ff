// Erasure-code profiles: the ordered key=value map users write, as in Ceph
// ("plugin=jerasure technique=reed_sol_van k=4 m=2" or the same with commas).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ec {

using Profile = std::map<std::string, std::string>;

// Parses "k1=v1,k2=v2" or "k1=v1 k2=v2" (commas and spaces both separate; empty pieces are
// ignored). Beyond Ceph: commas and spaces inside JSON brackets ([...] or {...}, strings in them
// included) do not separate, so that lrc's layers=[["DDc_",""],["DDDc",""]] is one value (Ceph's
// tool cuts it apart). Errors: a piece without '=' or with an empty key is EINVAL with a message
// naming it. A key given twice keeps the last value, as Ceph does.
Result<Profile> ParseProfile(std::string_view text);

// "{k1=v1,k2=v2}", Ceph's operator<< form.
std::string ProfileToString(const Profile& profile);

// Ceph's strict_strtol: true when the whole of `s` is a base-10 integer that fits in an int
// (strtol's leading blanks and sign allowed); else false with *err set to Ceph's text
// ("strict_strtol: expected integer, got: '...'" or "... integer underflow or overflow ...").
bool StrictToInt(const std::string& s, int* out, std::string* err);

// Ceph's profile helpers (ErasureCode::to_int and friends). An absent or empty value is replaced by
// `default_value` and written back into the profile. A value that is not an integer yields EINVAL
// with "could not convert NAME=VAL to int because ERR, set to default DEF" and `*out` set to the
// default, as in Ceph.
Status ProfileToInt(const std::string& name, Profile& profile, int* out,
                    const std::string& default_value);
// True iff the value is "yes" or "true"; absent or empty takes the default (written back).
Status ProfileToBool(const std::string& name, Profile& profile, bool* out,
                     const std::string& default_value);
Status ProfileToString(const std::string& name, Profile& profile, std::string* out,
                       const std::string& default_value);

}  // namespace ec
