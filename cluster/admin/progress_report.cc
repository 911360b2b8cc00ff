#include "cluster/admin/progress_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ec::cluster::admin {
namespace {

constexpr int kBarWidth = 28;

double Fraction(std::uint64_t recovered, std::uint64_t missing) {
  const std::uint64_t all = recovered + missing;
  return all == 0 ? 0.0 : static_cast<double>(recovered) / static_cast<double>(all);
}

// One event in two lines: the message (with its age) at `indent`, the bar at `bar_indent`.
std::string TwoLines(const ProgressEvent& e, std::int64_t now_ms, int indent, int bar_indent) {
  std::string out = std::string(static_cast<std::size_t>(indent), ' ') + e.message;
  if (e.started_ms > 0) out += " (" + ShortAge((now_ms - e.started_ms) / 1000) + ")";
  out += "\n" + std::string(static_cast<std::size_t>(bar_indent), ' ') +
         ProgressBar(e.progress, kBarWidth);
  if (e.remaining_sec) out += " (remaining: " + ShortAge(*e.remaining_sec) + ")";
  return out + "\n";
}

}  // namespace

std::string HumanBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  // One decimal below 10, none above (as Ceph's byte_u_t prints "1.5 MiB", "12 MiB"); a value that
  // rounds to 10.0 prints "10".
  if (value < 9.95) return fmt::format("{:.1f} {}", value, kUnits[unit]);
  return fmt::format("{:.0f} {}", std::floor(value + 0.5), kUnits[unit]);
}

std::string ProgressBar(double fraction, int width) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  int done = static_cast<int>(std::floor(fraction * width));
  if (done == width && fraction < 1.0) done = width - 1;
  return "[" + std::string(static_cast<std::size_t>(done), '=') +
         std::string(static_cast<std::size_t>(width - done), '.') + "]";
}

std::vector<ProgressEvent> ProgressEvents(const StatusReport& report) {
  const RecoveryStatus& rec = report.recovery;
  std::vector<ProgressEvent> events;
  if (rec.missing == 0) return events;
  ProgressEvent global;
  global.id = "global-recovery";
  global.message = "Global Recovery Event";
  global.progress = Fraction(rec.recovered_bytes, rec.missing_bytes);
  global.started_ms = rec.since_ms;
  global.remaining_sec = rec.RemainingSeconds(rec.missing_bytes);
  global.missing_bytes = rec.missing_bytes;
  global.recovered_bytes = rec.recovered_bytes;
  events.push_back(std::move(global));
  for (const auto& [id, pool] : rec.pools) {
    ProgressEvent e;
    e.id = "pool-recovery-" + std::to_string(id);
    e.message = "Recovery of pool '" + pool.name + "'";
    e.progress = Fraction(pool.recovered_bytes, pool.missing_bytes);
    e.started_ms = pool.since_ms;
    e.missing_bytes = pool.missing_bytes;
    e.recovered_bytes = pool.recovered_bytes;
    events.push_back(std::move(e));
  }
  return events;
}

std::vector<CompletedEvent> CompletedEvents(const StatusReport& report, std::int64_t now_ms) {
  const RecoveryStatus& rec = report.recovery;
  if (rec.last_done_ms <= 0 || now_ms - rec.last_done_ms > kCompletedKeepMs) return {};
  CompletedEvent e;
  e.id = "global-recovery-" + std::to_string(rec.last_since_ms);
  e.message = "Global Recovery Event";
  e.started_ms =
      rec.last_since_ms > 0 && rec.last_since_ms <= rec.last_done_ms ? rec.last_since_ms : 0;
  e.finished_ms = rec.last_done_ms;
  return {e};
}

nlohmann::json ProgressJson(const std::vector<ProgressEvent>& events, std::int64_t now_ms,
                            const std::vector<CompletedEvent>& completed) {
  nlohmann::json list = nlohmann::json::array();
  for (const ProgressEvent& e : events) {
    const bool started = e.started_ms > 0;
    list.push_back(
        {{"id", e.id},
         {"message", e.message},
         {"progress", e.progress},
         {"started_at",
          started ? nlohmann::json(static_cast<double>(e.started_ms) / 1000.0) : nlohmann::json()},
         {"elapsed_sec",
          started ? nlohmann::json(std::max<std::int64_t>(0, (now_ms - e.started_ms) / 1000))
                  : nlohmann::json()},
         {"remaining_sec", e.remaining_sec ? nlohmann::json(*e.remaining_sec) : nlohmann::json()},
         {"missing_bytes", e.missing_bytes},
         {"recovered_bytes", e.recovered_bytes}});
  }
  nlohmann::json done = nlohmann::json::array();
  const auto seconds = [](std::int64_t ms) { return static_cast<double>(ms) / 1000.0; };
  for (const CompletedEvent& e : completed) {
    done.push_back({{"id", e.id},
                    {"message", e.message},
                    {"progress", 1.0},
                    {"started_at",
                     e.started_ms > 0 ? nlohmann::json(seconds(e.started_ms)) : nlohmann::json()},
                    {"finished_at", seconds(e.finished_ms)},
                    {"failed", false}});
  }
  return {{"events", std::move(list)}, {"completed", std::move(done)}};
}

std::string RenderProgressPlain(const std::vector<ProgressEvent>& events, std::int64_t now_ms,
                                const std::vector<CompletedEvent>& completed) {
  if (events.empty() && completed.empty()) return "No ongoing recovery\n";
  std::string out;
  for (const ProgressEvent& e : events) out += TwoLines(e, now_ms, 0, 4);
  if (!events.empty() && !completed.empty()) out += "\n";
  for (const CompletedEvent& e : completed) {
    out += "[Complete]: " + e.message;
    if (e.started_ms > 0) out += " (took " + ShortAge((e.finished_ms - e.started_ms) / 1000) + ")";
    out += "\n";
  }
  return out;
}

std::string RenderRecoveryPlain(const StatusReport& report, std::int64_t now_ms) {
  const RecoveryStatus& rec = report.recovery;
  std::string io;
  const OsdIo& client = report.usage.rates;
  if (client.rd > 0 || client.wr > 0) {
    io += "    client:   ";
    if (client.rd > 0) io += HumanBytes(static_cast<std::uint64_t>(client.rd_bytes)) + "/s rd, ";
    if (client.wr > 0) io += HumanBytes(static_cast<std::uint64_t>(client.wr_bytes)) + "/s wr, ";
    io += fmt::format("{} op/s rd, {} op/s wr\n", client.rd, client.wr);
  }
  if (rec.bytes_per_sec > 0 || rec.objects_per_sec > 0) {
    io += fmt::format("    recovery: {}/s, {} objects/s\n", HumanBytes(rec.bytes_per_sec),
                      rec.objects_per_sec);
  }
  if (const std::optional<double> ratio = rec.NetworkPerRebuilt()) {
    io += fmt::format(
        "    recovery bytes: {:.2f} network per rebuilt ({} from helpers, {} rebuilt, {} read by "
        "helpers)\n",
        *ratio, HumanBytes(rec.network_bytes), HumanBytes(rec.rebuilt_bytes),
        HumanBytes(rec.helper_device_bytes));
  }
  std::string out;
  if (!io.empty()) out += "  io:\n" + io + "\n";
  const std::vector<ProgressEvent> events = ProgressEvents(report);
  if (!events.empty()) out += "  progress:\n" + TwoLines(events.front(), now_ms, 4, 6) + "\n";
  return out;
}

}  // namespace ec::cluster::admin
