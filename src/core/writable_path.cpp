#include "core/writable_path.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace infergate {

namespace fs = std::filesystem;

void check_writable(const std::string& path, std::string_view option) {
  if (path.empty()) {
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

}  // namespace infergate
