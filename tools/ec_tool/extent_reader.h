// ExtentReader: reads many byte extents of many files with all of them in flight at once
// (io_uring through liburing), instead of one blocking read after another. Used by
// `ec-tool repair`, whose sub-chunk plans are many small extents per helper.
//
// If io_uring is not available (an old kernel, a seccomp policy) the reader falls back to pread,
// extent by extent, and says so through uses_io_uring().
//
// Thread safety: one reader per thread.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "recovery/read_plan.h"

namespace ectool {

struct ExtentRead {
  int fd = -1;
  const std::string* path = nullptr;  // for messages
  const std::vector<ec::recovery::Extent>* extents = nullptr;
  std::byte* destination = nullptr;  // extents land one after the other from here
};

class ExtentReader {
 public:
  // `depth` bounds the reads in flight.
  explicit ExtentReader(unsigned depth = 128);
  ~ExtentReader();
  ExtentReader(const ExtentReader&) = delete;
  ExtentReader& operator=(const ExtentReader&) = delete;

  bool uses_io_uring() const { return ring_ok_; }

  // Reads every extent of every request. Errors: "failed to read PATH: <strerror>", and
  // "failed to read PATH: the file ends at ... (truncated?)" when an extent lies past the end.
  ec::Status ReadAll(std::span<const ExtentRead> requests);

 private:
  ec::Status ReadWithPread(std::span<const ExtentRead> requests);

  io_uring ring_{};
  bool ring_ok_ = false;
  unsigned depth_;
};

}  // namespace ectool
