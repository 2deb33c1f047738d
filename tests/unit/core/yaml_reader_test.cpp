#include "core/yaml_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace infergate {
namespace {

using ::testing::ElementsAre;

TEST(YamlReader, AnUnknownKeyNamesTheKnownKeyItMostLikelyMeant) {
  EXPECT_EQ(suggest_key("thread", {"host", "port", "threads"}), " (did you mean 'threads'?)");
  EXPECT_EQ(suggest_key("Timeout", {"timeouts", "tls"}), " (did you mean 'timeouts'?)");
  EXPECT_EQ(suggest_key("deploymnets", {"strategy", "deployments"}), " (did you mean 'deployments'?)");
  // Nothing close: the list, so that the user need not open the docs to find the name.
  EXPECT_EQ(suggest_key("colour", {"strategy", "deployments", "price"}), " (known here: strategy, deployments, price)");
  EXPECT_EQ(suggest_key("x", {"host", "port"}), " (known here: host, port)");
}

TEST(YamlReader, UnknownKeysAreReportedWithTheirPosition) {
  YamlReader r("g.yaml");
  r.known_keys(YAML::Load("host: a\nthread: 2\n"), "server", {"host", "threads"});
  EXPECT_THAT(r.problems(), ElementsAre("g.yaml:2:1: server.thread: unknown field (did you mean 'threads'?)"));
}

TEST(YamlReader, ANumberOutOfRangeIsNotCalledNotANumber) {
  YamlReader r("g.yaml");
  const YAML::Node node = YAML::Load("{port: 99999, low: -1, part: 1.5, name: fast, ok: 8080}");
  EXPECT_FALSE(r.number<std::uint16_t>(node["port"], "port", 0, 65535));
  EXPECT_FALSE(r.number<std::uint16_t>(node["low"], "low", 0, 65535));
  EXPECT_FALSE(r.number<std::int64_t>(node["part"], "part", 1, 10));
  EXPECT_FALSE(r.number<std::int64_t>(node["name"], "name", 1, 10));
  EXPECT_EQ(r.number<std::uint16_t>(node["ok"], "ok", 0, 65535), 8080);
  EXPECT_THAT(r.problems(), ElementsAre("g.yaml:1:8: port: must be a whole number between 0 and 65535",
                                        "g.yaml:1:20: low: must be a whole number between 0 and 65535",
                                        "g.yaml:1:30: part: must be a whole number between 1 and 10",
                                        "g.yaml:1:41: name: must be a number"));
}

}  // namespace
}  // namespace infergate
