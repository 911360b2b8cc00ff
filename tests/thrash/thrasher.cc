#include "tests/thrash/thrasher.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/map/map_store.h"

namespace ectest::thrash {

using Clock = std::chrono::steady_clock;
using ec::Status;
using ec::cluster::MapChange;
using std::chrono::milliseconds;

namespace {

std::int64_t WallMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The last lines of each OSD's log that hold one of `words`.
std::string LogLines(const LocalCluster& c, const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t id = 0; id < c.osds.size(); ++id) {
    std::istringstream log(c.osds[id]->LogFile());
    std::vector<std::string> lines;
    for (std::string line; std::getline(log, line);) {
      for (const std::string& w : words) {
        if (line.find(w) != std::string::npos) {
          lines.push_back(line);
          break;
        }
      }
    }
    for (std::size_t i = lines.size() > 6 ? lines.size() - 6 : 0; i < lines.size(); ++i) {
      out += fmt::format("  osd.{} log: {}\n", id, lines[i]);
    }
  }
  return out;
}

// What the monitor candidates said and etcd's log, for a failure of the map to follow an OSD.
std::string MonitorLines(const LocalCluster& c) {
  const std::string out = LogLines(c, {"monitor", "marked", "lease"});
  std::ifstream etcd_log(c.etcd.data_dir() + "/etcd.log");
  std::stringstream text;
  text << etcd_log.rdbuf();
  return out + "  etcd log (end):\n" + LastLines(text.str(), 15);
}

std::string States(const LocalCluster& c) {
  std::string s;
  for (const auto& [state, n] : c.PgStates()) s += fmt::format(" {} x{};", state, n);
  return s.empty() ? " (no PG states: etcd unreadable?)" : s;
}

}  // namespace

std::string ThrashCounts::Summary() const {
  return fmt::format(
      "{} rounds, {} kills, {} restarts, {} outs, {} ins, {} stops, {} etcd restarts",
      rounds.load(), kills.load(), restarts.load(), outs.load(), ins.load(), stops.load(),
      etcd_restarts.load());
}

Thrasher::Thrasher(LocalCluster& cluster, ThrasherOptions options)
    : cluster_(cluster), options_(options) {}

Status Thrasher::ApplyWithRetry(const MapChange& change, const std::string& what) {
  const auto end = Clock::now() + options_.etcd_limit;
  while (true) {
    auto r = cluster_.store->Apply({change});
    if (r.ok()) return Status::OK();
    if (Clock::now() >= end) {
      return Status::Error(r.status().code(), what + ": " + r.status().ToString());
    }
    std::this_thread::sleep_for(milliseconds(200));
  }
}

Status Thrasher::ApplyNow(Deferred& d) {
  if (d.change.kind == MapChange::Kind::kOsdIn) d.change.stamp_ms = WallMs();
  Status s = ApplyWithRetry(d.change, d.what);
  if (s.ok()) ++(d.out ? counts_.outs : counts_.ins);
  return s;
}

Status Thrasher::RestartNow(int id) {
  Status s = cluster_.StartOsd(id, options_.up_limit);
  if (s.ok()) ++counts_.restarts;
  return s;
}

Status Thrasher::Do(const Action& a) {
  const std::string osd = "osd." + std::to_string(a.osd);
  OsdProcess* p = a.osd >= 0 ? cluster_.osds[static_cast<std::size_t>(a.osd)].get() : nullptr;
  switch (a.kind) {
    case ActionKind::kKill: {
      const int code = p->Kill();
      if (code != 128 + 9) {
        return Status::Error(ECHILD, fmt::format("{} was not running when killed (exit {}):\n{}",
                                                 osd, code, LastLines(p->Log(), 30)));
      }
      ++counts_.kills;
      return Status::OK();
    }
    case ActionKind::kRestart:
      // etcd is down by this round's own hand: an OSD cannot boot without it (ec-osd gives up
      // after a few seconds, naming etcd), and this thread is the one that starts etcd again.
      if (!cluster_.etcd.running()) {
        deferred_restarts_.push_back(a.osd);
        return Status::OK();
      }
      return RestartNow(a.osd);
    case ActionKind::kOut:
    case ActionKind::kIn: {
      const bool out = a.kind == ActionKind::kOut;
      Deferred d{out ? MapChange::OsdOut(a.osd, false) : MapChange::OsdIn(a.osd, 0),
                 "mark " + osd + (out ? " out" : " in"), out};
      // etcd is down by this round's own hand: the change waits for the restart (this thread
      // does it), as a person's command would.
      if (!cluster_.etcd.running()) {
        deferred_.push_back(std::move(d));
        return Status::OK();
      }
      return ApplyNow(d);
    }
    case ActionKind::kStop:
      if (!p->Stop()) return Status::Error(ESRCH, "cannot SIGSTOP " + osd + ": not running");
      return Status::OK();
    case ActionKind::kContinue: {
      // The map must have marked it down (its grace passed); it is continued whatever the answer.
      const bool marked_down = cluster_.WaitUp(a.osd, false, options_.down_limit);
      const std::string map = cluster_.DescribeOsds();
      if (!p->Continue()) return Status::Error(ESRCH, "cannot SIGCONT " + osd + ": not stopped");
      if (!marked_down) {
        return Status::Error(
            ETIMEDOUT, fmt::format("{} stopped past its grace but not marked "
                                   "down in {} s; {}\n{}",
                                   osd, options_.down_limit.count(), map, MonitorLines(cluster_)));
      }
      if (!cluster_.WaitUp(a.osd, true, options_.up_limit)) {
        return Status::Error(ETIMEDOUT,
                             fmt::format("{} continued but not up again in the map after {} s; "
                                         "{}\n{}",
                                         osd, options_.up_limit.count(), cluster_.DescribeOsds(),
                                         LastLines(p->Log(), 30)));
      }
      ++counts_.stops;
      return Status::OK();
    }
    case ActionKind::kEtcdKill:
      cluster_.etcd.Kill();
      return Status::OK();
    case ActionKind::kEtcdRestart: {
      Status s = cluster_.etcd.Restart();
      if (!s.ok()) return s;
      ++counts_.etcd_restarts;
      std::vector<int> restarts = std::move(deferred_restarts_);
      deferred_restarts_.clear();
      for (int id : restarts) {
        Status restarted = RestartNow(id);
        if (!restarted.ok()) return restarted;
      }
      std::vector<Deferred> waiting = std::move(deferred_);
      deferred_.clear();
      for (Deferred& d : waiting) {
        Status applied = ApplyNow(d);
        if (!applied.ok()) return applied;
      }
      return Status::OK();
    }
  }
  return Status::Invalid("unknown action");
}

Status Thrasher::RunRound(const Round& round) {
  const auto start = Clock::now();
  Status first;
  for (const Action& a : round.actions) {
    std::this_thread::sleep_until(start + a.at);
    Status s = Do(a);
    if (!s.ok() && first.ok()) {
      first = Status::Error(
          s.code(),
          fmt::format("round {}, +{}ms {} {}: {}", round.index, a.at.count(), Name(a.kind),
                      a.osd >= 0 ? "osd." + std::to_string(a.osd) : std::string("etcd"),
                      s.message()));
    }
  }
  ++counts_.rounds;
  if (!first.ok()) return first;
  // An OSD that died by itself is a crash, whatever the PGs say.
  for (std::size_t id = 0; id < cluster_.osds.size(); ++id) {
    const int code = cluster_.osds[id]->Exited();
    if (code >= 0) {
      return Status::Error(
          ECHILD, fmt::format("round {}: osd.{} exited by itself ({}):\n{}", round.index, id, code,
                              LastLines(cluster_.osds[id]->Log(), 40)));
    }
  }
  const auto waited = Clock::now();
  if (!cluster_.WaitClean(options_.clean_limit)) {
    return Status::Error(
        ETIMEDOUT,
        fmt::format("round {}: PGs not active+clean {} s after its last action:{} "
                    "{}\nrecovery in the OSD logs:\n{}",
                    round.index, options_.clean_limit.count(), States(cluster_),
                    cluster_.DescribeOsds(), LogLines(cluster_, {"pull", "peering", "pg "})));
  }
  const auto ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<milliseconds>(Clock::now() - waited).count());
  if (ms > counts_.clean_ms_max.load()) counts_.clean_ms_max = ms;
  return Status::OK();
}

Status Thrasher::Finish() {
  if (!cluster_.etcd.running()) {
    Status s = cluster_.etcd.Restart();
    if (!s.ok()) return s;
  }
  const ec::cluster::ClusterMap map = cluster_.Map();
  for (std::size_t i = 0; i < cluster_.osds.size(); ++i) {
    const int id = static_cast<int>(i);
    OsdProcess& p = *cluster_.osds[i];
    if (p.stopped()) p.Continue();
    if (p.Exited() >= 0 || !p.running()) {
      Status s = cluster_.StartOsd(id, options_.up_limit);
      if (!s.ok()) return s;
    } else if (!cluster_.WaitUp(id, true, options_.up_limit)) {
      return Status::Error(ETIMEDOUT,
                           fmt::format("osd.{} not up; {}", id, cluster_.DescribeOsds()));
    }
    auto it = map.osds.find(id);
    if (it != map.osds.end() && !it->second.in) {
      Status s =
          ApplyWithRetry(MapChange::OsdIn(id, WallMs()), "mark osd." + std::to_string(id) + " in");
      if (!s.ok()) return s;
    }
  }
  if (!cluster_.WaitClean(options_.clean_limit)) {
    return Status::Error(ETIMEDOUT, fmt::format("PGs not active+clean at the end after {} s:{} {}",
                                                options_.clean_limit.count(), States(cluster_),
                                                cluster_.DescribeOsds()));
  }
  return Status::OK();
}

Status Thrasher::FsckAll(std::string* report) {
  std::string failures;
  for (std::size_t i = 0; i < cluster_.osds.size(); ++i) {
    OsdProcess& p = *cluster_.osds[i];
    const int code = p.Terminate();
    if (code != 0) {
      failures += fmt::format("osd.{}: SIGTERM exit {}\n{}\n", i, code, LastLines(p.Log(), 20));
    }
    std::vector<std::string> args = p.BaseArgs();
    args.push_back("--fsck");
    args.push_back("--deep");
    const ProcessResult fsck = RunOsdTool(args);
    const bool clean = fsck.exit_code == 0 && fsck.out.find(" 0 errors") != std::string::npos;
    std::string line = fsck.out;
    while (!line.empty() && line.back() == '\n') line.pop_back();
    if (report) *report += fmt::format("osd.{}: {}\n", i, line.substr(line.rfind('\n') + 1));
    if (!clean) {
      failures += fmt::format("osd.{}: ec-osd --fsck --deep exit {}:\n{}{}\n", i, fsck.exit_code,
                              fsck.out, fsck.err);
    }
  }
  if (!failures.empty()) return Status::Error(EIO, failures);
  return Status::OK();
}

}  // namespace ectest::thrash
