#pragma once
// What one request sees of the gateway's configuration: the route table and its metric series,
// swapped together by a reload. A request keeps the snapshot it started with to its last byte.
#include <atomic>
#include <memory>

#include "gateway/gateway_metrics.hpp"
#include "gateway/route_table.hpp"

namespace infergate::gateway {

struct Snapshot {
  std::shared_ptr<const RouteTable> routes;
  std::shared_ptr<const GatewayMetrics> metrics;
};

using SnapshotHandle = std::atomic<std::shared_ptr<const Snapshot>>;

}  // namespace infergate::gateway
