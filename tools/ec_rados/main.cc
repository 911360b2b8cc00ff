// ec-rados: objects in the cluster's pools from the shell, with rados's syntax (issue 14 item 6).
// The commands are tools/ec_rados (ec_rados_lib); this is only the program's frame.
#include <iostream>

#include "tools/ec_rados/rados_cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return ec::tools::rados::RunRadosCli(argc, argv, {std::cin, std::cout, std::cerr});
}
