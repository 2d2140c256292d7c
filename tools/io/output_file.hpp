// Files the commands write. Every failure to create or write one is an Error(ExitCode::io)
// naming the path (and the option that named it), never a silent short file.
#pragma once

#include <fstream>
#include <string>

namespace trainsim {

/// Opens `path` for writing, creating missing directories; `what` names where the path came
/// from in the message ("--trace", "report").
std::ofstream open_output(const std::string& path, const std::string& what);

/// Closes `out` and checks that everything reached the file.
void close_output(std::ofstream& out, const std::string& path);

/// Creates directory `dir` if missing and checks that files can be written there, so a
/// command fails before it computes anything; `what` names the option ("--out").
void prepare_output_dir(const std::string& dir, const std::string& what);

/// Creates and returns a new directory PARENT/PREFIX-YYYYmmdd-HHMMSS (UTC; -2, -3, ... appended
/// when that exists), for commands whose default output must never overwrite an earlier one.
/// An empty `parent` is the current directory, and the result is then a relative path.
std::string fresh_directory(const std::string& parent, const std::string& prefix);

/// Writes `text` to `path` in one go.
void write_text_file(const std::string& path, const std::string& text,
                     const std::string& what = "output");

} // namespace trainsim
