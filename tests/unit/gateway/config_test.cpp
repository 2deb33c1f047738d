#include "gateway/config.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gateway/route_table.hpp"

namespace infergate::gateway {
namespace {

const std::map<std::string, std::string> kEnv{{"GROQ_API_KEY", "gsk-test"},
                                              {"INFERGATE_MASTER_KEY", "master-0123456789abcdef"}};

TEST(Config, TheExampleFileIsValid) {
  std::ifstream in(std::string(INFERGATE_SOURCE_DIR) + "/examples/gateway.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const GatewayConfig config = parse_config(text.str(), "gateway.yaml", &kEnv);
  EXPECT_EQ(config.providers.size(), 5u);
  EXPECT_EQ(config.providers.at("groq").api_key, "gsk-test");
  EXPECT_EQ(config.providers.at("groq").base.path, "/openai/v1");
  EXPECT_EQ(config.providers.at("groq").first_byte_timeout, std::chrono::milliseconds(20000));
  ASSERT_EQ(config.models.size(), 2u);
  EXPECT_EQ(config.models[0].fallbacks, std::vector<std::string>{"llama-3.1-8b"});
  const auto routes = RouteTable::from_config(config);
  const ModelRoute* fast = routes->find("llama-3.1-8b");
  ASSERT_NE(fast, nullptr);
  ASSERT_EQ(fast->deployments.size(), 3u);
  EXPECT_EQ(fast->deployments[0]->upstream_model, "llama-3.1-8b-instant");
  EXPECT_EQ(fast->deployments[0]->weight, 3);
  EXPECT_EQ(fast->deployments[0]->authorization, "Bearer gsk-test");
  EXPECT_EQ(fast->deployments[0]->target("/chat/completions"), "/openai/v1/chat/completions");
  EXPECT_EQ(fast->deployments[0]->target("/completions"), "/openai/v1/completions");
  EXPECT_EQ(fast->deployments[0]->target("/embeddings"), "/openai/v1/embeddings");
  EXPECT_THROW((void)fast->deployments[0]->target("/models"), std::invalid_argument);
  ASSERT_TRUE(config.auth);
  EXPECT_EQ(config.auth->master_key, "master-0123456789abcdef");
  EXPECT_EQ(config.auth->refresh, std::chrono::milliseconds(1000));
}

TEST(Config, AuthProblemsAreReported) {
  const std::string text =
      "auth:\n"                     // 1
      "  master_key: short\n"       // 2
      "  refresh_ms: -5\n"          // 3
      "  state: memcached://x:1\n"  // 4
      "  colour: red\n"             // 5
      "providers: {a: {base_url: 'http://127.0.0.1:1'}}\n"
      "models: {m: {deployments: [{provider: a, model: x}]}}\n";
  try {
    parse_config(text, "g.yaml", &kEnv);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("g.yaml:2:15: auth.master_key: needs at least 16 characters"), std::string::npos) << what;
    EXPECT_NE(what.find("auth.keys_db: is required"), std::string::npos) << what;
    EXPECT_NE(what.find("auth.refresh_ms"), std::string::npos) << what;
    EXPECT_NE(what.find("auth.state"), std::string::npos) << what;
    EXPECT_NE(what.find("colour"), std::string::npos) << what;
  }
}

TEST(Config, BusyPollingIsAtMostAMillisecondAndZeroTurnsItOff) {
  const std::string tail =
      "providers: {a: {base_url: 'http://127.0.0.1:1'}}\n"
      "models: {m: {deployments: [{provider: a, model: x}]}}\n";
  EXPECT_EQ(parse_config("server: {busy_poll_us: 0}\n" + tail, "g.yaml", &kEnv).server.busy_poll,
            std::chrono::microseconds(0));
  EXPECT_EQ(parse_config("server: {busy_poll_us: 1000}\n" + tail, "g.yaml", &kEnv).server.busy_poll,
            std::chrono::microseconds(1000));
  try {
    parse_config("server: {busy_poll_us: 5000}\n" + tail, "g.yaml", &kEnv);
    FAIL() << "accepted a wait of 5 ms";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("g.yaml:1:24: server.busy_poll_us: must be between 0 and 1000"),
              std::string::npos)
        << e.what();
  }
}

TEST(Config, LeasesOfTheRateLimitsNeedRedis) {
  const std::string tail =
      "providers: {a: {base_url: 'http://127.0.0.1:1'}}\n"
      "models: {m: {deployments: [{provider: a, model: x}]}}\n";
  const std::string head = "auth:\n  master_key: master-0123456789abcdef\n  keys_db: k.db\n";
  const GatewayConfig redis =
      parse_config(head + "  state: redis://127.0.0.1:6379\n  state_leases: true\n" + tail, "g.yaml", &kEnv);
  ASSERT_TRUE(redis.auth);
  EXPECT_TRUE(redis.auth->state_leases);
  EXPECT_FALSE(parse_config(head + "  state: redis://127.0.0.1:6379\n" + tail, "g.yaml", &kEnv).auth->state_leases);
  try {
    parse_config(head + "  state_leases: true\n" + tail, "g.yaml", &kEnv);
    FAIL() << "accepted leases of local state";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("g.yaml:4:17: auth.state_leases: needs auth.state: redis://host:port"),
              std::string::npos)
        << e.what();
  }
}

TEST(Config, EveryProblemIsReportedAtOnceWithItsLine) {
  const std::string text =
      "providers:\n"                                    // 1
      "  a:\n"                                          // 2
      "    base_url: ftp://x\n"                         // 3
      "    api_key: ${MISSING_KEY}\n"                   // 4
      "    timeouts: { connect_ms: fast }\n"            // 5
      "models:\n"                                       // 6
      "  m:\n"                                          // 7
      "    strategy: random\n"                          // 8
      "    deployments:\n"                              // 9
      "      - { provider: b, model: x, weight: 0 }\n"  // 10
      "    fallbacks: [nope]\n"                         // 11
      "    colour: blue\n";                             // 12
  try {
    parse_config(text, "g.yaml", &kEnv);
    FAIL() << "accepted an invalid file";
  } catch (const ConfigError& e) {
    const auto& p = e.problems();
    ASSERT_EQ(p.size(), 8u) << e.what();
    auto has = [&](const std::string& fragment) {
      return std::any_of(p.begin(), p.end(),
                         [&](const std::string& s) { return s.find(fragment) != std::string::npos; });
    };
    EXPECT_TRUE(has("g.yaml:3:15: providers.a.base_url: invalid URL 'ftp://x'"));
    EXPECT_TRUE(has("g.yaml:4:14: providers.a.api_key: environment variable MISSING_KEY is not set"));
    EXPECT_TRUE(has("g.yaml:5:29: providers.a.timeouts.connect_ms: must be a number"));
    EXPECT_TRUE(has("g.yaml:8:15: models.m.strategy: unknown balancing strategy 'random'"));
    EXPECT_TRUE(has("g.yaml:10:21: models.m.deployments[0].provider: no provider named 'b'"));
    EXPECT_TRUE(has("g.yaml:10:42: models.m.deployments[0].weight: must be between 1 and 1000"));
    EXPECT_TRUE(has("g.yaml:11:17: models.m.fallbacks[0]: no model named 'nope' in this file"));
    EXPECT_TRUE(has("g.yaml:12:5: models.m.colour: unknown field"));
    EXPECT_EQ(std::string(e.what()).find("gsk-test"), std::string::npos);
  }
}

TEST(Config, AProvidersEndpointUrlIsRefusedNamingItsBase) {
  try {
    parse_config(
        "providers:\n  v: {base_url: 'http://127.0.0.1:8000/v1/chat/completions'}\n"
        "models:\n  m: {deployments: [{provider: v, model: x}]}\n",
        "g.yaml", &kEnv);
    FAIL() << "accepted an endpoint's URL as a base URL";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("g.yaml:2:17: providers.v.base_url: 'http://127.0.0.1:8000/v1/chat/"
                                         "completions' is the chat/completions endpoint's URL; give the API's "
                                         "base URL: http://127.0.0.1:8000/v1"),
              std::string::npos)
        << e.what();
  }
}

TEST(Config, RequiredSectionsAndSyntaxErrors) {
  EXPECT_THROW(parse_config("models: {}\n", "g.yaml", &kEnv), ConfigError);
  EXPECT_THROW(parse_config("- just a list\n", "g.yaml", &kEnv), ConfigError);
  try {
    parse_config("providers: {a: {base_url: http://x}\n", "g.yaml", &kEnv);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("g.yaml:"), std::string::npos) << e.what();
  }
}

TEST(Config, ServerSectionAndDefaults) {
  const GatewayConfig c = parse_config(
      "server: {port: 9000, threads: 2}\nproviders: {p: {base_url: 'http://127.0.0.1:1'}}\n"
      "models: {m: {deployments: [{provider: p, model: up}]}}\n",
      "g.yaml", &kEnv);
  EXPECT_EQ(c.server.port, 9000);
  EXPECT_EQ(c.server.threads, 2);
  EXPECT_EQ(c.server.busy_poll, std::chrono::microseconds(5));
  EXPECT_EQ(c.models[0].strategy, "least_in_flight");
  EXPECT_EQ(c.models[0].retry.max_attempts, 3);
  EXPECT_EQ(c.providers.at("p").base.path, "/v1");
}

}  // namespace
}  // namespace infergate::gateway
