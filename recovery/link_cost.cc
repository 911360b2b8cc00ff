#include "recovery/link_cost.h"

#include <algorithm>
#include <limits>

namespace ec::recovery {

LinkCostEstimate EstimateRepairLinks(const LinkCostInput& input) {
  // The slowest known bandwidth stands for the unknown ones; none known: every link is 1.
  std::uint64_t slowest_known = 0;
  auto know = [&](std::uint64_t b) {
    if (b != 0 && (slowest_known == 0 || b < slowest_known)) slowest_known = b;
  };
  know(input.requester_bandwidth);
  for (const LinkCostHelper& h : input.direct) know(h.bandwidth);
  for (std::uint64_t b : input.chain) know(b);
  // Bandwidths relative to the slowest link (the unit): equal links are all exactly 1, so their
  // times are byte counts and the rule of equal links holds without rounding.
  const double unit = slowest_known == 0 ? 1.0 : static_cast<double>(slowest_known);
  auto rel = [&](std::uint64_t b) { return b == 0 ? 1.0 : static_cast<double>(b) / unit; };

  LinkCostEstimate e;
  const double requester = rel(input.requester_bandwidth);
  double into_requester = 0;
  double slowest_helper = 0;
  for (const LinkCostHelper& h : input.direct) {
    const double bytes = static_cast<double>(h.bytes);
    into_requester += bytes;
    slowest_helper = std::max(slowest_helper, bytes / rel(h.bandwidth));
  }
  const double direct = std::max(into_requester / requester, slowest_helper);
  e.direct_seconds = direct / unit;
  if (input.chain.empty()) {
    e.chain_seconds = std::numeric_limits<double>::infinity();
    return e;
  }
  // Link i joins hop i and the next (the last hop and the requester).
  const double c = static_cast<double>(input.chain_bytes);
  const double s = input.slice_bytes == 0
                       ? c
                       : static_cast<double>(std::min(input.slice_bytes, input.chain_bytes));
  double slowest_link = std::numeric_limits<double>::infinity();
  double fill = 0;
  for (std::size_t i = 0; i < input.chain.size(); ++i) {
    const double next = i + 1 < input.chain.size() ? rel(input.chain[i + 1]) : requester;
    const double link = std::min(rel(input.chain[i]), next);
    slowest_link = std::min(slowest_link, link);
    fill += s / link;
  }
  const double chain = c / slowest_link + fill;
  e.chain_seconds = chain / unit;
  e.chain = input.chain_bytes >= input.slice_bytes && kChainTimeMargin * chain <= direct;
  return e;
}

}  // namespace ec::recovery
