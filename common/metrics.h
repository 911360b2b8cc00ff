// MetricsRegistry: counters, gauges and histograms rendered in the Prometheus text exposition
// format 0.0.4.
//
//   registry ──< family "ecstore_osd_ops_total" (HELP, TYPE counter)
//                  ├── child {op="read"}   -> Counter   (atomic; no lock to increment)
//                  └── child {op="write"}  -> Counter
//
// Naming (Prometheus conventions; the daemon registers these):
//   ecstore_osd_ops_total{op="read"}               counter, operations completed, by op
//   ecstore_osd_op_errors_total{op=...,class=...}  counter, failed operations
//   ecstore_osd_op_bytes_total{op=...,dir="in"}    counter, payload bytes
//   ecstore_osd_op_latency_seconds{op=...}         histogram, DefaultLatencyBuckets()
//   ecstore_osd_checksum_errors_total              counter, reads that failed crc32c
//   ecstore_osd_inflight_ops                       gauge
// Prefix `ecstore_<component>_`, base units (seconds, bytes), `_total` on counters; label values
// are free text (escaped on output), label names [a-zA-Z_][a-zA-Z0-9_]* (not "le", not "__x").
//
// Hot path: Get* looks up (or creates) a child under a mutex and returns a reference that stays
// valid as long as the registry: look it up once, keep the reference, and every Inc/Set/Observe
// afterwards is a few relaxed atomic operations with no lock.
//
// Misuse is a programming error, not an input error, and aborts with a message on stderr: an
// invalid metric or label name, the same name registered with another type, help text, label
// names or buckets, or buckets that are not strictly increasing.
//
// Thread safety: every method of the registry and its metrics may be called from any thread
// concurrently. A render taken while others update sees each value at some moment during the
// render; a histogram's _count always equals its +Inf bucket. PrometheusText (a page written once
// from values the caller already holds) is a plain value: one thread at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ec {

// Label name/value pairs of one child. Order does not matter (they are sorted on output); the
// same names must be used for every child of a family.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(std::int64_t v) { value_.store(v, std::memory_order_relaxed); }
  void Add(std::int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  void Sub(std::int64_t n = 1) { value_.fetch_sub(n, std::memory_order_relaxed); }
  std::int64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> value_{0};
};

// Fixed upper bounds (seconds for latencies); an observation lands in the first bucket whose bound
// is >= the value, or in the implicit +Inf bucket. Rendered cumulatively (_bucket{le=...}), with
// _sum and _count.
class Histogram {
 public:
  // `bounds` strictly increasing and finite (checked by the registry).
  explicit Histogram(std::vector<double> bounds);

  void Observe(double value);
  void ObserveDuration(std::chrono::nanoseconds d) {
    Observe(std::chrono::duration<double>(d).count());
  }

  const std::vector<double>& bounds() const { return bounds_; }
  // Per-bucket (not cumulative) counts, bounds().size() + 1 entries (the last is +Inf); the sum.
  std::vector<std::uint64_t> BucketCounts() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<double> sum_{0.0};
};

// 50 us ... 10 s, roughly 1-2.5-5 per decade: suits loopback RPCs and device I/O alike.
std::vector<double> DefaultLatencyBuckets();

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The child of family `name` with these labels, created (at zero) on first use. The returned
  // reference is owned by the registry and valid until it is destroyed. Aborts on misuse (see
  // the file comment).
  Counter& GetCounter(std::string_view name, std::string_view help, const Labels& labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help, const Labels& labels = {});
  Histogram& GetHistogram(std::string_view name, std::string_view help, const Labels& labels = {},
                          const std::vector<double>& bounds = DefaultLatencyBuckets());

  // The whole registry in the text format 0.0.4: families sorted by name, each with "# HELP" and
  // "# TYPE" lines, children sorted by their label text. Serve with
  // Content-Type: text/plain; version=0.0.4. Never fails.
  std::string RenderPrometheus() const;

 private:
  struct Family;
  Family& FamilyFor(std::string_view name, std::string_view help, int type, const Labels& labels,
                    const std::vector<double>* bounds);
  static std::string LabelKey(const Labels& labels);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;
};

// PrometheusText: one page of the text format 0.0.4 written in one go from values the caller
// already holds (a snapshot of the cluster, as ceph-mgr's exporter renders one), for what the
// registry cannot hold: families of type "untyped" and floating-point values. The same lines as
// the registry's render: "# HELP name help" and "# TYPE name type", then one sample per line,
// labels sorted by name and escaped. Families appear in the order begun, samples in the order
// added.
//
// Misuse aborts as the registry's does: an invalid metric or label name, a family begun twice,
// a sample before any family, or samples of one family with other label names.
class PrometheusText {
 public:
  enum class Type { kCounter, kGauge, kUntyped };

  // Begins family `name`; the samples added next are its.
  void Family(std::string_view name, std::string_view help, Type type);
  // One sample of the family begun last: `value` as FormatMetricValue writes it (IntSample: the
  // exact decimal integer).
  void Sample(const Labels& labels, double value);
  void IntSample(const Labels& labels, std::int64_t value);

  const std::string& text() const { return text_; }

 private:
  void Line(const Labels& labels, const std::string& value);
  std::string text_;
  std::string family_;                    // begun last; "" before the first
  std::vector<std::string> label_names_;  // of its first sample, sorted
  bool has_sample_ = false;
  std::vector<std::string> begun_;  // every family begun, sorted
};

// Escapes a label value for the text format: backslash, double quote and newline.
std::string EscapeLabelValue(std::string_view value);
// Formats a sample value the way the text format expects ("+Inf", "-Inf", "NaN", shortest
// round-trip decimal otherwise).
std::string FormatMetricValue(double value);

}  // namespace ec
