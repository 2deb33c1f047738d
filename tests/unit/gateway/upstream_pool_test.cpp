#include "gateway/upstream_pool.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

// Only what the pool looks at: whether the connection may carry another request.
class IdleConnection : public http::Connection {
 public:
  explicit IdleConnection(bool reusable) : reusable_(reusable) {}
  boost::asio::awaitable<boost::system::error_code> request(std::string_view, std::string_view,
                                                            std::span<const http::Header>,
                                                            std::span<const std::string_view>) override {
    co_return boost::system::error_code{};
  }
  [[nodiscard]] bool request_sent() const override { return true; }
  [[nodiscard]] const http::ResponseHead& head() const override { return head_; }
  boost::asio::awaitable<boost::system::result<std::string_view>> read_body_some() override {
    co_return std::string_view{};
  }
  [[nodiscard]] std::uint64_t socket_reads() const override { return 0; }
  void set_io_timeout(std::chrono::milliseconds) override {}
  void keep_timer_armed() override {}
  [[nodiscard]] bool body_complete() const override { return true; }
  [[nodiscard]] bool reusable() const override { return reusable_; }
  void close() override { reusable_ = false; }

 private:
  bool reusable_;
  http::ResponseHead head_;
};

TEST(UpstreamPool, AnOriginIsItsSchemeHostPortAndVerificationNotItsPath) {
  const auto origin = [](const char* url, bool verify = true) {
    return UpstreamPool::origin_of(http::parse_url(url), verify);
  };
  // Two providers behind one server (vLLM and an embedding model on one nginx) share connections.
  EXPECT_EQ(origin("http://127.0.0.1:8000/plain/v1"), origin("http://127.0.0.1:8000/sse/v1"));
  EXPECT_NE(origin("http://127.0.0.1:8000/v1"), origin("http://127.0.0.1:8001/v1"));
  EXPECT_NE(origin("http://localhost:8000/v1"), origin("http://127.0.0.1:8000/v1"));
  EXPECT_NE(origin("http://api.example.com/v1"), origin("https://api.example.com/v1"));
  // A connection opened without verifying the certificate is never handed to a provider that
  // verifies it.
  EXPECT_NE(origin("https://api.example.com/v1", false), origin("https://api.example.com/v1", true));
  EXPECT_EQ(origin("https://api.example.com/v1"), origin("https://api.example.com/other/v1"));
}

TEST(UpstreamPool, KeepsReusableConnectionsPerOriginAndHandsOutTheLastKept) {
  UpstreamPool pool;
  const std::size_t a = UpstreamPool::origin_of(http::parse_url("http://127.0.0.1:8000/v1"), true);
  const std::size_t b = UpstreamPool::origin_of(http::parse_url("http://127.0.0.1:8001/v1"), true);
  EXPECT_EQ(pool.take(a), nullptr);

  auto first = std::make_unique<IdleConnection>(true);
  auto second = std::make_unique<IdleConnection>(true);
  const http::Connection* first_at = first.get();
  const http::Connection* second_at = second.get();
  pool.release(a, std::move(first));
  pool.release(a, std::move(second));
  pool.release(a, std::make_unique<IdleConnection>(false));  // its response was not read to the end
  pool.release(a, nullptr);

  EXPECT_EQ(pool.take(b), nullptr);
  EXPECT_EQ(pool.take(a).get(), second_at);
  EXPECT_EQ(pool.take(a).get(), first_at);
  EXPECT_EQ(pool.take(a), nullptr);
}

TEST(UpstreamPool, KeepsAtMostItsLimitPerOrigin) {
  UpstreamPool pool(2);
  const std::size_t a = UpstreamPool::origin_of(http::parse_url("http://127.0.0.1:8000/v1"), true);
  for (int i = 0; i < 3; ++i) {
    pool.release(a, std::make_unique<IdleConnection>(true));
  }
  EXPECT_NE(pool.take(a), nullptr);
  EXPECT_NE(pool.take(a), nullptr);
  EXPECT_EQ(pool.take(a), nullptr);
}

}  // namespace
}  // namespace infergate::gateway
