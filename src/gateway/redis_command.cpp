#include "gateway/redis_command.hpp"

#include <openssl/evp.h>

#include <array>
#include <charconv>
#include <stdexcept>

#include "core/append_number.hpp"

namespace infergate::gateway {

void RedisArg::append_bulk(std::string& out) const {
  char digits[24];
  std::string_view text = text_;
  if (is_number_) {
    text = std::string_view(
        digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof(digits), number_).ptr - digits));
  }
  out.push_back('$');
  append_decimal(out, static_cast<std::int64_t>(text.size()));
  out += "\r\n";
  out += text;
  out += "\r\n";
}

void append_redis_command(std::string& out, std::initializer_list<RedisArg> args) {
  out.push_back('*');
  append_decimal(out, static_cast<std::int64_t>(args.size()));
  out += "\r\n";
  for (const RedisArg& arg : args) {
    arg.append_bulk(out);
  }
}

std::string redis_script_sha1(std::string_view script) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(script.data(), script.size(), digest.data(), &length, EVP_sha1(), nullptr) != 1) {
    throw std::runtime_error("SHA-1 failed");
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{2} * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kDigits[digest[i] >> 4]);
    out.push_back(kDigits[digest[i] & 15]);
  }
  return out;
}

}  // namespace infergate::gateway
