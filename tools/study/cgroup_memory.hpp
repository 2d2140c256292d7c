// What a memory cgroup (a container's or a systemd slice's limit) leaves this process: the
// kernel's OOM killer enforces it, while /proc/meminfo still shows the whole machine's
// memory, so the memory guard must read it too.
#pragma once

#include <optional>
#include <string>

#include "models/units.hpp"

namespace trainsim {

/// Limit minus usage of this process's memory cgroup, v2 (memory.max, memory.current) or v1
/// (memory.limit_in_bytes, memory.usage_in_bytes), read under `root` (normally
/// /sys/fs/cgroup) for the membership lines of /proc/self/cgroup given in `self_cgroup`.
/// nullopt when there is no limit or it cannot be read.
std::optional<Bytes> cgroup_memory_left(const std::string& root, const std::string& self_cgroup);

/// The same for this process, from /sys/fs/cgroup and /proc/self/cgroup.
std::optional<Bytes> cgroup_memory_left();

} // namespace trainsim
