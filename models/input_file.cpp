#include "models/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/error.hpp"
#include "models/units.hpp"

namespace trainsim {

std::string read_input_file(const std::string& path, const std::string& what, double max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(path, "is a directory, not a " + what);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(path, "is not a regular file (a device, pipe or socket), not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot read the " + what + ": " + std::strerror(errno));
  auto size = static_cast<double>(fs::file_size(path, ec));
  if (!ec && size > max_bytes)
    throw InputError(path, "is " + format(Bytes(size)) + ", more than a " + what + " can be (" +
                               format(Bytes(max_bytes)) + ")");
  std::stringstream text;
  text << in.rdbuf();
  std::string content = text.str();
  // Text formats never hold a NUL byte; a binary file given by mistake would otherwise reach
  // the parser and come back as a line of unprintable characters.
  if (content.find('\0') != std::string::npos)
    throw InputError(path, "is a binary file, not a " + what + " (a text file is expected)");
  return content;
}

} // namespace trainsim
