#include "tests/thrash/thrash_schedule.h"

#include <algorithm>
#include <array>
#include <random>

namespace ectest::thrash {

using std::chrono::milliseconds;

namespace {

// The kinds of fault a round's main fault cycles through, and what undoes each.
enum class Fault { kKill, kOut, kStop, kEtcd };
constexpr std::array<Fault, 4> kFaults = {Fault::kKill, Fault::kOut, Fault::kStop, Fault::kEtcd};

// A generator for (seed, stream, index): mt19937_64 and seed_seq are specified exactly by the
// standard; the distributions are not, so only rng() % n is used below.
std::mt19937_64 Rng(std::uint64_t seed, std::uint32_t stream, std::uint32_t index) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    stream, index};
  return std::mt19937_64(seq);
}

// A whole number of milliseconds in [lo, hi].
milliseconds Between(std::mt19937_64& rng, int lo, int hi) {
  return milliseconds(lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)));
}

// Appends a fault on `osd` starting at `at`, and its undoing.
void AddFault(Fault f, int osd, milliseconds at, milliseconds grace, std::mt19937_64& rng,
              std::vector<Action>& out) {
  switch (f) {
    case Fault::kKill:  // down for 1 to 8 s: sometimes back before the map marks it down
      out.push_back({at, ActionKind::kKill, osd});
      out.push_back({at + Between(rng, 1000, 8000), ActionKind::kRestart, osd});
      break;
    case Fault::kOut:  // out for 3 to 12 s: recovery starts, then backfill back
      out.push_back({at, ActionKind::kOut, osd});
      out.push_back({at + Between(rng, 3000, 12000), ActionKind::kIn, osd});
      break;
    case Fault::kStop:  // frozen 1 to 4 s past the grace: marked down, then it must return
      out.push_back({at, ActionKind::kStop, osd});
      out.push_back({at + grace + Between(rng, 1000, 4000), ActionKind::kContinue, osd});
      break;
    case Fault::kEtcd:  // etcd away for 1 to 5 s
      out.push_back({at, ActionKind::kEtcdKill, -1});
      out.push_back({at + Between(rng, 1000, 5000), ActionKind::kEtcdRestart, -1});
      break;
  }
}

}  // namespace

const char* Name(ActionKind kind) {
  switch (kind) {
    case ActionKind::kKill:
      return "kill";
    case ActionKind::kRestart:
      return "restart";
    case ActionKind::kOut:
      return "out";
    case ActionKind::kIn:
      return "in";
    case ActionKind::kStop:
      return "stop";
    case ActionKind::kContinue:
      return "continue";
    case ActionKind::kEtcdKill:
      return "etcd-kill";
    case ActionKind::kEtcdRestart:
      return "etcd-restart";
  }
  return "?";
}

std::string Round::ToString() const {
  std::string s = "round " + std::to_string(index) + ":";
  for (const Action& a : actions) {
    s += " +" + std::to_string(a.at.count()) + "ms " + Name(a.kind);
    if (a.osd >= 0) s += " osd." + std::to_string(a.osd);
    s += ",";
  }
  if (!actions.empty()) s.pop_back();
  return s;
}

Schedule::Schedule(std::uint64_t seed, ScheduleOptions options) : seed_(seed), options_(options) {}

Round Schedule::At(int index) const {
  const auto i = static_cast<std::uint32_t>(index);
  // The main faults of rounds 4b .. 4b+3: the four kinds in an order drawn for block b.
  std::array<Fault, 4> order = kFaults;
  {
    std::mt19937_64 block = Rng(seed_, 1, i / 4);
    for (std::size_t k = order.size() - 1; k > 0; --k) {
      std::swap(order[k], order[block() % (k + 1)]);
    }
  }
  std::mt19937_64 rng = Rng(seed_, 2, i);
  Round r;
  r.index = index;
  // Distinct OSDs for the round's faults, drawn without repetition.
  std::vector<int> osds(static_cast<std::size_t>(options_.osds));
  for (int k = 0; k < options_.osds; ++k) osds[static_cast<std::size_t>(k)] = k;
  for (std::size_t k = osds.size() - 1; k > 0; --k) std::swap(osds[k], osds[rng() % (k + 1)]);
  std::size_t next_osd = 0;
  int impaired = 0;

  const Fault main = order[i % 4];
  const milliseconds start = Between(rng, 1000, 3000);
  if (main == Fault::kEtcd) {
    AddFault(main, -1, start, options_.grace, rng, r.actions);
  } else {
    AddFault(main, osds[next_osd++], start, options_.grace, rng, r.actions);
    ++impaired;
  }
  // Half the rounds add an OSD fault that overlaps the main one, while the budget allows.
  if (impaired < options_.max_impaired && rng() % 2 == 0) {
    const Fault second = kFaults[rng() % 3];  // kill, out or stop
    AddFault(second, osds[next_osd++], start + Between(rng, 0, 3000), options_.grace, rng,
             r.actions);
  }
  std::stable_sort(r.actions.begin(), r.actions.end(),
                   [](const Action& a, const Action& b) { return a.at < b.at; });
  return r;
}

}  // namespace ectest::thrash
