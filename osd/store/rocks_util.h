// Helpers shared by the store's files for talking to RocksDB. Internal.
#pragma once

#include <rocksdb/status.h>

#include <string>

#include "common/status.h"

namespace ec::osd::store {

// Maps a RocksDB status to ours: NotFound -> ENOENT, NoSpace -> ENOSPC, Corruption -> DataLoss,
// Busy/TimedOut/TryAgain -> retryable, other -> EIO. The message is "what: rocksdb message".
inline Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::OK();
  std::string msg = what + ": " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsNoSpace()) return Status::Error(ENOSPC, msg);
  if (s.IsCorruption()) return Status::DataLoss(msg);
  if (s.IsBusy() || s.IsTimedOut() || s.IsTryAgain()) return Status::Retryable(EAGAIN, msg);
  return Status::IOError(msg);
}

}  // namespace ec::osd::store
