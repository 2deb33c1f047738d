#include "gateway/ledger_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/repeated_json_fields.hpp"
#include "core/text_writer.hpp"
#include "core/write_all.hpp"

namespace infergate::gateway {

namespace json = boost::json;

namespace {

// The field names and punctuation of a line take fewer bytes than this.
constexpr std::size_t kLineFrame = 256;

}  // namespace

// Formatted by hand, as the access log's lines are: a batch formats thousands of them.
std::string_view journal_line(const LedgerRow& r) {
  // A batch's rows come mostly from a few keys and routes.
  thread_local RepeatedJsonFields<4> names_fields({"key_id", "model", "upstream_model", "provider"});
  const std::string_view names = names_fields.text({r.key_id, r.model, r.upstream_model, r.provider});
  std::size_t bound = kLineFrame + names.size() + 4 * kDecimalBound + kShortestBound + 2 * kFixedBound;
  for (const std::string_view text : {r.request_id, r.token_source}) {
    bound += json_string_bound(text.size());
  }
  return write_scratch(bound, [&r, names](TextWriter& w) {
    w.literal(R"({"ts_ms":)");
    w.decimal(r.ts_ms);
    w.literal(R"(,"request_id":)");
    w.json_string(r.request_id);
    w.text(names);
    w.literal(R"(,"prompt_tokens":)");
    w.decimal(r.prompt_tokens);
    w.literal(R"(,"completion_tokens":)");
    w.decimal(r.completion_tokens);
    w.literal(R"(,"token_source":)");
    w.json_string(r.token_source);
    w.literal(R"(,"cost_usd":)");
    // The shortest form that reads back as the same double: the sums SQLite keeps and a sum of the
    // journal's lines agree to the last bit.
    w.shortest(r.cost_usd);
    w.literal(R"(,"status":)");
    w.decimal(r.status);
    w.literal(R"(,"ttft_ms":)");
    if (r.ttft_ms) {
      w.fixed(*r.ttft_ms, 3);
    } else {
      w.literal("null");
    }
    w.literal(R"(,"duration_ms":)");
    w.fixed(r.duration_ms, 3);
    w.literal("}\n");
  });
}

namespace {

bool read_text(const json::object& o, std::string_view name, std::string_view& out) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr || !v->is_string()) {
    return false;
  }
  out = v->get_string();
  return true;
}

bool read_integer(const json::object& o, std::string_view name, std::int64_t& out) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr || !v->is_int64()) {
    return false;
  }
  out = v->get_int64();
  return true;
}

bool read_number(const json::object& o, std::string_view name, double& out) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr || !v->is_number()) {
    return false;
  }
  out = v->to_number<double>();
  return true;
}

}  // namespace

std::optional<LedgerRow> parse_journal_line(std::string_view line, json::value& storage) {
  boost::system::error_code ec;
  storage = json::parse(line, ec);
  if (ec || !storage.is_object()) {
    return std::nullopt;
  }
  const json::object& o = storage.get_object();
  LedgerRow r;
  std::int64_t status = 0;
  if (!read_integer(o, "ts_ms", r.ts_ms) || !read_text(o, "request_id", r.request_id) ||
      !read_text(o, "key_id", r.key_id) || !read_text(o, "model", r.model) ||
      !read_text(o, "upstream_model", r.upstream_model) || !read_text(o, "provider", r.provider) ||
      !read_integer(o, "prompt_tokens", r.prompt_tokens) ||
      !read_integer(o, "completion_tokens", r.completion_tokens) || !read_text(o, "token_source", r.token_source) ||
      !read_number(o, "cost_usd", r.cost_usd) || !read_integer(o, "status", status) ||
      !read_number(o, "duration_ms", r.duration_ms)) {
    return std::nullopt;
  }
  r.status = static_cast<int>(status);
  if (const json::value* ttft = o.if_contains("ttft_ms"); ttft != nullptr && ttft->is_number()) {
    r.ttft_ms = ttft->to_number<double>();
  }
  return r;
}

JournalFile::JournalFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd_ < 0) {
    fail("open");
  }
}

JournalFile::~JournalFile() {
  ::close(fd_);
}

void JournalFile::fail(const char* what) const {
  throw std::runtime_error(fmt::format("cannot {} the usage journal {}: {}", what, path_, std::strerror(errno)));
}

std::int64_t JournalFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    fail("read the size of");
  }
  return st.st_size;
}

std::string JournalFile::read(std::int64_t from, std::int64_t to) const {
  std::string out(static_cast<std::size_t>(to - from), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, from + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      if (n == 0) {
        errno = EIO;  // shorter than its size a moment ago: someone else cut it
      }
      fail("read");
    }
    done += static_cast<std::size_t>(n);
  }
  return out;
}

void JournalFile::append(std::string_view bytes) {
  if (const int error = write_all(fd_, bytes).error; error != 0) {
    errno = error;
    fail("append to");
  }
}

void JournalFile::truncate(std::int64_t size) {
  if (::ftruncate(fd_, size) != 0) {
    fail("cut back");
  }
}

}  // namespace infergate::gateway
