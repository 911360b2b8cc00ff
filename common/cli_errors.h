// How a command-line program reports a failure, the same in ec-admin and ec-rados (Ceph's `ceph`
// rules): the exit status is the errno of the error, and an unknown command is named plainly with
// the commands closest to it. Pure functions; thread safety: none needed (no shared state).
#pragma once

#include <cerrno>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::cli {

// The exit status of a usage error (bad arguments, an unknown command or option): EINVAL, as
// `ceph` exits for a bad command.
inline constexpr int kUsageExitStatus = EINVAL;

// The exit status of a program whose command ended with `s`: 0 when it is OK, else its errno
// (ENOENT 2, EIO 5, EEXIST 17, EINVAL 22, ETIMEDOUT 110, ...), or 1 when the code cannot be an
// exit status (outside 1..255).
int ExitStatus(const Status& s);

// A command a program knows: its literal words ("osd pool create") and the usage to show
// ("osd pool create NAME PG_NUM [PGP_NUM] erasure [PROFILE]").
struct CommandName {
  std::vector<std::string> words;
  std::string usage;
};

// Levenshtein distance (insertions, deletions, substitutions of one byte each).
std::size_t EditDistance(std::string_view a, std::string_view b);

// How many of `typed`'s leading words are the leading words of some command (0 when even the
// first is unknown); typed[0 .. n] is then the unknown command to name.
std::size_t KnownPrefixWords(const std::vector<std::string>& typed,
                             const std::vector<CommandName>& commands);

// Up to `max` usages of the commands closest to `typed` (the words given), best first: the
// commands that share the longest run of leading words with it (at least one word), ordered by
// the edit distance of their next word to the typed one, then by their order in `commands`.
// When none shares even the first word, the commands whose first word is a likely typo of it (edit
// distance at most a third of its length, at least 1: "stauts" -> status, "lst" -> ls).
// Empty when nothing is close.
std::vector<std::string> ClosestCommands(const std::vector<std::string>& typed,
                                         const std::vector<CommandName>& commands,
                                         std::size_t max = 10);

// Ceph's words for a command it does not know, naming it:
//   no valid command found; 'osd foo' is not a command (see ec-admin --help)
// and, when `closest` is not empty, "; N closest matches:" on the same line and then one usage
// per line. Every line ends in '\n'.
std::string UnknownCommandText(const std::string& program, const std::string& command,
                               const std::vector<std::string>& closest);

}  // namespace ec::cli
