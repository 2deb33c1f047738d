#include "openai/api_base.hpp"

#include <stdexcept>
#include <string>

namespace infergate::openai {

std::optional<std::string_view> api_path_at_end(std::string_view path) {
  for (const std::string_view api_path : kApiPaths) {
    if (path.ends_with(api_path)) {
      return api_path;
    }
  }
  return std::nullopt;
}

http::Url parse_api_base(std::string_view text) {
  http::Url url = http::parse_url(text);
  if (const auto endpoint = api_path_at_end(url.path)) {
    url.path.resize(url.path.size() - endpoint->size());
    throw std::invalid_argument("'" + std::string(text) + "' is the " + std::string(endpoint->substr(1)) +
                                " endpoint's URL; give the API's base URL: " + url.to_string());
  }
  if (!url.path.ends_with("/v1")) {
    url.path += "/v1";
  }
  return url;
}

}  // namespace infergate::openai
