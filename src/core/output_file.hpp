#pragma once
// A command's result files (bench --json, --records, reports). A benchmark that ran for an hour must
// not lose its result to a typo in a path, nor leave half a file, or destroy the last result, when
// the disk fills as it writes. "-" names standard output, for a pipe into jq or another tool.
#include <initializer_list>
#include <string>
#include <string_view>

namespace infergate {

inline constexpr std::string_view kStandardOutput = "-";

// Checked before the work that fills the file. Throws std::runtime_error, naming `option` and the
// reason, when `path` could not be written now: its folder is missing or not writable, or the path
// is a folder or a file that is not writable. Nothing is created or changed. An empty path (the
// option not given) and "-" pass.
void check_writable(const std::string& path, std::string_view option);

// A result file written a piece at a time, as write_output writes it whole: only commit() puts
// it in place of the old one (or, where it is written in place, ends it). Destroyed without a
// commit, as when an exception passes, it leaves the old file. Throws std::runtime_error naming
// the path and the system's reason for any failure. Buffered: memory holds a few pages of it,
// whatever its size.
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void append(std::string_view text);
  void commit();

 private:
  void flush();
  void open_in_place();
  [[nodiscard]] std::string_view outcome() const;  // what a failure left, for its message

  std::string path_;     // as given
  std::string target_;   // the file it names, through links
  std::string partial_;  // the temporary file beside it, until renamed
  int fd_ = -1;
  bool existed_ = false;
  bool in_place_ = false;
  std::string buffer_;
};

// Writes the whole of `text` as `path`. A regular file, old or new, is replaced only once the new
// one is whole, by renaming a temporary file beside it: a failed write leaves the old file (or no
// file) and throws std::runtime_error naming the path and the system's reason. Anything else (a
// device such as /dev/stdout, a pipe) is written in place. Through a symbolic link, its target is
// written.
void write_output(const std::string& path, std::string_view text);

// For a command one of whose outputs is "-": what it prints for people goes to standard error
// from here on, so that standard output carries that output alone. Call it before printing.
void give_standard_output_to_result();

struct NamedOutput {
  std::string_view option;  // "--json"
  const std::string& path;
};

// A command's outputs, before its work: check_writable on each, at most one "-" (std::runtime_error
// naming them), and standard output given to that one.
void prepare_outputs(std::initializer_list<NamedOutput> outputs);

}  // namespace infergate
