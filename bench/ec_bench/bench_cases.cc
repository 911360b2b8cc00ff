#include "bench/ec_bench/bench_cases.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "ec/plugin.h"

namespace ecbench {

namespace {

struct CachedCode {
  ec::ErasureCodeInterfaceRef code;
  std::string error;
};

std::map<std::string, CachedCode>& CodeCache() {
  static auto* cache = new std::map<std::string, CachedCode>();
  return *cache;
}

// lrc's l: as many local groups as k and m allow (gcd(k, m)), so 4+2 -> l=3, 10+4 -> l=7.
int LocalGroupSize(const Geometry& g) {
  return (g.k + g.m) / std::gcd(g.k, g.m);
}

ec::Profile ProfileFor(const CodeSpec& spec, const Geometry& g, int packetsize) {
  ec::Profile p = {{"plugin", spec.plugin},
                   {"technique", spec.technique},
                   {"k", std::to_string(g.k)},
                   {"m", std::to_string(g.m)}};
  if (spec.plugin == "lrc") {
    p.erase("technique");  // its layers are jerasure reed_sol_van
    p["l"] = std::to_string(LocalGroupSize(g));
  }
  if (spec.plugin == "clay") {
    p["d"] = std::to_string(g.k + g.m - 1);
    p["scalar_mds"] = spec.scalar_mds;
  }
  if (spec.plugin == "shec") p["c"] = std::to_string(kShecC);
  if (packetsize > 0) p["packetsize"] = std::to_string(packetsize);
  return p;
}

std::string NameFor(const CodeSpec& spec, const Geometry& g, int packetsize) {
  std::string name = "plugin:" + spec.plugin;
  if (!spec.scalar_mds.empty()) name += "/scalar_mds:" + spec.scalar_mds;
  if (!spec.technique.empty()) name += "/technique:" + spec.technique;
  if (packetsize > 0) name += "/packetsize:" + std::to_string(packetsize);
  name += "/k:" + std::to_string(g.k) + "/m:" + std::to_string(g.m);
  if (spec.plugin == "clay") name += "/d:" + std::to_string(g.k + g.m - 1);
  if (spec.plugin == "lrc") name += "/l:" + std::to_string(LocalGroupSize(g));
  if (spec.plugin == "shec") name += "/c:" + std::to_string(kShecC);
  return name;
}

}  // namespace

const std::vector<CodeSpec>& CodeSpecs() {
  static const std::vector<CodeSpec> specs = {
      {"isa", "reed_sol_van", "", 0},      {"isa", "cauchy", "", 0},
      {"jerasure", "reed_sol_van", "", 0}, {"jerasure", "reed_sol_r6_op", "", 0},
      {"jerasure", "cauchy_orig", "", 8},  {"jerasure", "cauchy_good", "", 8},
      {"jerasure", "liberation", "", 7},   {"jerasure", "blaum_roth", "", 7},
      {"jerasure", "liber8tion", "", 8},   {"clay", "reed_sol_van", "jerasure", 0},
      {"clay", "reed_sol_van", "isa", 0},  {"lrc", "", "", 0},
      {"shec", "multiple", "", 0},
  };
  return specs;
}

const std::vector<Geometry>& Geometries() {
  static const std::vector<Geometry> geometries = {{4, 2}, {6, 3}, {8, 3}, {10, 4}, {12, 4}};
  return geometries;
}

const std::vector<std::size_t>& ChunkSizes() {
  static const std::vector<std::size_t> sizes = {4096, 65536, 1048576};
  return sizes;
}

bool IsDataChunk(const CodeCase& c, int id) {
  const std::vector<int>& mapping = c.code->get_chunk_mapping();
  if (mapping.empty()) return id < c.k;
  const auto data_end = mapping.begin() + std::min<std::ptrdiff_t>(c.k, std::ssize(mapping));
  return std::find(mapping.begin(), data_end, id) != data_end;
}

int PacketSizeFor(int w, std::size_t chunk) {
  const std::size_t fit = chunk / (static_cast<std::size_t>(w) * sizeof(int));
  if (fit == 0) return 1;
  return static_cast<int>(std::min<std::size_t>(2048, std::bit_floor(fit)));
}

ec::ErasureCodeInterfaceRef CodeFor(const ec::Profile& profile, const std::string& plugin_dir,
                                    std::string* error) {
  const std::string key = ec::ProfileToString(profile);
  auto& cache = CodeCache();
  auto it = cache.find(key);
  if (it == cache.end()) {
    CachedCode entry;
    ec::Profile normalised = profile;
    auto plugin = profile.find("plugin");
    ec::Status s = ec::PluginRegistry::instance().factory(
        plugin == profile.end() ? "" : plugin->second, plugin_dir, normalised, &entry.code);
    if (!s.ok()) {
      entry.code.reset();
      entry.error = s.message();
    }
    it = cache.emplace(key, std::move(entry)).first;
  }
  if (!it->second.code && error != nullptr) *error = it->second.error;
  return it->second.code;
}

std::vector<CodeCase> MakeCodeCases(const Geometry& g, std::size_t requested_chunk,
                                    const std::string& plugin_dir,
                                    std::vector<std::string>* notes) {
  std::vector<CodeCase> cases;
  for (const CodeSpec& spec : CodeSpecs()) {
    CodeCase c;
    c.spec = spec;
    c.k = g.k;
    c.m = g.m;
    c.d = spec.plugin == "clay" ? g.k + g.m - 1 : 0;
    c.packetsize = spec.w > 0 ? PacketSizeFor(spec.w, requested_chunk) : 0;
    const ec::Profile profile = ProfileFor(spec, g, c.packetsize);
    c.name = NameFor(spec, g, c.packetsize);
    std::string error;
    c.code = CodeFor(profile, plugin_dir, &error);
    if (!c.code) {
      // One note per technique and geometry, whatever the chunk size (and so packetsize).
      std::string note = "skip " + NameFor(spec, g, 0) + ": " + error;
      for (char& ch : note)
        if (ch == '\n') ch = ' ';
      notes->push_back(note);
      continue;
    }
    c.profile = c.code->get_profile();
    c.parity_id = ec::ProfileToString(c.profile);
    const unsigned width = static_cast<unsigned>(requested_chunk) * static_cast<unsigned>(g.k);
    c.chunk = c.code->get_chunk_size(width);
    if (c.chunk != requested_chunk) {
      notes->push_back("note " + c.name + ": chunk " + std::to_string(requested_chunk) +
                       " is not a valid chunk size of this code (the plugin rounds it up to " +
                       std::to_string(c.chunk) + "); measured at chunk:" + std::to_string(c.chunk));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ecbench
