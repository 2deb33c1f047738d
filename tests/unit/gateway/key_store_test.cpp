#include "gateway/key_store.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "gateway/key_cache.hpp"

namespace infergate::gateway {
namespace {

class KeyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("infergate-keys-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    path = (dir / "keys.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  static std::string bearer(const std::string& key) { return "Bearer " + key; }
  static std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

  std::filesystem::path dir;
  std::string path;
};

TEST_F(KeyStoreTest, CreateListFindUpdateRevoke) {
  KeyStore store(path);
  KeySettings s;
  s.name = "team-a";
  s.models = {"llama", "gemma"};
  s.rpm = 60;
  s.budget_usd = 12.5;
  s.budget_period = BudgetPeriod::day;
  s.metadata = R"({"team":"a"})";
  const auto created = store.create(s);
  EXPECT_EQ(key_id(created.key), created.record.id);
  EXPECT_TRUE(same_hash(created.record.hash, hash_key(created.key)));

  const auto found = store.find(created.record.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->settings.name, "team-a");
  EXPECT_EQ(found->settings.models, (std::vector<std::string>{"llama", "gemma"}));
  EXPECT_EQ(found->settings.rpm, 60);
  EXPECT_FALSE(found->settings.tpm);
  EXPECT_EQ(found->settings.budget_usd, 12.5);
  EXPECT_EQ(found->settings.budget_period, BudgetPeriod::day);
  EXPECT_TRUE(same_hash(found->hash, created.record.hash));

  s.rpm.reset();
  s.tpm = 1000;
  EXPECT_TRUE(store.update(created.record.id, s));
  EXPECT_FALSE(store.update("nope", s));
  EXPECT_EQ(store.find(created.record.id)->settings.tpm, 1000);
  EXPECT_FALSE(store.find(created.record.id)->settings.rpm);

  store.create(KeySettings{});
  EXPECT_EQ(store.list().size(), 2u);
  EXPECT_TRUE(store.revoke(created.record.id));
  const auto revoked_at = store.find(created.record.id)->revoked_at;
  ASSERT_TRUE(revoked_at);
  EXPECT_TRUE(store.revoke(created.record.id));  // twice keeps the first time
  EXPECT_EQ(store.find(created.record.id)->revoked_at, revoked_at);
  EXPECT_FALSE(store.revoke("nope"));
}

TEST_F(KeyStoreTest, TheDatabaseKeepsNoKeyOnlyItsHash) {
  std::string key;
  {
    KeyStore store(path);
    key = store.create(KeySettings{}).key;
  }
  KeyStore reopened(path);
  ASSERT_EQ(reopened.list().size(), 1u);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find(key.substr(3 + kKeyIdLength)), std::string::npos) << entry.path();
  }
}

TEST_F(KeyStoreTest, AnUnopenableFileIsAClearError) {
  try {
    KeyStore store((dir / "missing-dir" / "keys.db").string());
    FAIL() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the key database"), std::string::npos);
  }
}

TEST_F(KeyStoreTest, CacheAuthenticatesEachWayAKeyCanFail) {
  KeyStore store(path);
  const auto good = store.create(KeySettings{});
  KeySettings expiring;
  expiring.expires_at = now() - 1;
  const auto expired = store.create(expiring);
  const auto revoked = store.create(KeySettings{});
  store.revoke(revoked.record.id);
  KeyCache cache(store, std::chrono::hours(1));
  EXPECT_EQ(cache.authenticate(bearer(good.key), now()).status, AuthStatus::ok);
  EXPECT_EQ(cache.authenticate(bearer(good.key), now()).key->id, good.record.id);
  EXPECT_EQ(cache.authenticate("", now()).status, AuthStatus::missing);
  EXPECT_EQ(cache.authenticate(good.key, now()).status, AuthStatus::malformed);  // no "Bearer "
  EXPECT_EQ(cache.authenticate("Bearer sk-abc", now()).status, AuthStatus::malformed);
  std::string wrong_secret = good.key;
  wrong_secret.back() = wrong_secret.back() == 'a' ? 'b' : 'a';
  EXPECT_EQ(cache.authenticate(bearer(wrong_secret), now()).status, AuthStatus::unknown);
  EXPECT_EQ(cache.authenticate(bearer(expired.key), now()).status, AuthStatus::expired);
  EXPECT_EQ(cache.authenticate(bearer(revoked.key), now()).status, AuthStatus::revoked);
}

// A key once verified skips SHA-256 on its next use: only that exact key may, never a near miss,
// and many keys sharing the remembered slots all still pass.
TEST_F(KeyStoreTest, AKeyVerifiedBeforeStillMatchesOnlyItself) {
  KeyStore store(path);
  std::vector<std::string> keys;
  keys.reserve(20);
  for (int i = 0; i < 20; ++i) {
    keys.push_back(store.create(KeySettings{}).key);
  }
  KeyCache cache(store, std::chrono::hours(1));
  for (int round = 0; round < 3; ++round) {
    for (const std::string& key : keys) {
      ASSERT_EQ(cache.authenticate(bearer(key), now()).status, AuthStatus::ok);
      for (const std::size_t at : {std::size_t{3 + kKeyIdLength}, key.size() / 2 + 8, key.size() - 1}) {
        std::string near_miss = key;
        near_miss[at] = near_miss[at] == 'a' ? 'b' : 'a';
        EXPECT_EQ(cache.authenticate(bearer(near_miss), now()).status, AuthStatus::unknown) << at;
      }
    }
  }
}

// A thread remembers the key it let in last: the same key again is still judged by its newest
// record (a change of settings, expiry, revocation), and any other key goes the whole way.
TEST_F(KeyStoreTest, TheKeyLetInLastIsStillJudgedByItsNewestRecord) {
  KeyStore store(path);
  KeySettings expiring;
  expiring.expires_at = now() + 100;
  const auto key = store.create(expiring);
  const auto other = store.create(KeySettings{});
  KeyCache cache(store, std::chrono::hours(1));
  for (int i = 0; i < 2; ++i) {
    const AuthResult r = cache.authenticate(bearer(key.key), now());
    ASSERT_EQ(r.status, AuthStatus::ok);
    EXPECT_EQ(r.key->id, key.record.id);
    EXPECT_FALSE(r.key->settings.rpm);
  }
  EXPECT_EQ(cache.authenticate(bearer(key.key), now() + 200).status, AuthStatus::expired);
  EXPECT_EQ(cache.authenticate(bearer(other.key), now()).key->id, other.record.id);
  EXPECT_EQ(cache.authenticate(bearer(key.key), now()).key->id, key.record.id);

  KeySettings changed = expiring;
  changed.rpm = 5;
  ASSERT_TRUE(store.update(key.record.id, changed));
  cache.refresh();
  const AuthResult after = cache.authenticate(bearer(key.key), now());
  ASSERT_EQ(after.status, AuthStatus::ok);
  EXPECT_EQ(after.key->settings.rpm, 5);
  store.revoke(key.record.id);
  cache.refresh();
  EXPECT_EQ(cache.authenticate(bearer(key.key), now()).status, AuthStatus::revoked);
  EXPECT_EQ(cache.authenticate(bearer(other.key), now()).status, AuthStatus::ok);
}

TEST_F(KeyStoreTest, ARevocationElsewhereReachesTheCacheWithinItsInterval) {
  KeyStore store(path);
  const auto key = store.create(KeySettings{});
  KeyCache cache(store, std::chrono::milliseconds(50));
  ASSERT_EQ(cache.authenticate(bearer(key.key), now()).status, AuthStatus::ok);
  KeyStore other_process_view(path);  // as `infergate keys revoke` would
  other_process_view.revoke(key.record.id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cache.authenticate(bearer(key.key), now()).status == AuthStatus::ok &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(cache.authenticate(bearer(key.key), now()).status, AuthStatus::revoked);
}

// Each thread keeps the snapshot it read last: it must be the snapshot of the cache asked, and the
// newest one as soon as a refresh has read the store.
TEST_F(KeyStoreTest, AThreadNeverChecksAKeyAgainstAnotherCachesSnapshot) {
  KeyStore store_a(path);
  KeyStore store_b((dir / "other.db").string());
  const auto key_a = store_a.create(KeySettings{});
  const auto key_b = store_b.create(KeySettings{});
  {
    KeyCache a(store_a, std::chrono::hours(1));
    KeyCache b(store_b, std::chrono::hours(1));
    for (int round = 0; round < 2; ++round) {
      EXPECT_EQ(a.authenticate(bearer(key_a.key), now()).status, AuthStatus::ok);
      EXPECT_EQ(b.authenticate(bearer(key_a.key), now()).status, AuthStatus::unknown);
      EXPECT_EQ(b.authenticate(bearer(key_b.key), now()).status, AuthStatus::ok);
      EXPECT_EQ(a.authenticate(bearer(key_b.key), now()).status, AuthStatus::unknown);
    }
    store_a.revoke(key_a.record.id);
    a.refresh();  // as the admin API does after a change
    EXPECT_EQ(a.authenticate(bearer(key_a.key), now()).status, AuthStatus::revoked);
  }
  // A cache made where the last one was freed starts from its own store.
  const KeyCache again(store_b, std::chrono::hours(1));
  EXPECT_EQ(again.authenticate(bearer(key_b.key), now()).status, AuthStatus::ok);
  EXPECT_EQ(again.authenticate(bearer(key_a.key), now()).status, AuthStatus::unknown);
}

TEST(KeySettingsJson, AppliesFieldsAndRefusesWrongOnesWithoutChangingAnything) {
  KeySettings s;
  ASSERT_FALSE(apply_settings_json(
      R"({"name":"n","models":["a"],"rpm":5,"tpm":null,"max_parallel":2,"budget_usd":3.5,"budget_period":"total",
          "expires_at":2000000000,"metadata":{"x":1}})",
      s));
  EXPECT_EQ(s.name, "n");
  EXPECT_EQ(s.rpm, 5);
  EXPECT_EQ(s.max_parallel, 2);
  EXPECT_EQ(s.budget_period, BudgetPeriod::total);
  EXPECT_EQ(s.metadata, R"({"x":1})");
  ASSERT_FALSE(apply_settings_json(R"({"rpm":null})", s));
  EXPECT_FALSE(s.rpm);
  const KeySettings before = s;
  EXPECT_EQ(apply_settings_json(R"({"name":"changed","rpm":0})", s), "'rpm' must be a positive integer or null");
  EXPECT_EQ(s.name, before.name);
  EXPECT_TRUE(apply_settings_json(R"({"colour":"red"})", s)->starts_with("unknown field 'colour'"));
  EXPECT_EQ(apply_settings_json("[]", s), "the body must be a JSON object of key settings");
  EXPECT_EQ(apply_settings_json(R"({"rpm":5,})", s), "the body is not valid JSON: syntax error at line 1, column 10");
  EXPECT_TRUE(apply_settings_json(R"({"models":"a"})", s));
  // A number too large for a double reads as infinity, which JSON cannot write back in a listing.
  EXPECT_EQ(apply_settings_json(R"({"budget_usd":1e400})", s),
            "'budget_usd' must be a finite number of at least 0, or null");
  EXPECT_EQ(apply_settings_json(R"({"budget_usd":-0.01})", s),
            "'budget_usd' must be a finite number of at least 0, or null");
  EXPECT_EQ(s.budget_usd, before.budget_usd);
}

// Every replica caches every key and every listing shows them: names, model lists and metadata
// have bounds, checked on the settings as they would end up (the CLI sets the name and models
// itself and has its metadata read here).
TEST(KeySettingsJson, RefusesNamesModelListsAndMetadataPastTheirBounds) {
  KeySettings s;
  const std::string at_most = std::string(256, 'n');
  ASSERT_FALSE(apply_settings_json(R"({"name":")" + at_most + R"(","models":[")" + at_most + R"("]})", s));
  EXPECT_EQ(apply_settings_json(R"({"name":")" + at_most + R"(n"})", s), "'name' is 257 bytes long; at most 256");
  EXPECT_EQ(apply_settings_json(R"({"models":[""]})", s), "'models' has a name of 0 bytes; each must be 1 to 256");
  std::string many = R"({"models":[)";
  for (int i = 0; i < 1025; ++i) {
    many += (i == 0 ? "\"m" : ",\"m") + std::to_string(i) + "\"";
  }
  EXPECT_EQ(apply_settings_json(many + "]}", s), "'models' names 1025 models; at most 1024");
  const std::string big = R"({"metadata":{"x":")" + std::string(16 << 10, 'x') + R"("}})";
  EXPECT_EQ(apply_settings_json(big, s), "'metadata' is 16392 bytes as JSON; at most 16384");
  EXPECT_EQ(s.name, at_most);
  EXPECT_EQ(s.metadata, "{}");
  s.name += "n";  // as the CLI sets it, before its metadata is applied
  EXPECT_EQ(apply_settings_json(R"({"metadata":{}})", s), "'name' is 257 bytes long; at most 256");
}

TEST(KeySettingsWarnings, NameEachModelNotServedWithTheClosestServedName) {
  const std::vector<std::string> served{"llama-3.3-70b", "gemma"};
  KeySettings s;
  EXPECT_TRUE(unserved_model_warnings(s, served).empty());  // every model
  s.models = {"gemma", "llama-3.3-7b", "qwen3-32b"};
  const auto warnings = unserved_model_warnings(s, served);
  ASSERT_EQ(warnings.size(), 2U);
  EXPECT_EQ(warnings[0],
            "this gateway serves no model 'llama-3.3-7b' (did you mean 'llama-3.3-70b'?): the key's calls to it get "
            "404 until one is configured");
  EXPECT_EQ(warnings[1],
            "this gateway serves no model 'qwen3-32b': the key's calls to it get 404 until one is configured");
  EXPECT_EQ(with_warnings(R"({"id":"a"})", warnings),
            R"({"id":"a","warnings":["this gateway serves no model 'llama-3.3-7b' (did you mean 'llama-3.3-70b'?): )"
            R"(the key's calls to it get 404 until one is configured","this gateway serves no model 'qwen3-32b': the )"
            R"(key's calls to it get 404 until one is configured"]})");
  EXPECT_EQ(with_warnings(R"({"id":"a"})", {}), R"({"id":"a"})");
}

}  // namespace
}  // namespace infergate::gateway
