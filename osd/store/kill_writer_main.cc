// ec_store_kill_writer DEVICE DB BACKEND FIRST ACK_FD: applies KillTransaction(FIRST),
// KillTransaction(FIRST+1), ... to the store forever, writing each transaction's number (8 bytes)
// to ACK_FD once Apply has returned OK. The SIGKILL test kills it mid-stream.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "osd/store/kill_workload.h"
#include "osd/store/object_store.h"

int main(int argc, char** argv) {
  using namespace ec::osd::store;
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s DEVICE DB uring|sync FIRST ACK_FD\n", argv[0]);
    return 2;
  }
  StoreOptions o;
  o.device_path = argv[1];
  o.db_path = argv[2];
  o.backend = std::string(argv[3]) == "sync" ? IoBackend::kSync : IoBackend::kUring;
  std::uint64_t i = std::strtoull(argv[4], nullptr, 10);
  int ack_fd = std::atoi(argv[5]);
  auto store = ObjectStore::Open(o);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 1;
  }
  for (;; ++i) {
    ec::Status s = (*store)->Apply(testing::KillTransaction(i));
    if (!s.ok()) {
      std::fprintf(stderr, "tx %llu: %s\n", static_cast<unsigned long long>(i),
                   s.ToString().c_str());
      return 1;
    }
    if (::write(ack_fd, &i, sizeof(i)) != static_cast<ssize_t>(sizeof(i))) return 1;
  }
}
