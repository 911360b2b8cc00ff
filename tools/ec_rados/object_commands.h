// The object commands of ec-rados on an open pool, rados's: put, append, get, stat, rm, ls. Files
// are read and written in 4 MiB pieces (FILE "-" is the `in` or `out` stream). An error's Status
// carries the whole line the program prints after "error: " ("getting p/x: (2) No such file or
// directory: ..."), its code the errno. Thread safety: as the IoCtx's (any thread).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cluster/client/rados.h"
#include "common/status.h"

namespace ec::tools::rados {

// Bytes per write or read of put, append and get (rados's default op size).
inline constexpr std::uint64_t kObjectIoChunk = 4 << 20;

// put: the file becomes the object (write_full of the first piece, writes of the rest), or with
// `offset`, is written at that offset without truncating the object.
Status PutObject(cluster::client::IoCtx& io, const std::string& object, const std::string& file,
                 std::optional<std::uint64_t> offset, std::istream& in);
// append: the file is appended to the object (created if missing).
Status AppendObject(cluster::client::IoCtx& io, const std::string& object, const std::string& file,
                    std::istream& in);
// get: the whole object into the file (created or truncated). The pieces are read at one
// version; if the object changes meanwhile the read starts over (a few times, then EAGAIN).
Status GetObject(cluster::client::IoCtx& io, const std::string& object, const std::string& file,
                 std::ostream& out);
// stat: "POOL/OBJ mtime 2026-11-28T10:00:00.000000+0000, size N", as rados stat prints it.
// rados stat: plain, rados's line "POOL/OBJ mtime T, size N" unchanged; json / json-pretty
// ({"pool","name","size","mtime","version","form"}) also says the object's form (issue 30).
Status StatObject(cluster::client::IoCtx& io, const std::string& object, const std::string& format,
                  std::ostream& out);
// rm: each object in turn; stops at the first error (rados's behaviour).
Status RemoveObjects(cluster::client::IoCtx& io, const std::vector<std::string>& objects);
// ls: one name per line.
Status ListObjects(cluster::client::IoCtx& io, std::ostream& out);

}  // namespace ec::tools::rados
