// Output formats of ec-admin, as Ceph's --format: plain text, compact JSON, indented JSON.
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::cluster::admin {

enum class Format { kPlain, kJson, kJsonPretty };

// "plain", "json", "json-pretty" (Ceph also spells plain "plain"). Errors: EINVAL
// "unknown format 'X' (expected plain, json or json-pretty)".
Result<Format> ParseFormat(std::string_view text);

// `value` as one line of compact JSON (kJson) or indented by 4 spaces (kJsonPretty, as Ceph),
// ending in a newline. kPlain is treated as kJsonPretty (callers render plain text themselves).
std::string DumpJson(const nlohmann::json& value, Format format);

// A table with Ceph's TextTable look: columns separated by two spaces, each column left- or
// right-aligned, padded to its widest cell; trailing spaces of a row are kept off.
class TextTable {
 public:
  enum class Align { kLeft, kRight };
  void AddColumn(std::string heading, Align align);
  // A row of exactly as many cells as columns (missing cells are empty, extra ones dropped).
  void AddRow(std::vector<std::string> cells);
  std::string Render() const;

 private:
  std::vector<std::string> headings_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

// "%.5f" as Ceph prints weights ("1.00000").
std::string FixedWeight(double value);

}  // namespace ec::cluster::admin
