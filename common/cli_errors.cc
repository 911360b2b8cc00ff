#include "common/cli_errors.h"

#include <algorithm>
#include <utility>

namespace ec::cli {
namespace {

std::size_t SharedWords(const std::vector<std::string>& typed, const std::vector<std::string>& c) {
  std::size_t n = 0;
  while (n < typed.size() && n < c.size() && typed[n] == c[n]) ++n;
  return n;
}

}  // namespace

int ExitStatus(const Status& s) {
  if (s.ok()) return 0;
  return s.code() >= 1 && s.code() <= 255 ? s.code() : 1;
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::size_t KnownPrefixWords(const std::vector<std::string>& typed,
                             const std::vector<CommandName>& commands) {
  std::size_t best = 0;
  for (const CommandName& c : commands) best = std::max(best, SharedWords(typed, c.words));
  return best;
}

std::vector<std::string> ClosestCommands(const std::vector<std::string>& typed,
                                         const std::vector<CommandName>& commands,
                                         std::size_t max) {
  if (typed.empty()) return {};
  const std::size_t best = KnownPrefixWords(typed, commands);
  // (distance of the next word, table order) of each candidate.
  std::vector<std::pair<std::size_t, std::size_t>> ranked;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const std::vector<std::string>& words = commands[i].words;
    if (words.empty()) continue;
    if (best > 0) {
      if (SharedWords(typed, words) != best) continue;
      const bool both_go_on = typed.size() > best && words.size() > best;
      ranked.emplace_back(both_go_on ? EditDistance(typed[best], words[best]) : 0, i);
    } else {
      const std::size_t d = EditDistance(typed[0], words[0]);
      if (d <= std::max<std::size_t>(1, typed[0].size() / 3)) ranked.emplace_back(d, i);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (const auto& [distance, i] : ranked) {
    if (out.size() == max) break;
    if (std::find(out.begin(), out.end(), commands[i].usage) == out.end()) {
      out.push_back(commands[i].usage);
    }
  }
  return out;
}

std::string UnknownCommandText(const std::string& program, const std::string& command,
                               const std::vector<std::string>& closest) {
  std::string out =
      "no valid command found; '" + command + "' is not a command (see " + program + " --help)";
  if (closest.empty()) return out + "\n";
  out += "; " + std::to_string(closest.size()) +
         (closest.size() == 1 ? " closest match:\n" : " closest matches:\n");
  for (const std::string& usage : closest) out += usage + "\n";
  return out;
}

}  // namespace ec::cli
