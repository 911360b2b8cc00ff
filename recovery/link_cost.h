// The choice between a direct repair and a chain of helpers (issue 33 item 3), by the time each
// takes on the links between the OSDs, from their bandwidths (osd_network_bandwidth, published in
// the map; cluster/map/cluster_map.h OsdEntry::network_bandwidth).
//
//   direct:  H1 --d1--> R,  H2 --d2--> R, ... Hn --dn--> R      (all at once, into R's one link)
//   chain:   H1 --C--> H2 --C--> ... --C--> Hn --C--> R         (one partial of C bytes per link,
//                                                               in slices of s bytes)
//
// Every link is full duplex and runs at the bandwidth of its slower end (B(x): the bandwidth of
// OSD x's host link, the same in and out).
//   direct time = max( (d1 + ... + dn) / B(R),  max over helpers h of dh / B(h) )
//                 (R's link takes everything; a slow helper is slow on its own part)
//   chain time  = C / Bmin  +  sum over links l of min(s, C) / B(l)
//                 B(l) = min(B of its two ends), Bmin = min over links of B(l)
//                 (every link carries C; the slowest sets the pace. The second term is the
//                 pipeline's fill: a slice crosses every link in turn, so the first one reaches
//                 the requester after the sum of the links' times for one slice; at most
//                 n x s / Bmin, n the hops.)
// The chain is chosen when C >= s (at least one slice: repair_chain.h ChainLongEnough) and
//   kChainTimeMargin x chain time <= direct time.
// The margin (2) pays for what the model leaves out: each hop's device read, its GF work and
// its request's round trip, per slice and in series along the chain, and the CPU the chain's
// messages cost each hop (the requester keeps one slice per link in flight,
// osd/pg/repair_chain.h ChainRepairOptions::window, so that every link is busy at the pace of
// the slowest).
//
// Equal links, and unknown bandwidths (0). When every bandwidth is equal or unknown, every link
// counts as 1 (times are computed relative to the slowest link): they are then byte counts, direct
// = max(sum d, max d) = D = sum d, chain = C + n x s, and the rule is exactly
//   C >= s  and  D >= 2 x (C + n x s),
// that is the rule of equal links that osd_repair_pipeline=auto had before this model (D >= 2C
// and C >= s) with the pipeline's fill of n slices added to the chain's bytes: the same for a
// shard of many slices (C >> n x s), stricter for short ones. When some are known, an unknown one
// counts as the slowest known one (no link is assumed faster than a measured one).
//
// Pure; thread safe. Bandwidths are bytes per second (any uint64: the map bounds them, and the
// arithmetic is in double, which neither overflows nor divides by zero here).
#pragma once

#include <cstdint>
#include <vector>

namespace ec::recovery {

inline constexpr double kChainTimeMargin = 2.0;

struct LinkCostHelper {
  std::uint64_t bandwidth = 0;  // bytes/s of the helper's link; 0: unknown
  std::uint64_t bytes = 0;      // what it sends the requester in the direct repair
};

struct LinkCostInput {
  std::uint64_t requester_bandwidth = 0;  // bytes/s; 0: unknown
  // The direct repair's helpers that send the requester anything over the network (a shard on
  // the requester itself is left out: it costs no link).
  std::vector<LinkCostHelper> direct;
  // The chain's hops' bandwidths in chain order (the first starts, the last sends the requester).
  // A hop that is the requester itself (a primary's own shard first) is in it: its link carries
  // the partial out.
  std::vector<std::uint64_t> chain;
  std::uint64_t chain_bytes = 0;  // C: the bytes on every link of the chain (one partial each)
  std::uint64_t slice_bytes = 0;  // s: bytes of the partial per slice (> 0; 0 counts as C)
};

struct LinkCostEstimate {
  double direct_seconds = 0;  // the direct repair's time (in bytes when every link is unknown)
  double chain_seconds = 0;   // the chain's, fill included
  bool chain = false;         // the chain is chosen (see the file comment)
};

// The times of both repairs and the choice, as the file comment says. A chain without hops is
// never chosen (its time is reported as infinite).
LinkCostEstimate EstimateRepairLinks(const LinkCostInput& input);

}  // namespace ec::recovery
