#pragma once
// What servers count about themselves for whoever exports metrics (the gateway's /metrics). One
// instance is shared by the servers of every I/O thread, so the counts are atomic; they are read
// off the request path, by a scrape.
#include <atomic>
#include <cstdint>

namespace infergate::http {

struct ServerStats {
  // Accepts that failed for want of descriptors or memory. While that lasts the server tries again
  // every 100 ms, so this grows by about ten a second for as long as clients wait to be taken in.
  std::atomic<std::uint64_t> accepts_out_of_resources{0};
};

}  // namespace infergate::http
