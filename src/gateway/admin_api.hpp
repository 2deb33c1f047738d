#pragma once
// The admin API, guarded by the master key:
//   POST   /admin/keys       create a key (the body: settings); the answer holds the key, once
//   GET    /admin/keys       list keys (never the keys themselves)
//   GET    /admin/keys/ID    one key
//   PATCH  /admin/keys/ID    change settings (the fields given; null clears a limit)
//   DELETE /admin/keys/ID    revoke
//   GET    /admin/usage[?key_id=&model=&since=&until=]  requests, tokens and cost by key, model
//                            and UTC day (gateway/usage_query.hpp)
// Each call is a blocking SQLite round trip on the I/O thread: admin calls are rare, and a
// change is read back into this process's key cache at once.
#include <boost/asio/awaitable.hpp>

#include <string_view>

#include "gateway/control_plane.hpp"
#include "gateway/route_table.hpp"
#include "http/server.hpp"

namespace infergate::gateway {

// `control` is null when the configuration has no auth section. A key created or changed to name
// models that `routes` does not serve is made all the same, and its answer carries "warnings".
boost::asio::awaitable<void> handle_admin(http::Exchange& ex, ControlPlane* control, const RouteTable& routes,
                                          std::string_view path, std::string_view request_id);

}  // namespace infergate::gateway
