#include "tests/cluster/model_workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

namespace ectest {

using ec::Status;
using ec::osd::store::testing::RandomBytes;
using std::chrono::milliseconds;

namespace {

// How many superseded acknowledged contents an object keeps for telling a lost write apart.
constexpr std::size_t kEarlier = 3;

std::string Describe(const ObjectModel::Content& c) {
  return c ? std::to_string(c->size()) + " bytes" : "no object";
}

// "(first difference at byte N)" between two contents of an object, or "".
std::string FirstDifference(const ObjectModel::Content& a, const ObjectModel::Content& b) {
  if (!a || !b) return "";
  auto [ia, ib] = std::mismatch(a->begin(), a->end(), b->begin(), b->end());
  return " (first difference at byte " + std::to_string(ia - a->begin()) + ")";
}

}  // namespace

ObjectModel::Entry& ObjectModel::At(const std::string& name) {
  Entry& e = objects_[name];
  if (e.candidates.empty()) e.candidates.push_back(std::nullopt);
  return e;
}

void ObjectModel::Done(const std::string& name, const Content& after, bool ok) {
  Entry& e = At(name);
  if (ok) {
    e.earlier.push_back(e.candidates.front());
    if (e.earlier.size() > kEarlier) e.earlier.erase(e.earlier.begin());
    e.candidates = {after};
  } else {
    e.candidates.push_back(after);
  }
}

const ObjectModel::Content& ObjectModel::Known(const std::string& name) {
  return At(name).candidates.front();
}

bool ObjectModel::Certain(const std::string& name) {
  return At(name).candidates.size() <= 1;
}

ObjectModel::Verdict ObjectModel::Settle(const std::string& name, const Content& read) {
  Entry& e = At(name);
  for (const Content& c : e.candidates) {
    if (c == read) {
      e.candidates = {read};
      return Verdict::kMatch;
    }
  }
  const bool lost = std::find(e.earlier.begin(), e.earlier.end(), read) != e.earlier.end();
  e.candidates = {read};
  return lost ? Verdict::kLost : Verdict::kWrong;
}

ObjectModel::Verdict ObjectModel::CheckRange(const std::string& name, std::uint64_t offset,
                                             std::uint64_t length,
                                             const std::vector<std::byte>& got) {
  Entry& e = At(name);
  auto slice_equals = [&](const Content& c) {
    if (!c || offset > c->size()) return false;
    const std::uint64_t n = std::min<std::uint64_t>(length, c->size() - offset);
    return got.size() == n &&
           std::equal(got.begin(), got.end(), c->begin() + static_cast<std::ptrdiff_t>(offset));
  };
  if (slice_equals(e.candidates.front())) return Verdict::kMatch;
  for (const Content& c : e.earlier) {
    if (slice_equals(c)) return Verdict::kLost;
  }
  return Verdict::kWrong;
}

std::vector<std::string> ObjectModel::names() const {
  std::vector<std::string> n;
  for (const auto& [k, v] : objects_) n.push_back(k);
  return n;
}

std::vector<std::string> ObjectModel::existing() const {
  std::vector<std::string> n;
  for (const auto& [k, v] : objects_) {
    if (v.candidates.size() == 1 && v.candidates.front()) n.push_back(k);
  }
  return n;
}

void WorkloadCounts::Note(const std::string& text) {
  static const auto start = std::chrono::steady_clock::now();
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mu_);
  if (notes_.size() < 200) notes_.push_back(fmt::format("[{:.1f} s] {}", t, text));
}

std::vector<std::string> WorkloadCounts::Notes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return notes_;
}

std::string WorkloadCounts::Summary() const {
  return fmt::format(
      "{} ops, {} acknowledged, {} failed, {} reads checked ({} direct), {} read errors, {} "
      "mismatches, {} lost",
      ops.load(), acked.load(), failed.load(), reads_checked.load(), direct_reads.load(),
      read_errors.load(), mismatches.load(), lost.load());
}

ObjectModel::Content ReadWhole(ec::cluster::client::IoCtx& io, const std::string& name,
                               Status* err) {
  auto got = io.Read(name);
  if (got.ok()) return ToVector(got->data);
  if (got.status().code() != ENOENT) *err = got.status();
  return std::nullopt;
}

namespace {

// Counts a whole read's verdict; `what` says which read it was.
void Count(ObjectModel::Verdict v, const std::string& what, const std::string& name,
           const ObjectModel::Content& expected, const ObjectModel::Content& got,
           WorkloadCounts& n) {
  ++n.reads_checked;
  if (v == ObjectModel::Verdict::kMatch) return;
  if (v == ObjectModel::Verdict::kLost) {
    ++n.lost;
    n.Note(fmt::format("LOST: {} {}: read {}, an earlier acknowledged content; expected {}", what,
                       name, Describe(got), Describe(expected)));
  } else {
    ++n.mismatches;
    n.Note(fmt::format("MISMATCH: {} {}: read {}, expected {}{}", what, name, Describe(got),
                       Describe(expected), FirstDifference(got, expected)));
  }
}

}  // namespace

void RunWorkload(ec::cluster::client::IoCtx io, const WorkloadOptions& o, std::uint64_t seed,
                 const std::atomic<bool>& stop, ObjectModel& model, WorkloadCounts& n) {
  std::mt19937_64 rng(seed);
  auto write_full = [&](const std::string& name, std::size_t size) {
    auto bytes = RandomBytes(rng, size);
    ++n.ops;
    auto r = io.WriteFull(name, bytes);
    model.Done(name, bytes, r.ok());
    if (r.ok()) {
      ++n.acked;
    } else {
      ++n.failed;
      n.Note(fmt::format("write_full {} ({} bytes): {}", name, size, r.status().ToString()));
    }
  };
  if (o.prefill) {
    for (int i = 0; i < o.objects && !stop.load(); ++i) {
      write_full(o.prefix + std::to_string(i), rng() % o.max_full);
    }
  }
  while (!stop.load()) {
    const std::string name = o.prefix + std::to_string(rng() % o.objects);
    // Settle an unknown outcome first: the whole object must be the old or the new content.
    if (!model.Certain(name)) {
      Status err;
      const ObjectModel::Content expected = model.Known(name);
      ObjectModel::Content got = ReadWhole(io, name, &err);
      if (!err.ok()) {
        ++n.read_errors;
        n.Note("read to settle " + name + ": " + err.ToString());
        std::this_thread::sleep_for(milliseconds(200));
        continue;
      }
      Count(model.Settle(name, got), "read to settle", name, expected, got, n);
      continue;
    }
    const ObjectModel::Content before = model.Known(name);
    const int op = static_cast<int>(rng() % 10);
    if (op <= 1) {
      write_full(name, rng() % o.max_full);
      continue;
    }
    ++n.ops;
    if (op <= 3) {  // overwrite a range (possibly growing it)
      const std::size_t size = before ? before->size() : 0;
      const std::size_t off = rng() % (size + 2000);
      auto bytes = RandomBytes(rng, 1 + rng() % o.max_write);
      std::vector<std::byte> after = before ? *before : std::vector<std::byte>{};
      if (after.size() < off + bytes.size()) after.resize(off + bytes.size());
      std::copy(bytes.begin(), bytes.end(), after.begin() + static_cast<std::ptrdiff_t>(off));
      auto r = io.Write(name, bytes, off);
      model.Done(name, after, r.ok());
      if (r.ok()) {
        ++n.acked;
      } else {
        ++n.failed;
        n.Note(fmt::format("write {} {}~{}: {}", name, off, bytes.size(), r.status().ToString()));
      }
    } else if (op == 4) {  // append
      auto bytes = RandomBytes(rng, 1 + rng() % o.max_append);
      std::vector<std::byte> after = before ? *before : std::vector<std::byte>{};
      after.insert(after.end(), bytes.begin(), bytes.end());
      auto r = io.Append(name, bytes);
      model.Done(name, after, r.ok());
      if (r.ok()) {
        ++n.acked;
      } else {
        ++n.failed;
        n.Note(fmt::format("append {} {}: {}", name, bytes.size(), r.status().ToString()));
      }
    } else if (op == 5) {  // remove
      Status s = io.Remove(name);
      if (s.code() == ENOENT && !before) continue;
      model.Done(name, std::nullopt, s.ok());
      if (s.ok()) {
        ++n.acked;
      } else {
        ++n.failed;
        n.Note("remove " + name + ": " + s.ToString());
      }
    } else if (op <= 7 || !before || before->empty()) {  // read whole
      Status err;
      ObjectModel::Content got = ReadWhole(io, name, &err);
      if (!err.ok()) {
        ++n.read_errors;
        n.Note("read " + name + ": " + err.ToString());
        continue;
      }
      Count(model.Settle(name, got), "read", name, before, got, n);
    } else {  // read a range
      const std::size_t off = rng() % before->size();
      // Half of them small: a read inside one chunk of a clean PG is a direct read.
      const std::size_t len = 1 + rng() % (rng() % 2 == 0 ? o.max_read : o.max_small_read);
      auto got = io.Read(name, off, len);
      if (!got.ok()) {
        ++n.read_errors;
        n.Note(fmt::format("read {} {}~{}: {}", name, off, len, got.status().ToString()));
        continue;
      }
      const auto v = model.CheckRange(name, off, len, ToVector(got->data));
      ++n.reads_checked;
      if (got->direct) ++n.direct_reads;
      if (v == ObjectModel::Verdict::kLost) {
        ++n.lost;
        n.Note(fmt::format("LOST: read {} {}~{} shows an earlier acknowledged content", name, off,
                           len));
      } else if (v == ObjectModel::Verdict::kWrong) {
        ++n.mismatches;
        n.Note(fmt::format("MISMATCH: read {} {}~{} of {}: {} bytes differ from the model", name,
                           off, len, Describe(before), got->data.size()));
      }
    }
  }
}

Status VerifyAll(ec::cluster::client::IoCtx io, const std::string& prefix, ObjectModel& model,
                 WorkloadCounts& n) {
  Status first;
  for (const std::string& name : model.names()) {
    Status err;
    const ObjectModel::Content expected = model.Known(name);
    ObjectModel::Content got = ReadWhole(io, name, &err);
    if (!err.ok()) {
      ++n.read_errors;
      n.Note("final read " + name + ": " + err.ToString());
      if (first.ok()) first = Status::Error(err.code(), name + ": " + err.message());
      continue;
    }
    Count(model.Settle(name, got), "final read", name, expected, got, n);
  }
  auto listed = io.List();
  if (!listed.ok()) return listed.status();
  std::set<std::string> in_pool;
  for (const std::string& name : *listed) {
    if (name.starts_with(prefix)) in_pool.insert(name);
  }
  const std::vector<std::string> want = model.existing();
  const std::set<std::string> in_model(want.begin(), want.end());
  for (const std::string& name : in_pool) {
    if (in_model.count(name) == 0) {
      ++n.mismatches;
      n.Note("MISMATCH: the pool lists " + name + ", which the model does not have");
    }
  }
  for (const std::string& name : in_model) {
    if (in_pool.count(name) == 0) {
      ++n.mismatches;
      n.Note("MISMATCH: the pool does not list " + name + ", which the model has");
    }
  }
  return first;
}

}  // namespace ectest
