#include "gateway/admin_api.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <span>
#include <string>
#include <variant>

#include "gateway/usage_query.hpp"

namespace infergate::gateway {

namespace {

struct Reply {
  int status = 200;
  std::string body;
  std::string_view allow;  // the methods the path takes, for a 405 (RFC 9110 section 15.5.6)
};

Reply error(int status, std::string message, std::string_view type = "invalid_request_error",
            std::optional<std::string> code = std::nullopt) {
  return Reply{
      status, openai::ApiError{status, std::string(type), std::move(message), std::nullopt, std::move(code)}.to_json()};
}

Reply not_allowed(std::string_view method, std::string_view path, std::string_view allow) {
  return Reply{405, openai::method_not_allowed(method, path).to_json(), allow};
}

Reply usage(http::Exchange& ex, ControlPlane& control) {
  const std::string_view target = ex.target();
  const std::size_t q = target.find('?');
  const auto query = parse_usage_query(q == std::string_view::npos ? std::string_view{} : target.substr(q + 1));
  if (const std::string* problem = std::get_if<std::string>(&query)) {
    return error(400, *problem);
  }
  control.ledger().flush();  // the report includes every request finished so far
  std::string body = R"({"object":"list","data":[)";
  bool first = true;
  for (const UsageGroup& g : control.ledger().usage(std::get<UsageFilter>(query))) {
    body += first ? "" : ",";
    first = false;
    fmt::format_to(std::back_inserter(body),
                   R"({{"key_id":{},"model":{},"day":"{}","requests":{},"prompt_tokens":{},"completion_tokens":{},)"
                   R"("cost_usd":{}}})",
                   openai::json_string(g.key_id), openai::json_string(g.model), g.day, g.requests, g.prompt_tokens,
                   g.completion_tokens, g.cost_usd);
  }
  return Reply{200, body + "]}"};
}

Reply route(http::Exchange& ex, ControlPlane& control, const RouteTable& routes, std::string_view path) {
  if (path == "/admin/usage") {
    return ex.method() == "GET" ? usage(ex, control) : not_allowed(ex.method(), path, "GET, HEAD");
  }
  constexpr std::string_view kKeys = "/admin/keys";
  if (!path.starts_with(kKeys) || (path.size() > kKeys.size() && path[kKeys.size()] != '/')) {
    return error(404, fmt::format("no admin route {}", path), "invalid_request_error", "unknown_url");
  }
  const std::string_view method = ex.method();
  const std::string id(path.size() > kKeys.size() + 1 ? path.substr(kKeys.size() + 1) : std::string_view{});
  KeyStore& store = control.store();
  if (id.empty()) {
    if (method == "GET") {
      std::string body = R"({"object":"list","data":[)";
      bool first = true;
      for (const KeyRecord& r : store.list()) {
        body += first ? "" : ",";
        body += key_json(r);
        first = false;
      }
      return Reply{200, body + "]}"};
    }
    if (method == "POST") {
      KeySettings settings;
      if (auto problem = apply_settings_json(ex.body().empty() ? "{}" : ex.body(), settings)) {
        return error(400, *problem);
      }
      const KeyStore::Created created = store.create(settings);
      control.cache().refresh();
      std::string body = key_json(created.record);
      body.insert(1, fmt::format(R"("key":{},)", openai::json_string(created.key)));
      return Reply{201, with_warnings(std::move(body), unserved_model_warnings(settings, routes.model_names()))};
    }
    return not_allowed(method, path, "GET, HEAD, POST");
  }
  if (method == "GET") {
    const auto record = store.find(id);
    return record ? Reply{200, key_json(*record)} : error(404, fmt::format("no key with id '{}'", id));
  }
  if (method == "PATCH") {
    auto record = store.find(id);
    if (!record) {
      return error(404, fmt::format("no key with id '{}'", id));
    }
    if (auto problem = apply_settings_json(ex.body(), record->settings)) {
      return error(400, *problem);
    }
    store.update(id, record->settings);
    control.cache().refresh();
    return Reply{
        200, with_warnings(key_json(*store.find(id)), unserved_model_warnings(record->settings, routes.model_names()))};
  }
  if (method == "DELETE") {
    if (!store.revoke(id)) {
      return error(404, fmt::format("no key with id '{}'", id));
    }
    control.cache().refresh();
    return Reply{200, key_json(*store.find(id))};
  }
  return not_allowed(method, path, "GET, HEAD, PATCH, DELETE");
}

}  // namespace

boost::asio::awaitable<void> handle_admin(http::Exchange& ex, ControlPlane* control, const RouteTable& routes,
                                          std::string_view path, std::string_view request_id) {
  Reply reply;
  if (control == nullptr) {
    reply = error(404, "the admin API needs an auth section in the gateway's configuration", "invalid_request_error",
                  "admin_disabled");
  } else if (!control->is_master(ex.header("Authorization"))) {
    reply = error(401, "the admin API needs 'Authorization: Bearer <master key>'", "invalid_request_error",
                  "invalid_api_key");
  } else {
    try {
      reply = route(ex, *control, routes, path);
    } catch (const std::exception& e) {
      spdlog::error("{} admin {} {} failed: {}", request_id, ex.method(), path, e.what());
      reply = error(500, fmt::format("the key store failed: {}", e.what()), "server_error");
    }
  }
  const std::array<http::Header, 2> headers{http::Header{"X-Request-Id", request_id},
                                            http::Header{"Allow", reply.allow}};
  co_await ex.respond(reply.status, "application/json", reply.body,
                      std::span(headers.data(), reply.allow.empty() ? 1 : 2));
}

}  // namespace infergate::gateway
