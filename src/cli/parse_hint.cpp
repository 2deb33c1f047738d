#include "cli/parse_hint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "core/closest_name.hpp"

namespace infergate::cli {

namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// The long options of `app` and of the commands above it, as typed: "--concurrency".
std::vector<std::string> option_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      for (const std::string& name : option->get_lnames()) {
        names.push_back("--" + name);
      }
    }
  }
  return names;
}

}  // namespace

std::vector<std::string> parse_hints(const CLI::App& app) {
  // The command being parsed when it failed: the last one named, at the deepest level.
  const CLI::App* command = &app;
  while (!command->get_subcommands().empty()) {
    command = command->get_subcommands().back();
  }
  const std::vector<std::string> extras = app.remaining(true);
  std::vector<std::string> hints;
  for (const std::string& extra : extras) {
    if (extra.starts_with("--")) {
      const std::string typed = extra.substr(0, extra.find('='));
      if (const auto meant = closest_name(typed, option_names(command))) {
        hints.push_back(fmt::format("{}: did you mean {}?", typed, *meant));
      }
    } else if (const std::vector<std::string> commands = command_names(*command);
               !commands.empty() && &extra == &extras.front()) {
      // A word where a command must come: say which commands there are.
      const std::string prefix = command == &app ? "" : command->get_name() + " ";
      if (const auto meant = closest_name(extra, commands)) {
        hints.push_back(fmt::format("'{}' is not a command; did you mean '{}{}'?", extra, prefix, *meant));
      } else {
        hints.push_back(fmt::format("'{}' is not a command; the commands are {}", extra, fmt::join(commands, ", ")));
      }
    }
  }
  return hints;
}

}  // namespace infergate::cli
