#include "tools/ec_tool/file_io.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

namespace ec::tools::ec_tool {

namespace {

ec::Status ReadError(const std::string& path, int error) {
  return ec::Status::Error(error, "failed to read " + path + ": " + std::strerror(error));
}

ec::Status WriteError(const std::string& path, int error) {
  return ec::Status::Error(error, "failed to write " + path + ": " + std::strerror(error));
}

// Temporary files that a signal handler must remove: a fixed table of pointers to the paths
// (owned by the AtomicFile objects), so that the handler needs no lock and no allocation. A file
// that finds the table full is simply not cleaned up on a signal.
// The paths live in heap strings that do not move while tracked (AtomicFile holds them by
// unique_ptr).
constexpr std::size_t kTrackedFiles = 1024;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
std::atomic<const char*> g_temp_files[kTrackedFiles];

void Track(const std::string& temp) {
  for (auto& slot : g_temp_files) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, temp.c_str())) return;
  }
}

void Untrack(const std::string& temp) {
  for (auto& slot : g_temp_files) {
    const char* expected = temp.c_str();
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

extern "C" void RemoveTemporaryFilesAndDie(int sig) {
  for (auto& slot : g_temp_files) {
    if (const char* temp = slot.load()) ::unlink(temp);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string TempPathFor(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".ec-tool-tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

ec::Result<InputFile> InputFile::Open(const std::string& path) {
  InputFile file;
  file.path_ = path;
  file.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd_ < 0) return ReadError(path, errno);
  struct stat st {};
  if (::fstat(file.fd_, &st) != 0) return ReadError(path, errno);
  if (S_ISDIR(st.st_mode)) return ReadError(path, EISDIR);
  file.size_ = static_cast<std::uint64_t>(st.st_size);
  ::posix_fadvise(file.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return file;
}

ec::Result<std::size_t> InputFile::Read(std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd_, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadError(path_, errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    Abandon();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  Abandon();
}

void AtomicFile::Abandon() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (temp_path_) {
    ::unlink(temp_path_->c_str());
    Untrack(*temp_path_);
    temp_path_.reset();
  }
}

ec::Status AtomicFile::Failed(int error) {
  Abandon();
  return WriteError(path_, error);
}

ec::Result<AtomicFile> AtomicFile::Create(const std::string& path) {
  AtomicFile file;
  file.path_ = path;
  // rename() could not replace a directory: say so now rather than after all the work.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return WriteError(path, EISDIR);
  // A signal between open() and Track() would leave the file behind: hold the signals back.
  sigset_t cleanup_signals;
  sigset_t previous;
  sigemptyset(&cleanup_signals);
  for (int sig : kCleanupSignals) sigaddset(&cleanup_signals, sig);
  ::pthread_sigmask(SIG_BLOCK, &cleanup_signals, &previous);
  int error = EEXIST;
  for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
    auto temp = std::make_unique<std::string>(TempPathFor(path));
    file.fd_ = ::open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (file.fd_ >= 0) {
      file.temp_path_ = std::move(temp);
      Track(*file.temp_path_);
      error = 0;
    } else {
      error = errno;
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error != 0) return WriteError(path, error);
  return file;
}

ec::Status AtomicFile::Write(std::span<const std::byte> bytes) {
  if (fd_ < 0) return WriteError(path_, EBADF);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Failed(errno);
    }
    done += static_cast<std::size_t>(n);
  }
  return ec::Status::OK();
}

ec::Status AtomicFile::WriteGather(std::span<const iovec> iov) {
  if (fd_ < 0) return WriteError(path_, EBADF);
  // writev takes at most IOV_MAX entries and may stop anywhere, even inside an entry.
  std::vector<iovec> pending;
  std::size_t next = 0;
  while (next < iov.size() || !pending.empty()) {
    while (pending.size() < IOV_MAX && next < iov.size()) pending.push_back(iov[next++]);
    ssize_t n = ::writev(fd_, pending.data(), static_cast<int>(pending.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Failed(errno);
    }
    std::size_t written = static_cast<std::size_t>(n);
    std::size_t consumed = 0;
    while (consumed < pending.size() && written >= pending[consumed].iov_len) {
      written -= pending[consumed].iov_len;
      ++consumed;
    }
    if (consumed < pending.size()) {
      pending[consumed].iov_base = static_cast<char*>(pending[consumed].iov_base) + written;
      pending[consumed].iov_len -= written;
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(consumed));
  }
  return ec::Status::OK();
}

ec::Status AtomicFile::Close(bool sync) {
  if (!temp_path_) return WriteError(path_, EBADF);
  if (fd_ < 0) return ec::Status::OK();  // already closed
  if (sync && ::fsync(fd_) != 0) return Failed(errno);
  int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) return Failed(errno);
  return ec::Status::OK();
}

ec::Status AtomicFile::Commit(bool sync) {
  EC_RETURN_IF_ERROR(Close(sync));
  if (::rename(temp_path_->c_str(), path_.c_str()) != 0) return Failed(errno);
  Untrack(*temp_path_);
  temp_path_.reset();
  if (sync) {
    // Make the rename itself durable.
    std::string dir = path_.substr(0, path_.find_last_of('/') + 1);
    int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return WriteError(path_, errno);
    int r = ::fsync(dfd);
    int error = errno;
    ::close(dfd);
    if (r != 0) return WriteError(path_, error);
  }
  return ec::Status::OK();
}

void RemoveTemporaryFilesOnSignal() {
  for (int sig : kCleanupSignals) std::signal(sig, RemoveTemporaryFilesAndDie);
}

ec::Result<std::vector<std::byte>> ReadWholeFile(const std::string& path) {
  ec::Result<InputFile> file = InputFile::Open(path);
  if (!file.ok()) return file.status();
  std::vector<std::byte> bytes(file->size());
  ec::Result<std::size_t> n = file->Read(bytes);
  if (!n.ok()) return n.status();
  bytes.resize(*n);
  // A file that grew after it was opened is read to its end.
  std::byte extra[65536];
  for (;;) {
    ec::Result<std::size_t> more = file->Read(extra);
    if (!more.ok()) return more.status();
    if (*more == 0) break;
    bytes.insert(bytes.end(), extra, extra + *more);
  }
  return bytes;
}

ec::Status WriteWholeFile(const std::string& path, std::span<const std::byte> bytes, bool sync) {
  ec::Result<AtomicFile> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  EC_RETURN_IF_ERROR(file->Write(bytes));
  return file->Commit(sync);
}

ec::Result<std::uint64_t> CheckShardSizes(const std::string& fname, const ec::ShardSet& shards,
                                          const ec::StripeLayout& layout) {
  std::string first_name;
  std::uint64_t first_size = 0;
  for (int id : shards) {
    std::string name = fname + "." + std::to_string(id);
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) {
      return ec::Status::Error(errno, "failed to read " + name + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
      return ec::Status::Invalid("failed to read " + name + ": not a regular file");
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (first_name.empty()) {
      first_name = name;
      first_size = size;
    } else if (size != first_size) {
      return ec::Status::Invalid("shard file " + name + " has " + std::to_string(size) +
                                 " bytes but " + first_name + " has " + std::to_string(first_size) +
                                 ": the shards are not from the same encode (or one is truncated)");
    }
  }
  if (first_size == 0) return ec::Status::Invalid("shard file " + first_name + " is empty");
  ec::Result<std::uint64_t> stripes = layout.stripes_in_shard(first_size);
  if (!stripes.ok()) {
    return ec::Status::Invalid("shard file " + first_name + " has " + std::to_string(first_size) +
                               " bytes, not a multiple of the stripe unit " +
                               std::to_string(layout.stripe_unit()) +
                               " (truncated, or written with another profile or stripe unit?)");
  }
  return *stripes;
}

}  // namespace ec::tools::ec_tool
