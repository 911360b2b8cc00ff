// Status and Result<T>: the one error model of ecstore.
//
// Every fallible operation returns a Status (or a Result<T>, a value or a Status). A Status carries
// an errno-style code (0 = success, otherwise a positive errno value such as EINVAL), a message
// meant for a person, and a class that tells a caller what it may do about it:
//   - kError:     the request is wrong or impossible (bad profile, bad argument, missing file);
//   - kDataLoss:  stored bytes failed verification or cannot be rebuilt; never retry blindly;
//   - kRetryable: a transient condition (busy, timeout); the same request may succeed later.
// No exceptions are used on the data path or across the plugin boundary: errors are values.
//
// Thread safety: Status and Result are plain values; distinct objects may be used from distinct
// threads freely, one object needs external synchronisation like any std type.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ec {

class [[nodiscard]] Status {
 public:
  enum class Class { kOk, kError, kDataLoss, kRetryable };

  Status() = default;  // success

  static Status OK() { return Status(); }
  // errno_value is a positive errno (EINVAL, ENOENT, ...). A zero or negative value is
  // normalised so that an error Status is never mistaken for success.
  static Status Error(int errno_value, std::string message) {
    return Status(Normalise(errno_value), std::move(message), Class::kError);
  }
  static Status Invalid(std::string message) { return Error(EINVAL, std::move(message)); }
  static Status IOError(std::string message) { return Error(EIO, std::move(message)); }
  static Status NotFound(std::string message) { return Error(ENOENT, std::move(message)); }
  static Status DataLoss(std::string message) {
    return Status(EIO, std::move(message), Class::kDataLoss);
  }
  static Status Retryable(int errno_value, std::string message) {
    return Status(Normalise(errno_value), std::move(message), Class::kRetryable);
  }

  bool ok() const { return code_ == 0; }
  explicit operator bool() const { return ok(); }
  // Positive errno value, 0 on success.
  int code() const { return code_; }
  // Ceph-style return value: 0 on success, -errno on failure.
  int ceph_code() const { return -code_; }
  Class error_class() const { return class_; }
  bool is_data_loss() const { return class_ == Class::kDataLoss; }
  bool is_retryable() const { return class_ == Class::kRetryable; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "prefix: message".
  Status WithPrefix(std::string_view prefix) const {
    Status s = *this;
    s.message_ = std::string(prefix) + ": " + message_;
    return s;
  }
  // "message (errno NAME)" style text for logs and tool output.
  std::string ToString() const;

 private:
  Status(int code, std::string message, Class c)
      : code_(code), message_(std::move(message)), class_(c) {}
  static int Normalise(int e) { return e > 0 ? e : (e < 0 ? -e : EIO); }

  int code_ = 0;
  std::string message_;
  Class class_ = Class::kOk;
};

// A value of type T or an error Status. Accessing value() of an error Result aborts: check ok()
// first (this is a programming error, not an input error).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Status::Error(EINVAL, "Result constructed from an OK Status");
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    if (!value_) std::abort();
    return *value_;
  }
  const T& value() const& {
    if (!value_) std::abort();
    return *value_;
  }
  T&& value() && {
    if (!value_) std::abort();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace ec

// Propagates an error Status from an expression returning Status.
#define EC_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::ec::Status ec_status_ = (expr);        \
    if (!ec_status_.ok()) return ec_status_; \
  } while (0)
