#include "openai/request_view.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace infergate::openai {
namespace {

TEST(RequestView, ReadsModelAndStreamingOptions) {
  RequestView v;
  ASSERT_FALSE(
      parse_request_view(R"({"model":"m","stream":true,"stream_options":{"include_usage":false},"x":[1]})", v));
  EXPECT_EQ(v.model, "m");
  EXPECT_TRUE(v.stream);
  EXPECT_EQ(v.stream_options_members, 1);
  EXPECT_FALSE(v.include_usage);
}

TEST(RequestView, CountsTheTopLevelModelMembersAndRoutesOnTheLast) {
  RequestView v;
  ASSERT_FALSE(parse_request_view(R"({"model":"m","tools":[{"model":"t"}],"meta":{"model":"x"}})", v));
  EXPECT_EQ(v.model_members, 1);
  ASSERT_FALSE(parse_request_view(R"({"model":"a","model":"b"})", v));  // the fast path
  EXPECT_EQ(v.model_members, 2);
  EXPECT_EQ(v.model, "b");
  ASSERT_FALSE(parse_request_view(R"({"model":"a","m\u006fdel":"b"})", v));  // the parser
  EXPECT_EQ(v.model_members, 2);
  EXPECT_EQ(v.model, "b");
}

// A stream_options the usage request must edit rather than add beside: null and repeated ones too.
TEST(RequestView, CountsTheTopLevelStreamOptionsMembersWhateverTheirValue) {
  RequestView v;
  ASSERT_FALSE(parse_request_view(R"({"model":"m","stream":true,"meta":{"stream_options":{}}})", v));
  EXPECT_EQ(v.stream_options_members, 0);
  ASSERT_FALSE(parse_request_view(R"({"model":"m","stream_options":null})", v));
  EXPECT_EQ(v.stream_options_members, 1);
  EXPECT_FALSE(v.include_usage);
  ASSERT_FALSE(parse_request_view(R"({"model":"m","stream_options":{"include_usage":true},"stream_options":null})", v));
  EXPECT_EQ(v.stream_options_members, 2);
  EXPECT_FALSE(v.include_usage);  // the last one counts
  ASSERT_FALSE(parse_request_view(R"({"model":"m","stream_\u006fptions":{"include_usage":true}})", v));
  EXPECT_EQ(v.stream_options_members, 1);
  EXPECT_TRUE(v.include_usage);
}

TEST(RequestView, AMaxTokensBeyondTheInt64RangeSaturatesInsteadOfTurningNegative) {
  RequestView v;
  ASSERT_FALSE(parse_request_view(R"({"model":"m","max_tokens":18446744073709551615})", v));
  EXPECT_EQ(v.max_tokens, std::numeric_limits<std::int64_t>::max());
  ASSERT_FALSE(parse_request_view(R"({"model":"m","max_completion_tokens":9223372036854775808})", v));
  EXPECT_EQ(v.max_tokens, std::numeric_limits<std::int64_t>::max());
  ASSERT_FALSE(parse_request_view(R"({"model":"m","max_tokens":-5})", v));
  EXPECT_EQ(v.max_tokens, -5);  // read as sent; the reservation counts it as none
}

TEST(RequestView, ReadsTheResponsesApisLimitAndCountsItsInstructions) {
  RequestView v;
  ASSERT_FALSE(parse_request_view(
      R"({"model":"m","instructions":"abcdefgh","input":"abcdefgh","max_output_tokens":30,"max_tokens":99})", v));
  EXPECT_EQ(v.max_tokens, 30);
  EXPECT_EQ(v.prompt_tokens_estimate, 4);  // 16 characters
  EXPECT_EQ(parse_request_view(R"({"model":"m","input":"x","max_output_tokens":1.5})", v)->param, "max_output_tokens");
}

TEST(RequestView, NamesTheFieldItCannotRead) {
  RequestView v;
  EXPECT_EQ(parse_request_view(R"({"stream":true})", v)->param, "model");
  EXPECT_EQ(parse_request_view(R"({"model":1})", v)->param, "model");
  EXPECT_EQ(parse_request_view(R"({"model":"m","stream":"yes"})", v)->param, "stream");
  EXPECT_EQ(parse_request_view(R"({"model":"m","stream_options":{"include_usage":"y"}})", v)->param,
            "stream_options.include_usage");
  EXPECT_NE(parse_request_view("{oops", v)->message.find("not valid JSON"), std::string::npos);
}

TEST(RequestView, SaysWhereABodyStopsBeingJson) {
  RequestView v;
  EXPECT_EQ(parse_request_view("{\"model\":\"m\",\n\"messages\":[}", v)->message,
            "the request body is not valid JSON: syntax error at line 2, column 13");
  EXPECT_EQ(parse_request_view("{\"model\":\"m\xff\"}", v)->message,
            "the request body is not valid JSON: invalid UTF-8 at line 1, column 12");
  EXPECT_EQ(parse_request_view("{\"model\":\"m\"} {}", v)->message,
            "the request body is not valid JSON: extra data after the JSON value at line 1, column 15");
}

// The reading this file's parser replaced, over a JSON DOM: the oracle for the one-pass reading.
namespace dom {

namespace json = boost::json;

void count_prompt(const json::value& v, std::int64_t& chars, std::int64_t& token_ids) {
  if (v.is_string()) {
    chars += static_cast<std::int64_t>(v.get_string().size());
  } else if (v.is_int64() || v.is_uint64()) {
    ++token_ids;
  } else if (v.is_array()) {
    for (const auto& item : v.get_array()) {
      count_prompt(item, chars, token_ids);
    }
  } else if (v.is_object()) {
    for (const char* field : {"content", "text"}) {
      if (const auto* part = v.get_object().if_contains(field)) {
        count_prompt(*part, chars, token_ids);
      }
    }
  }
}

// "" when the body is accepted, else the param named (or "json" / "object" for the body itself).
std::string read(std::string_view body, RequestView& out) {
  out = RequestView{};
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  if (ec) {
    return "json";
  }
  if (!parsed.is_object()) {
    return "object";
  }
  const auto& o = parsed.get_object();
  const auto* model = o.if_contains("model");
  if (model == nullptr || !model->is_string()) {
    return "model";
  }
  out.model = model->get_string();
  if (const auto* v = o.if_contains("stream"); v && !v->is_null()) {
    if (!v->is_bool()) {
      return "stream";
    }
    out.stream = v->get_bool();
  }
  if (const auto* v = o.if_contains("stream_options"); v && !v->is_null()) {
    if (!v->is_object()) {
      return "stream_options";
    }
    if (const auto* u = v->get_object().if_contains("include_usage"); u && !u->is_null()) {
      if (!u->is_bool()) {
        return "stream_options.include_usage";
      }
      out.include_usage = u->get_bool();
    }
  }
  for (const char* field : {"max_tokens", "max_completion_tokens", "max_output_tokens"}) {
    if (const auto* v = o.if_contains(field); v && !v->is_null()) {
      if (!v->is_int64() && !v->is_uint64()) {
        return field;
      }
      // Beyond the int64 range: saturated.
      out.max_tokens = v->is_int64() ? v->get_int64()
                                     : static_cast<std::int64_t>(std::min<std::uint64_t>(
                                           v->get_uint64(), std::numeric_limits<std::int64_t>::max()));
    }
  }
  std::int64_t chars = 0;
  std::int64_t ids = 0;
  std::int64_t messages = 0;
  if (const auto* m = o.if_contains("messages"); m && m->is_array()) {
    messages = static_cast<std::int64_t>(m->get_array().size());
    count_prompt(*m, chars, ids);
  }
  for (const char* field : {"prompt", "input", "instructions"}) {
    if (const auto* p = o.if_contains(field)) {
      count_prompt(*p, chars, ids);
    }
  }
  out.prompt_tokens_estimate = std::max<std::int64_t>(1, (chars + 3) / 4 + ids + messages * 4);
  return "";
}

}  // namespace dom

TEST(RequestView, ReadsWhatADomWouldInOnePass) {
  const std::vector<std::string> bodies = {
      R"({"model":"m","messages":[{"role":"user","content":"hello there, how are you today?"}]})",
      R"({"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"what is in this picture?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","text":"x"}}]}],"stream":true,"max_tokens":64})",
      R"({"model":"m","messages":[{"role":"user","content":"a\"b\\c\u00e9\ud83d\ude00"}],"stream":false,"stream_options":{"include_usage":true}})",
      R"({"model":"m","messages":"not an array","prompt":"but this counts"})",
      R"({"model":"m","prompt":["one","two",["three",[4,5]]],"max_completion_tokens":10,"max_tokens":99})",
      R"({"model":"m","prompt":[1,2,3,18446744073709551615],"max_tokens":null,"stream":null})",
      R"({"model":"m","input":[[1,2],[3]],"stream_options":null})",
      R"({"model":"m","input":{"content":"nested","text":["a",1],"other":"ignored"}})",
      R"({"model":"m","messages":[{"content":{"content":{"text":"deep"}}},{"name":"content"},[]],"tools":[{"content":"not counted"}]})",
      R"({"model":"m","stream_options":{"include_usage":null,"content":"x"},"max_tokens":18446744073709551615})",
      R"({"model":"m"})",
      R"({"model":"m","messages":[]})",
      R"( { "model" : "m" , "stream" : true } )",
      R"({"model":null})",
      R"({"model":7,"stream":"yes"})",
      R"({"model":["m"]})",
      R"({"model":{"name":"m"}})",
      R"({"stream":true})",
      R"({"model":"m","stream":1})",
      R"({"model":"m","stream":[true]})",
      R"({"model":"m","stream_options":true})",
      R"({"model":"m","stream_options":[]})",
      R"({"model":"m","stream_options":{"include_usage":"y"}})",
      R"({"model":"m","stream_options":{"include_usage":{}}})",
      R"({"model":"m","max_tokens":1.5})",
      R"({"model":"m","max_tokens":"64"})",
      R"({"model":"m","max_completion_tokens":true})",
      R"({"model":"m","max_tokens":[1]})",
      R"({"model":"m","max_tokens":-3})",
      R"({"model":"m","messages":[{"content":"x"}],"stream":true,"stream":false})",
      R"({"model":"m","instructions":"be brief","input":[{"role":"user","content":[{"type":"input_text","text":"hi there"}]}],"max_output_tokens":16,"stream":true})",
      R"({"model":"m","input":"a question","max_output_tokens":8,"max_tokens":99,"max_completion_tokens":50})",
      R"({"model":"m","input":"x","max_output_tokens":"8"})",
      R"({"model":"m","input":"x","max_output_tokens":null})",
      R"({"model":"m","instructions":["odd",{"text":"but counted"}]})",
      R"([{"model":"m"}])",
      R"("model")",
      R"(42)",
      R"({"model":"m"} trailing)",
      R"({"model":"m",})",
      R"({"model":"m")",
      R"({"model":"\x"})",
      R"()",
      "{\"model\":\"m\",\"messages\":[{\"content\":\"" + std::string(100000, 'z') + "\"}]}",
      std::string(40, '[') + std::string(40, ']'),
  };
  for (const std::string& body : bodies) {
    RequestView fast;
    RequestView slow;
    const auto error = parse_request_view(body, fast);
    const std::string expected = dom::read(body, slow);
    if (expected.empty()) {
      ASSERT_FALSE(error) << body << ": " << error->message;
      EXPECT_EQ(fast.model, slow.model) << body;
      EXPECT_EQ(fast.stream, slow.stream) << body;
      EXPECT_EQ(fast.include_usage, slow.include_usage) << body;
      EXPECT_EQ(fast.max_tokens, slow.max_tokens) << body;
      EXPECT_EQ(fast.prompt_tokens_estimate, slow.prompt_tokens_estimate) << body;
    } else {
      ASSERT_TRUE(error) << body;
      EXPECT_EQ(error->status, 400) << body;
      if (expected == "json") {
        EXPECT_NE(error->message.find("not valid JSON"), std::string::npos) << body << ": " << error->message;
      } else if (expected == "object") {
        EXPECT_NE(error->message.find("must be a JSON object"), std::string::npos) << body << ": " << error->message;
      } else {
        EXPECT_EQ(error->param, expected) << body << ": " << error->message;
      }
    }
  }
}

}  // namespace
}  // namespace infergate::openai
