#include "cluster/map/map_holder.h"

namespace ec::cluster {

bool MapHolder::Set(ClusterMap map) {
  {
    std::lock_guard lock(mu_);
    if (map.epoch <= map_->epoch) return false;
    map_ = std::make_shared<const ClusterMap>(std::move(map));
    recent_.push_back(map_);
    if (recent_.size() > kMapHistory) recent_.pop_front();
  }
  cv_.notify_all();
  return true;
}

std::shared_ptr<const ClusterMap> MapHolder::Get() const {
  std::lock_guard lock(mu_);
  return map_;
}

std::int64_t MapHolder::epoch() const {
  std::lock_guard lock(mu_);
  return map_->epoch;
}

std::shared_ptr<const ClusterMap> MapHolder::WaitForEpoch(std::int64_t epoch,
                                                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return map_->epoch >= epoch; });
  return map_;
}

std::vector<std::shared_ptr<const ClusterMap>> MapHolder::Recent() const {
  std::lock_guard lock(mu_);
  return {recent_.begin(), recent_.end()};
}

}  // namespace ec::cluster
