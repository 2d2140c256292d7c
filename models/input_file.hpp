// Reading a user's input file (a scenario, a topology) whole, refusing at once what cannot be
// one: a directory, a device or pipe (/dev/zero would never end), a file larger than its kind
// ever is. Every refusal is one InputError line naming the file.
#pragma once

#include <string>

namespace trainsim {

/// The file's text. `what` names the kind in messages ("scenario file"); `max_bytes` is the
/// largest such file read.
std::string read_input_file(const std::string& path, const std::string& what, double max_bytes);

/// A scenario is a few kilobytes of YAML; 16 MiB leaves room for any hand-written one.
inline constexpr double kMaxScenarioBytes = 16.0 * 1048576.0;
/// A topology file of 1M GPUs in GraphML is a few hundred MB; the memory guard prices its graph.
inline constexpr double kMaxTopologyFileBytes = 2.0 * 1073741824.0;

} // namespace trainsim
