#include "cluster/admin/format.h"

#include <algorithm>
#include <cstdio>

namespace ec::cluster::admin {

Result<Format> ParseFormat(std::string_view text) {
  if (text == "plain") return Format::kPlain;
  if (text == "json") return Format::kJson;
  if (text == "json-pretty") return Format::kJsonPretty;
  return Status::Invalid("unknown format '" + std::string(text) +
                         "' (expected plain, json or json-pretty)");
}

std::string DumpJson(const nlohmann::json& value, Format format) {
  // Replace invalid UTF-8 rather than throw: names come from the map, which only admits printable
  // ASCII, but a dump must never abort on what it is given.
  if (format == Format::kJson) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return value.dump(4, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void TextTable::AddColumn(std::string heading, Align align) {
  headings_.push_back(std::move(heading));
  aligns_.push_back(align);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(headings_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  std::vector<std::size_t> width(headings_.size());
  for (std::size_t c = 0; c < headings_.size(); ++c) {
    width[c] = headings_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) out += "  ";
      out += aligns_[c] == Align::kLeft ? cells[c] + pad : pad + cells[c];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headings_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string FixedWeight(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.5f", value);
  return buf;
}

}  // namespace ec::cluster::admin
