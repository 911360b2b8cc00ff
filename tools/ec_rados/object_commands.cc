#include "tools/ec_rados/object_commands.h"

#include <cerrno>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "tools/ec_rados/errors.h"
#include "tools/ec_rados/meta_commands.h"

namespace ec::tools::rados {
namespace {

using cluster::client::IoCtx;

constexpr int kGetAttempts = 5;

// The input of put/append: `in` for "-", else the file.
class Input {
 public:
  static Result<std::unique_ptr<Input>> Open(const std::string& file, std::istream& in) {
    auto input = std::unique_ptr<Input>(new Input);
    if (file == "-") {
      input->in_ = &in;
    } else {
      errno = 0;
      input->file_.open(file, std::ios::binary);
      if (!input->file_) {
        const int e = errno != 0 ? errno : EIO;
        return Status::Error(e, "error reading input file " + file + ": " + ErrnoText(e));
      }
      input->in_ = &input->file_;
    }
    input->name_ = file == "-" ? "standard input" : file;
    return input;
  }
  // Up to `max` bytes into `buf`; fewer only at the end.
  Status Read(std::vector<std::byte>* buf, std::size_t max) {
    buf->resize(max);
    in_->read(reinterpret_cast<char*>(buf->data()), static_cast<std::streamsize>(max));
    const auto got = static_cast<std::size_t>(in_->gcount());
    buf->resize(got);
    if (in_->bad()) return Status::IOError("error reading " + name_ + ": " + ErrnoText(EIO));
    return Status::OK();
  }

 private:
  Input() = default;
  std::ifstream file_;
  std::istream* in_ = nullptr;
  std::string name_;
};

enum class PutMode { kFull, kOffset, kAppend };

Status WriteFromInput(IoCtx& io, const std::string& object, const std::string& file, PutMode mode,
                      std::uint64_t offset, std::istream& in) {
  auto input = Input::Open(file, in);
  if (!input.ok()) return input.status();
  std::vector<std::byte> buf;
  std::uint64_t done = 0;
  const std::string where = Where(io, object);
  for (bool first = true;; first = false) {
    EC_RETURN_IF_ERROR((*input)->Read(&buf, kObjectIoChunk));
    // An empty input still makes (or, for put, empties) the object; after the first piece an
    // empty read is the end.
    if (buf.empty() && !first) return Status::OK();
    Result<std::uint64_t> put = std::uint64_t{0};
    switch (mode) {
      case PutMode::kFull:
        put = first ? io.WriteFull(object, buf) : io.Write(object, buf, done);
        break;
      case PutMode::kOffset:
        put = io.Write(object, buf, offset + done);
        break;
      case PutMode::kAppend:
        put = io.Append(object, buf);
        break;
    }
    if (!put.ok())
      return Failed(mode == PutMode::kAppend ? "appending " + where : "writing " + where,
                    put.status());
    done += buf.size();
    if (buf.size() < kObjectIoChunk) return Status::OK();
  }
}

Status WriteOutput(const std::string& file, const std::vector<std::byte>& data, std::ostream& out) {
  if (file == "-") {
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) return Status::IOError("error writing standard output: " + ErrnoText(EIO));
    return Status::OK();
  }
  errno = 0;
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  if (!f) {
    const int e = errno != 0 ? errno : EIO;
    return Status::Error(e, "error opening output file " + file + ": " + ErrnoText(e));
  }
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  f.close();
  if (!f) return Status::IOError("error writing output file " + file + ": " + ErrnoText(EIO));
  return Status::OK();
}

}  // namespace

Status PutObject(IoCtx& io, const std::string& object, const std::string& file,
                 std::optional<std::uint64_t> offset, std::istream& in) {
  return WriteFromInput(io, object, file, offset ? PutMode::kOffset : PutMode::kFull,
                        offset.value_or(0), in);
}

Status AppendObject(IoCtx& io, const std::string& object, const std::string& file,
                    std::istream& in) {
  return WriteFromInput(io, object, file, PutMode::kAppend, 0, in);
}

Status GetObject(IoCtx& pool, const std::string& object, const std::string& file,
                 std::ostream& out) {
  const std::string where = Where(pool, object);
  // Every read must carry the object's version and size (a direct read has neither).
  IoCtx io = pool;
  io.set_direct_reads(false);
  std::vector<std::byte> data;
  for (int attempt = 0; attempt < kGetAttempts; ++attempt) {
    data.clear();
    std::uint64_t version = 0;
    std::uint64_t size = 0;
    bool changed = false;
    do {
      auto got = io.Read(object, data.size(), kObjectIoChunk);
      if (!got.ok()) return Failed("getting " + where, got.status());
      if (data.empty()) {
        version = got->version;
        size = got->object_size;
      } else if (got->version != version) {
        changed = true;
        break;
      }
      data.insert(data.end(), got->data.data(), got->data.data() + got->data.size());
      if (got->data.size() == 0) break;
    } while (data.size() < size);
    if (!changed) return WriteOutput(file, data, out);
  }
  return Status::Error(EAGAIN, "getting " + where + ": " + ErrnoText(EAGAIN) +
                                   ": the object kept changing while it was read");
}

Status StatObject(IoCtx& io, const std::string& object, const std::string& format,
                  std::ostream& out) {
  auto st = io.Stat(object);
  if (!st.ok()) return Failed("stat-ing " + Where(io, object), st.status());
  // rados stat prints whole seconds (its utime_t of a time_t).
  const std::string mtime = RadosTime(st->mtime / 1000000, 0);
  if (format == "plain") {
    // rados's line exactly, for the tools that parse it; the form is in the JSON.
    out << Where(io, object) << " mtime " << mtime << ", size " << st->size << "\n";
    return Status::OK();
  }
  const nlohmann::json j = {{"pool", io.pool_name()}, {"name", object},         {"size", st->size},
                            {"mtime", mtime},         {"version", st->version}, {"form", st->form}};
  out << j.dump(format == "json-pretty" ? 4 : -1) << "\n";
  return Status::OK();
}

Status RemoveObjects(IoCtx& io, const std::vector<std::string>& objects) {
  for (const std::string& object : objects) {
    Status s = io.Remove(object);
    if (!s.ok()) return Failed("removing " + Where(io, object), s);
  }
  return Status::OK();
}

Status ListObjects(IoCtx& io, std::ostream& out) {
  auto names = io.List();
  if (!names.ok()) return Failed("listing objects of pool " + io.pool_name(), names.status());
  for (const std::string& name : *names) out << name << "\n";
  return Status::OK();
}

}  // namespace ec::tools::rados
