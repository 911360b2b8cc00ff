#include "plugins/lrc/lrc_profile.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace ec::lrc {

namespace {

using Json = nlohmann::json;

// json_spirit's Value_type numbers, which Ceph prints in its messages.
int TypeNumber(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return 0;
    case Json::value_t::array:
      return 1;
    case Json::value_t::string:
      return 2;
    case Json::value_t::boolean:
      return 3;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return 4;
    case Json::value_t::number_float:
      return 5;
    default:
      return 6;
  }
}

std::string Type(const Json& j) {
  return std::to_string(TypeNumber(j));
}

// Parses `text`; on failure *error is "at line L, column C : REASON" (json_spirit's form).
// nlohmann reports errors by exception; it is caught here and goes no further.
std::optional<Json> ParseJson(const std::string& text, std::string* error) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    std::size_t line = 1, column = 1;
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string reason = e.what();
    if (std::size_t colon = reason.find(": "); colon != std::string::npos)
      reason = reason.substr(colon + 2);
    *error =
        "at line " + std::to_string(line) + ", column " + std::to_string(column) + " : " + reason;
    return std::nullopt;
  }
}

std::string Repeat(int n, char c) {
  return std::string(static_cast<std::size_t>(n), c);
}

}  // namespace

Status LrcStatus(LrcError e, std::string message) {
  return Status::Error(LrcErrno(e), std::move(message));
}

Status ParseKml(Profile& profile, bool* generated, std::vector<RuleStep>* steps) {
  *generated = false;
  int k = -1, m = -1, l = -1;
  // Like Ceph, every key is read (and defaulted) before the first error is returned.
  Status convert = ProfileToInt("k", profile, &k, kUnsetKml);
  if (Status s = ProfileToInt("m", profile, &m, kUnsetKml); convert.ok()) convert = s;
  if (Status s = ProfileToInt("l", profile, &l, kUnsetKml); convert.ok()) convert = s;
  const int unset = -1;
  if (k == unset && m == unset && l == unset) return convert;
  if (k == unset || m == unset || l == unset) {
    return LrcStatus(LrcError::kAllOrNothing,
                     "All of k, m, l must be set or none of them in " + ProfileToString(profile));
  }
  for (const char* key : {"mapping", "layers", "crush-steps"}) {
    if (profile.count(key)) {
      return LrcStatus(LrcError::kGenerated,
                       std::string("The ") + key +
                           " parameter cannot be set when k, m, l are set in " +
                           ProfileToString(profile));
    }
  }
  if (l == 0 || (k + m) % l != 0) {
    return LrcStatus(LrcError::kKMModulo,
                     "k + m must be a multiple of l in " + ProfileToString(profile));
  }
  if (k < 1 || m < 1 || l < 1) {
    return Status::Invalid("k, m and l must be positive in " + ProfileToString(profile));
  }
  const int groups = (k + m) / l;
  if (k % groups != 0) {
    return LrcStatus(LrcError::kKModulo,
                     "k must be a multiple of (k + m) / l in " + ProfileToString(profile));
  }
  if (m % groups != 0) {
    return LrcStatus(LrcError::kMModulo,
                     "m must be a multiple of (k + m) / l in " + ProfileToString(profile));
  }
  std::string mapping, global;
  for (int g = 0; g < groups; ++g) {
    mapping += Repeat(k / groups, 'D') + Repeat(m / groups, '_') + "_";
    global += Repeat(k / groups, 'D') + Repeat(m / groups, 'c') + "_";
  }
  // The same JSON text as Ceph generates (it is never shown, but keep it recognisable).
  std::string layers = "[  [ \"" + global + "\", \"\" ],";
  for (int i = 0; i < groups; ++i) {
    layers += " [ \"";
    for (int j = 0; j < groups; ++j) layers += i == j ? Repeat(l, 'D') + "c" : Repeat(l + 1, '_');
    layers += "\", \"\" ],";
  }
  layers.back() = ' ';
  profile["mapping"] = mapping;
  profile["layers"] = layers + "]";

  std::string locality;
  if (auto it = profile.find("crush-locality"); it != profile.end()) locality = it->second;
  std::string failure_domain = "host";
  if (auto it = profile.find("crush-failure-domain"); it != profile.end())
    failure_domain = it->second;
  if (!locality.empty()) {
    *steps = {{"choose", locality, groups}, {"chooseleaf", failure_domain, l + 1}};
  } else if (!failure_domain.empty()) {
    *steps = {{"chooseleaf", failure_domain, 0}};
  }
  *generated = true;
  return convert;
}

Status ParseRuleSteps(Profile& profile, std::vector<RuleStep>* steps) {
  std::string ignored;
  EC_RETURN_IF_ERROR(ProfileToString("crush-root", profile, &ignored, "default"));
  EC_RETURN_IF_ERROR(ProfileToString("crush-device-class", profile, &ignored, ""));
  auto it = profile.find("crush-steps");
  if (it == profile.end()) return Status::OK();
  const std::string& text = it->second;
  std::string error;
  std::optional<Json> json = ParseJson(text, &error);
  if (!json) {
    return LrcStatus(LrcError::kParseJson, "failed to parse crush-steps='" + text + "' " + error);
  }
  if (!json->is_array()) {
    return LrcStatus(LrcError::kArray, "crush-steps='" + text +
                                           "' must be a JSON array but is of type " + Type(*json) +
                                           " instead");
  }
  std::vector<RuleStep> parsed;
  int position = 0;
  for (const Json& element : *json) {
    if (!element.is_array()) {
      return LrcStatus(LrcError::kArray, "element of the array " + text +
                                             " must be a JSON array but " + element.dump() +
                                             " at position " + std::to_string(position) +
                                             " is of type " + Type(element) + " instead");
    }
    RuleStep step;
    int index = 0;
    for (const Json& field : element) {
      if ((index == 0 || index == 1) && !field.is_string()) {
        return LrcStatus(index == 0 ? LrcError::kRuleOp : LrcError::kRuleType,
                         "element " + std::to_string(index) + " of the array " + element.dump() +
                             " found in " + text + " must be a JSON string but is of type " +
                             Type(field) + " instead");
      }
      if (index == 2 && !field.is_number_integer()) {
        return LrcStatus(LrcError::kRuleN,
                         "element 2 of the array " + element.dump() + " found in " + text +
                             " must be a JSON int but is of type " + Type(field) + " instead");
      }
      if (index == 0) step.op = field.get<std::string>();
      if (index == 1) step.type = field.get<std::string>();
      if (index == 2) {
        const auto n = field.get<long long>();
        if (n < 0 || n > 0x7fffffff) {
          return LrcStatus(LrcError::kRuleN, "element 2 of the array " + element.dump() +
                                                 " found in " + text + " is out of range");
        }
        step.n = static_cast<int>(n);
      }
      ++index;
    }
    parsed.push_back(step);
    ++position;
  }
  *steps = std::move(parsed);
  return Status::OK();
}

Status ParseLayerProfile(const std::string& text, Profile* out) {
  std::string error;
  std::optional<Json> json;
  // json_spirit throws (and Ceph falls back to key=value words) on anything that is not JSON.
  if (Json::accept(text)) json = ParseJson(text, &error);
  if (json) {
    if (!json->is_object()) {
      return Status::Invalid(text + " must be a JSON object but is of type " + Type(*json) +
                             " instead");
    }
    for (const auto& [key, value] : json->items()) {
      if (!value.is_string()) {
        return Status::Invalid("the value of " + key + " in " + text + " is not a string");
      }
      (*out)[key] = value.get<std::string>();
    }
    return Status::OK();
  }
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find_first_not_of(" \t\n", pos);
    if (start == std::string::npos) break;
    std::size_t end = text.find_first_of(" \t\n", start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos)
      (*out)[word] = "";
    else
      (*out)[word.substr(0, eq)] = word.substr(eq + 1);
    pos = end;
  }
  return Status::OK();
}

Result<std::vector<LayerSpec>> ParseLayers(const Profile& profile) {
  auto it = profile.find("layers");
  if (it == profile.end()) {
    return LrcStatus(LrcError::kDescription,
                     "could not find 'layers' in " + ProfileToString(profile));
  }
  const std::string& text = it->second;
  std::string error;
  std::optional<Json> json = ParseJson(text, &error);
  if (!json)
    return LrcStatus(LrcError::kParseJson, "failed to parse layers='" + text + "' " + error);
  if (!json->is_array()) {
    return LrcStatus(
        LrcError::kArray,
        "layers='" + text + "' must be a JSON array but is of type " + Type(*json) + " instead");
  }
  std::vector<LayerSpec> layers;
  int position = 0;
  for (const Json& entry : *json) {
    if (!entry.is_array()) {
      return LrcStatus(LrcError::kArray, "each element of the array " + text +
                                             " must be a JSON array but " + entry.dump() +
                                             " at position " + std::to_string(position) +
                                             " is of type " + Type(entry) + " instead");
    }
    int index = 0;
    for (const Json& element : entry) {
      if (index == 0) {
        if (!element.is_string()) {
          return LrcStatus(LrcError::kStr, "the first element of the entry " + element.dump() +
                                               " (first is zero) " + std::to_string(position) +
                                               " in " + text + " is of type " + Type(element) +
                                               " instead of string");
        }
        layers.push_back({element.get<std::string>(), {}});
      } else if (index == 1) {
        if (!element.is_string() && !element.is_object()) {
          return LrcStatus(LrcError::kConfigOptions,
                           "the second element of the entry " + element.dump() +
                               " (first is zero) " + std::to_string(position) + " in " + text +
                               " is of type " + Type(element) + " instead of string or object");
        }
        Profile& layer_profile = layers.back().profile;
        if (element.is_string()) {
          EC_RETURN_IF_ERROR(ParseLayerProfile(element.get<std::string>(), &layer_profile));
        } else {
          for (const auto& [key, value] : element.items()) {
            if (!value.is_string()) {
              return Status::Invalid("the value of " + key + " in layer " +
                                     std::to_string(position) + " of " + text + " is not a string");
            }
            layer_profile[key] = value.get<std::string>();
          }
        }
      }
      ++index;
    }
    ++position;
  }
  return layers;
}

}  // namespace ec::lrc
