#include "openai/json_handler.hpp"

#include <gtest/gtest.h>

namespace infergate::openai {
namespace {

TEST(MemberName, JoinsItsPartsAndForgetsThemWhenTaken) {
  MemberName<8> name;
  name.append("us");
  name.append("");
  name.append("age");
  EXPECT_EQ(name.take(), "usage");
  name.append("model");
  EXPECT_EQ(name.take(), "model");
  EXPECT_EQ(name.take(), "");
}

TEST(MemberName, ANameLongerThanItsBufferReadsAsEmptyHoweverItArrives) {
  MemberName<8> name;
  name.append("12345678");
  EXPECT_EQ(name.take(), "12345678");  // exactly the buffer's size is kept
  name.append("123456789");
  EXPECT_EQ(name.take(), "");
  name.append("1234");
  name.append("56789");
  EXPECT_EQ(name.take(), "");
  name.append("12345678");
  name.append("9");
  EXPECT_EQ(name.take(), "");
  name.append("short");
  EXPECT_EQ(name.take(), "short");  // a long name leaves nothing behind
}

}  // namespace
}  // namespace infergate::openai
