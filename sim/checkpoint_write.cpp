#include "sim/checkpoint_write.hpp"

#include <cstring>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/platform.hpp"
#include "sim/simulation.hpp"

namespace sg4 = simgrid::s4u;

namespace trainsim::sim {

CheckpointWrite simulate_checkpoint_write(const topo::Topology& t, const GpuSpec& gpu, int gpus,
                                          Bytes bytes) {
  int servers = t.gpu_count() - gpus;
  double share = bytes.value() / gpus;
  std::string out = run_isolated(t, gpu, [&](Platform& p) {
    double end = 0;
    // One actor starts every GPU's write and waits for them all: the writes need no actor of
    // their own (Comm::sendto_async moves bytes between two hosts).
    sg4::Actor::create("checkpoint", p.host(0), [&] {
      std::vector<sg4::CommPtr> writes;
      writes.reserve(static_cast<size_t>(gpus));
      for (int r = 0; r < gpus; ++r)
        writes.push_back(sg4::Comm::sendto_async(p.host(r), p.host(gpus + r % servers),
                                                 static_cast<std::uint64_t>(share)));
      for (const sg4::CommPtr& w : writes) w->wait();
      end = sg4::Engine::get_clock();
    });
    sg4::Engine::get_instance()->run();
    return std::string(reinterpret_cast<const char*>(&end), sizeof end);
  });
  double end = 0;
  std::memcpy(&end, out.data(), sizeof end);
  return {Seconds(end), share};
}

} // namespace trainsim::sim
