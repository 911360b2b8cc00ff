#include "common/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ec {
namespace {

enum Type { kCounter, kGauge, kHistogram };
constexpr std::string_view kTypeNames[] = {"counter", "gauge", "histogram"};

// Metric names come from code, never from input: a bad one is a bug to surface at once.
[[noreturn]] void Misuse(const std::string& what) {
  std::fprintf(stderr, "MetricsRegistry misuse: %s\n", what.c_str());
  std::abort();
}

bool ValidName(std::string_view n, bool allow_colon) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// The "# HELP" and "# TYPE" lines of a family.
std::string FamilyHeader(std::string_view name, std::string_view help, std::string_view type) {
  return fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, EscapeHelp(help), name, type);
}

// The label names of a sample, checked and sorted. Aborts on misuse (see the header).
std::vector<std::string> LabelNames(std::string_view metric, const Labels& labels) {
  std::vector<std::string> names;
  for (const auto& [k, v] : labels) {
    if (!ValidName(k, false) || k.starts_with("__") || k == "le") {
      Misuse(fmt::format("invalid label name '{}' for metric '{}'", k, metric));
    }
    names.push_back(k);
  }
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) {
    Misuse(fmt::format("repeated label name for metric '{}'", metric));
  }
  return names;
}

// a="x",b="y": sorted by name, values escaped, without braces.
std::string LabelText(const Labels& labels) {
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (const auto& [k, v] : sorted) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}=\"{}\"", k, EscapeLabelValue(v));
  }
  return out;
}

}  // namespace

struct MetricsRegistry::Family {
  std::string name;
  std::string help;
  int type = kCounter;
  std::vector<std::string> label_names;  // sorted
  std::vector<double> bounds;
  struct Child {
    std::string label_text;  // a="x",b="y" (sorted by name, escaped), without braces
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
  };
  std::map<std::string, Child, std::less<>> children;  // by label_text
};

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double value) {
  if (std::isnan(value)) return;  // it has no bucket, and would poison _sum forever
  const std::size_t i = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::vector<std::uint64_t> Histogram::BucketCounts() const {
  std::vector<std::uint64_t> out(bounds_.size() + 1);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = counts_[i].load(std::memory_order_relaxed);
  return out;
}

std::vector<double> DefaultLatencyBuckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,    0.1,    0.25,    0.5,    1.0,   2.5,    5.0,   10.0};
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

std::string MetricsRegistry::LabelKey(const Labels& labels) {
  return LabelText(labels);
}

MetricsRegistry::Family& MetricsRegistry::FamilyFor(std::string_view name, std::string_view help,
                                                    int type, const Labels& labels,
                                                    const std::vector<double>* bounds) {
  if (!ValidName(name, true)) Misuse(fmt::format("invalid metric name '{}'", name));
  const std::vector<std::string> names = LabelNames(name, labels);
  if (bounds != nullptr) {
    for (std::size_t i = 0; i < bounds->size(); ++i) {
      if (!std::isfinite((*bounds)[i]) || (i > 0 && (*bounds)[i] <= (*bounds)[i - 1])) {
        Misuse(fmt::format("buckets of '{}' must be finite and strictly increasing", name));
      }
    }
  }
  auto it = families_.find(name);
  if (it == families_.end()) {
    auto f = std::make_unique<Family>();
    f->name = std::string(name);
    f->help = std::string(help);
    f->type = type;
    f->label_names = names;
    if (bounds != nullptr) f->bounds = *bounds;
    it = families_.emplace(f->name, std::move(f)).first;
  }
  Family& f = *it->second;
  if (f.type != type || f.help != help || f.label_names != names ||
      (bounds != nullptr && f.bounds != *bounds)) {
    Misuse(fmt::format("metric '{}' registered again with another type, help, labels or buckets",
                       name));
  }
  return f;
}

Counter& MetricsRegistry::GetCounter(std::string_view name, std::string_view help,
                                     const Labels& labels) {
  std::lock_guard lock(mu_);
  Family& f = FamilyFor(name, help, kCounter, labels, nullptr);
  Family::Child& c = f.children[LabelKey(labels)];
  if (!c.counter) c.counter = std::make_unique<Counter>();
  return *c.counter;
}

Gauge& MetricsRegistry::GetGauge(std::string_view name, std::string_view help,
                                 const Labels& labels) {
  std::lock_guard lock(mu_);
  Family& f = FamilyFor(name, help, kGauge, labels, nullptr);
  Family::Child& c = f.children[LabelKey(labels)];
  if (!c.gauge) c.gauge = std::make_unique<Gauge>();
  return *c.gauge;
}

Histogram& MetricsRegistry::GetHistogram(std::string_view name, std::string_view help,
                                         const Labels& labels, const std::vector<double>& bounds) {
  std::lock_guard lock(mu_);
  Family& f = FamilyFor(name, help, kHistogram, labels, &bounds);
  Family::Child& c = f.children[LabelKey(labels)];
  if (!c.histogram) c.histogram = std::make_unique<Histogram>(bounds);
  return *c.histogram;
}

std::string MetricsRegistry::RenderPrometheus() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    out += FamilyHeader(name, f->help, kTypeNames[f->type]);
    for (const auto& [key, c] : f->children) {
      const std::string braces = key.empty() ? "" : "{" + key + "}";
      if (c.counter) {
        out += fmt::format("{}{} {}\n", name, braces, c.counter->Value());
      } else if (c.gauge) {
        out += fmt::format("{}{} {}\n", name, braces, c.gauge->Value());
      } else if (c.histogram) {
        const std::vector<std::uint64_t> counts = c.histogram->BucketCounts();
        const std::string sep = key.empty() ? "" : ",";
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < counts.size(); ++i) {
          cumulative += counts[i];
          const std::string le = i < f->bounds.size() ? FormatMetricValue(f->bounds[i]) : "+Inf";
          out += fmt::format("{}_bucket{{{}{}le=\"{}\"}} {}\n", name, key, sep, le, cumulative);
        }
        out += fmt::format("{}_sum{} {}\n", name, braces, FormatMetricValue(c.histogram->Sum()));
        out += fmt::format("{}_count{} {}\n", name, braces, cumulative);
      }
    }
  }
  return out;
}

void PrometheusText::Family(std::string_view name, std::string_view help, Type type) {
  if (!ValidName(name, true)) Misuse(fmt::format("invalid metric name '{}'", name));
  auto at = std::lower_bound(begun_.begin(), begun_.end(), name);
  if (at != begun_.end() && *at == name) Misuse(fmt::format("metric '{}' begun twice", name));
  begun_.insert(at, std::string(name));
  static constexpr std::string_view kNames[] = {"counter", "gauge", "untyped"};
  text_ += FamilyHeader(name, help, kNames[static_cast<int>(type)]);
  family_ = std::string(name);
  label_names_.clear();
  has_sample_ = false;
}

void PrometheusText::Sample(const Labels& labels, double value) {
  Line(labels, FormatMetricValue(value));
}

void PrometheusText::IntSample(const Labels& labels, std::int64_t value) {
  Line(labels, std::to_string(value));
}

void PrometheusText::Line(const Labels& labels, const std::string& value) {
  if (family_.empty()) Misuse("a sample before any family");
  std::vector<std::string> names = LabelNames(family_, labels);
  if (!has_sample_) {
    label_names_ = std::move(names);
    has_sample_ = true;
  } else if (names != label_names_) {
    Misuse(fmt::format("samples of '{}' with other label names", family_));
  }
  const std::string key = LabelText(labels);
  text_ += key.empty() ? fmt::format("{} {}\n", family_, value)
                       : fmt::format("{}{{{}}} {}\n", family_, key, value);
}

}  // namespace ec
