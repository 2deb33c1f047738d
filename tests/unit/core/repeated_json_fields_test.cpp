#include "core/repeated_json_fields.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infergate {
namespace {

TEST(RepeatedJsonFieldsTest, WritesEachFieldEscapedInOrder) {
  RepeatedJsonFields<3> fields({"model", "path", "note"});
  EXPECT_EQ(fields.text({"llama", "/v1/chat", "say \"hi\"\n"}),
            R"(,"model":"llama","path":"/v1/chat","note":"say \"hi\"\n")");
  EXPECT_EQ(fields.text({"", "", ""}), R"(,"model":"","path":"","note":"")");
}

// Each turn changes one value, or none: the text must follow every change, whichever field it is in.
TEST(RepeatedJsonFieldsTest, FollowsAChangeInAnyOneField) {
  RepeatedJsonFields<3> fields({"a", "b", "c"});
  EXPECT_EQ(fields.text({"1", "2", "3"}), R"(,"a":"1","b":"2","c":"3")");
  EXPECT_EQ(fields.text({"1", "2", "3"}), R"(,"a":"1","b":"2","c":"3")");
  EXPECT_EQ(fields.text({"x", "2", "3"}), R"(,"a":"x","b":"2","c":"3")");
  EXPECT_EQ(fields.text({"x", "y", "3"}), R"(,"a":"x","b":"y","c":"3")");
  EXPECT_EQ(fields.text({"x", "y", "z"}), R"(,"a":"x","b":"y","c":"z")");
  EXPECT_EQ(fields.text({"x", "y", "zz"}), R"(,"a":"x","b":"y","c":"zz")");
  EXPECT_EQ(fields.text({"1", "2", "3"}), R"(,"a":"1","b":"2","c":"3")");
}

// The values a caller passes view its own memory, which it reuses: what was compared against must
// be the fields' own copies.
TEST(RepeatedJsonFieldsTest, KeepsItsOwnCopiesOfTheValues) {
  RepeatedJsonFields<2> fields({"key", "model"});
  std::string key = "key-one";
  std::string model = "llama";
  EXPECT_EQ(fields.text({key, model}), R"(,"key":"key-one","model":"llama")");
  key.replace(4, 3, "two");
  model[0] = 'L';
  EXPECT_EQ(fields.text({key, model}), R"(,"key":"key-two","model":"Llama")");
}

}  // namespace
}  // namespace infergate
