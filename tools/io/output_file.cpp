#include "tools/io/output_file.hpp"

#include <ctime>
#include <filesystem>

#include <unistd.h>

#include "models/error.hpp"

namespace trainsim {

std::ofstream open_output(const std::string& path, const std::string& what) {
  std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::binary);
  if (ec || !out) throw Error(ExitCode::io, what + " " + path + ": cannot write the file");
  return out;
}

void prepare_output_dir(const std::string& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw Error(ExitCode::io,
                what + " " + dir + ": cannot create the directory (" + ec.message() + ")");
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(ExitCode::io, what + " " + dir + ": not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(ExitCode::io, what + " " + dir + ": cannot write files in this directory");
}

std::string fresh_directory(const std::string& parent, const std::string& prefix) {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "-%Y%m%d-%H%M%S", std::gmtime(&now));
  std::string base = (std::filesystem::path(parent) / (prefix + stamp)).string(), name = base;
  std::error_code ec;
  // create_directory is false, without an error, when the name exists: then try the next one.
  for (int n = 2; !std::filesystem::create_directory(name, ec); ++n) {
    if (ec)
      throw Error(ExitCode::io, "cannot create the directory " + name + " (" + ec.message() + ")");
    name = base + "-" + std::to_string(n);
  }
  return name;
}

void close_output(std::ofstream& out, const std::string& path) {
  out.close();
  if (!out) throw Error(ExitCode::io, path + ": cannot write the file");
}

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  std::ofstream out = open_output(path, what);
  out << text;
  close_output(out, path);
}

} // namespace trainsim
