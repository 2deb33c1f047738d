#pragma once
// Why and where a JSON text failed to parse, in words a user can act on: "syntax error at line 3,
// column 14", "invalid UTF-8 at line 1, column 7", "extra data after the value at line 2,
// column 1". Only the position is given, never the text around it: the text may be a prompt.
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace infergate {

// `offset` is how far a parser of `text` got (what write or write_some returned) when it met `ec`.
[[nodiscard]] std::string describe_json_error(std::string_view text, std::size_t offset, boost::system::error_code ec);

// boost::json::parse, except that a failure leaves its description in `error` (and returns null).
[[nodiscard]] boost::json::value parse_json(std::string_view text, std::string& error,
                                            boost::json::storage_ptr sp = {});

}  // namespace infergate
