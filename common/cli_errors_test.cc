#include "common/cli_errors.h"

#include <gtest/gtest.h>

namespace ec::cli {
namespace {

const std::vector<CommandName>& Table() {
  static const std::vector<CommandName> table = {
      {{"osd", "pool", "create"}, "osd pool create NAME PG_NUM"},
      {{"osd", "pool", "ls"}, "osd pool ls [detail]"},
      {{"osd", "pool", "rm"}, "osd pool rm NAME NAME --yes-i-really-really-mean-it"},
      {{"osd", "tree"}, "osd tree"},
      {{"osd", "out"}, "osd out ID [ID ...]"},
      {{"status"}, "status"},
      {{"health"}, "health [detail]"},
  };
  return table;
}

TEST(CliErrors, ExitStatusIsTheErrno) {
  EXPECT_EQ(ExitStatus(Status::OK()), 0);
  EXPECT_EQ(ExitStatus(Status::NotFound("x")), ENOENT);
  EXPECT_EQ(ExitStatus(Status::Invalid("x")), 22);
  EXPECT_EQ(ExitStatus(Status::Error(EEXIST, "x")), 17);
  EXPECT_EQ(ExitStatus(Status::Error(EPERM, "x")), 1);
  EXPECT_EQ(ExitStatus(Status::DataLoss("x")), EIO);
  EXPECT_EQ(ExitStatus(Status::Retryable(ETIMEDOUT, "x")), 110);
  EXPECT_EQ(ExitStatus(Status::Error(300, "x")), 1);  // not an exit status
  EXPECT_EQ(kUsageExitStatus, 22);
}

TEST(CliErrors, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "ab"), 2u);
  EXPECT_EQ(EditDistance("status", "status"), 0u);
  EXPECT_EQ(EditDistance("stauts", "status"), 2u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("pol", "pool"), 1u);
}

TEST(CliErrors, ClosestCommandsShareTheLongestPrefix) {
  EXPECT_EQ(KnownPrefixWords({"osd", "pool", "frob"}, Table()), 2u);
  // By the distance of the next word: "frob" -> "rm" 3, "ls" 4, "create" 5.
  EXPECT_EQ(ClosestCommands({"osd", "pool", "frob"}, Table()),
            (std::vector<std::string>{"osd pool rm NAME NAME --yes-i-really-really-mean-it",
                                      "osd pool ls [detail]", "osd pool create NAME PG_NUM"}));
  // "osd foo": every osd command, the nearest next word first ("foo" -> "pool" 2, "out" 3,
  // "tree" 4), then table order.
  EXPECT_EQ(KnownPrefixWords({"osd", "foo"}, Table()), 1u);
  const std::vector<std::string> osd = ClosestCommands({"osd", "foo"}, Table());
  ASSERT_EQ(osd.size(), 5u);
  EXPECT_EQ(osd[0], "osd pool create NAME PG_NUM");
  EXPECT_EQ(osd[3], "osd out ID [ID ...]");
  EXPECT_EQ(osd[4], "osd tree");
  EXPECT_EQ(ClosestCommands({"osd", "foo"}, Table(), 2).size(), 2u);
  // A group with nothing after it lists its commands in table order.
  EXPECT_EQ(ClosestCommands({"osd", "pool"}, Table()).front(), "osd pool create NAME PG_NUM");
  // A typo of the first word.
  EXPECT_EQ(KnownPrefixWords({"stauts"}, Table()), 0u);
  EXPECT_EQ(ClosestCommands({"stauts"}, Table()), std::vector<std::string>{"status"});
  EXPECT_EQ(ClosestCommands({"helth", "detail"}, Table()),
            std::vector<std::string>{"health [detail]"});
  // Nothing close.
  EXPECT_TRUE(ClosestCommands({"frobnicate"}, Table()).empty());
  EXPECT_TRUE(ClosestCommands({}, Table()).empty());
}

TEST(CliErrors, UnknownCommandTextNamesIt) {
  EXPECT_EQ(UnknownCommandText("ec-admin", "frobnicate", {}),
            "no valid command found; 'frobnicate' is not a command (see ec-admin --help)\n");
  EXPECT_EQ(UnknownCommandText("ec-rados", "lst", {"ls"}),
            "no valid command found; 'lst' is not a command (see ec-rados --help); 1 closest "
            "match:\nls\n");
  EXPECT_EQ(UnknownCommandText("ec-admin", "osd pool frob", {"osd pool ls", "osd pool rm"}),
            "no valid command found; 'osd pool frob' is not a command (see ec-admin --help); 2 "
            "closest matches:\nosd pool ls\nosd pool rm\n");
}

}  // namespace
}  // namespace ec::cli
