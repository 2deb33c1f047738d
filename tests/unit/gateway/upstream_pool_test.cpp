#include "gateway/upstream_pool.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

// Only what the pool looks at: whether the connection may carry another request.
class IdleConnection : public http::Connection {
 public:
  explicit IdleConnection(bool reusable) : reusable_(reusable) {}
  boost::asio::awaitable<boost::system::error_code> send(std::string_view, std::string_view,
                                                         std::span<const http::Header>,
                                                         std::span<const std::string_view>) override {
    co_return boost::system::error_code{};
  }
  boost::asio::awaitable<boost::system::result<http::ResponseHead>> read_head() override {
    co_return http::ResponseHead{};
  }
  boost::asio::awaitable<boost::system::result<std::string_view>> read_body_some() override {
    co_return std::string_view{};
  }
  void set_io_timeout(std::chrono::milliseconds) override {}
  void keep_timer_armed() override {}
  [[nodiscard]] bool body_complete() const override { return true; }
  [[nodiscard]] bool reusable() const override { return reusable_; }
  void close() override { reusable_ = false; }

 private:
  bool reusable_;
};

TEST(UpstreamPool, KeepsReusableConnectionsPerOriginAndHandsOutTheLastKept) {
  UpstreamPool pool;
  const http::Url a = http::parse_url("http://127.0.0.1:8000/v1");
  const http::Url b = http::parse_url("http://127.0.0.1:8001/v1");
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
  const http::Url a = http::parse_url("http://127.0.0.1:8000/v1");
  for (int i = 0; i < 3; ++i) {
    pool.release(a, std::make_unique<IdleConnection>(true));
  }
  EXPECT_NE(pool.take(a), nullptr);
  EXPECT_NE(pool.take(a), nullptr);
  EXPECT_EQ(pool.take(a), nullptr);
}

}  // namespace
}  // namespace infergate::gateway
