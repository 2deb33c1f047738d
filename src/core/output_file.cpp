#include "core/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "core/write_all.hpp"

namespace infergate {

namespace fs = std::filesystem;

namespace {

// Standard output as the command found it, once give_standard_output_to_result moved fd 1.
int result_fd = STDOUT_FILENO;

[[noreturn]] void fail(const std::string& path, std::string_view what, int error) {
  throw std::runtime_error(fmt::format("writing '{}' failed: {}{}", path, std::strerror(error), what));
}

// A file beside `target` that no other writer has, made with the mode `target` will have; or the
// system's reason in `*fd`, negated.
std::optional<std::string> make_temporary(const fs::path& target, mode_t mode, int* fd) {
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name =
        (folder / fmt::format(".{}.{}-{}.partial", target.filename().string(), ::getpid(), attempt)).string();
    *fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (*fd >= 0) {
      return name;
    }
    if (errno != EEXIST) {
      *fd = -errno;
      return std::nullopt;
    }
  }
  *fd = -EEXIST;
  return std::nullopt;
}

constexpr std::size_t kBufferBytes = 1 << 16;

}  // namespace

void check_writable(const std::string& path, std::string_view option) {
  if (path.empty() || path == kStandardOutput) {
    return;
  }
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{} '{}' cannot be written: {}", option, path, why));
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    refuse("it is a folder");
  }
  if (fs::exists(status)) {
    if (::access(path.c_str(), W_OK) != 0) {
      refuse(std::strerror(errno));
    }
    return;
  }
  const fs::path parent = fs::path(path).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  if (!fs::is_directory(folder, ec)) {
    refuse(fmt::format("its folder '{}' does not exist", folder));
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    refuse(fmt::format("no file can be made in '{}': {}", folder, std::strerror(errno)));
  }
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_ == kStandardOutput) {
    fd_ = result_fd;
    return;
  }
  std::error_code ec;
  fs::path target = path_;
  if (fs::is_symlink(fs::symlink_status(path_, ec))) {
    target = fs::canonical(path_, ec);
    if (ec) {
      throw std::runtime_error(fmt::format("cannot write '{}': its link leads nowhere ({})", path_, ec.message()));
    }
  }
  target_ = target.string();
  const fs::file_status status = fs::status(target, ec);
  existed_ = fs::exists(status);
  if (existed_ && !fs::is_regular_file(status)) {
    open_in_place();
    return;
  }
  mode_t mode = 0666;  // less the umask, as any new file
  struct stat old {};
  if (existed_ && ::stat(target_.c_str(), &old) == 0) {
    mode = old.st_mode & 07777;
  }
  std::optional<std::string> partial = make_temporary(target, mode, &fd_);
  if (!partial) {
    const int error = -fd_;
    fd_ = -1;
    if (existed_ && (error == EACCES || error == EPERM)) {
      open_in_place();  // a folder that takes no new file may still hold a writable one
      return;
    }
    fail(path_, outcome(), error);
  }
  partial_ = std::move(*partial);
  if (existed_) {
    ::fchmod(fd_, mode);  // the umask must not narrow an old file's mode
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && fd_ != result_fd) {
    ::close(fd_);
  }
  if (!partial_.empty()) {
    ::unlink(partial_.c_str());
  }
}

void OutputFile::append(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= kBufferBytes) {
    flush();
  }
}

void OutputFile::commit() {
  flush();
  if (fd_ == result_fd) {
    return;
  }
  int error = 0;
  if (!partial_.empty() && ::fsync(fd_) != 0) {
    error = errno;
  }
  const int closed = ::close(fd_);
  error = error != 0 ? error : closed != 0 ? errno : 0;
  fd_ = -1;
  if (error == 0 && !partial_.empty() && ::rename(partial_.c_str(), target_.c_str()) != 0) {
    error = errno;
  }
  if (error != 0) {
    fail(path_, outcome(), error);
  }
  partial_.clear();
}

void OutputFile::flush() {
  const WriteAll w = write_all(fd_, buffer_);
  buffer_.clear();
  if (w.error == 0) {
    return;
  }
  if (fd_ == result_fd) {
    throw std::runtime_error(fmt::format("writing to standard output failed: {}", std::strerror(w.error)));
  }
  fail(path_, outcome(), w.error);
}

void OutputFile::open_in_place() {
  in_place_ = true;
  fd_ = ::open(target_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    fail(path_, "", errno);
  }
}

std::string_view OutputFile::outcome() const {
  if (in_place_) {
    return "";  // what the file holds now is not known
  }
  return existed_ ? "; the file is as it was before" : "; no file was made";
}

void write_output(const std::string& path, std::string_view text) {
  OutputFile file(path);
  file.append(text);
  file.commit();
}

void give_standard_output_to_result() {
  if (result_fd != STDOUT_FILENO) {
    return;
  }
  std::fflush(stdout);
  result_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (result_fd < 0) {
    throw std::runtime_error(fmt::format("cannot keep standard output for the result: {}", std::strerror(errno)));
  }
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

void prepare_outputs(std::initializer_list<NamedOutput> outputs) {
  std::string_view first_to_stdout;
  for (const NamedOutput& o : outputs) {
    check_writable(o.path, o.option);
    if (o.path != kStandardOutput) {
      continue;
    }
    if (!first_to_stdout.empty()) {
      throw std::runtime_error(fmt::format("{} - and {} - both ask for standard output; write one of them to a file",
                                           first_to_stdout, o.option));
    }
    first_to_stdout = o.option;
  }
  if (!first_to_stdout.empty()) {
    give_standard_output_to_result();
  }
}

}  // namespace infergate
