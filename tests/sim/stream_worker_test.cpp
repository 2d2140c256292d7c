#include "sim/stream_worker.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <simgrid/s4u.hpp>

#include "sim/platform.hpp"
#include "sim/simulation.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

// One actor drives a stream whose jobs each sleep a number of seconds:
//   t = 0: posts A (1 s) and B (2 s): A runs 0-1, B 1-3;
//   t = 0.5: posts C (3 s), queued behind B: runs 3-6;
//   waits for B (returns at 3), then for C (6), then at t = 10 posts D (1 s) on the idle
//   stream: it starts at once and ends at 11.
// Each job also notes its start, so the order shows: A 0, B 1, C 3, D 10.
TEST(StreamWorker, RunsJobsInOrderEachAfterThePrevious) {
  topo::FatTreeParams p;
  p.nodes = 1;
  p.gpus_per_node = 1;
  std::string text = run_isolated(topo::build_fat_tree(p), GpuSpec{}, [](Platform& platform) {
    std::ostringstream out;
    auto clock = [] { return sg4::Engine::get_clock(); };
    sg4::Actor::create("driver", platform.host(0), [&] {
      StreamWorker stream(sg4::this_actor::get_host());
      auto job = [&](const char* name, double seconds) {
        return [&out, &clock, name, seconds] {
          out << name << " " << clock() << "; ";
          sg4::this_actor::sleep_for(seconds);
        };
      };
      stream.post(job("A", 1));
      long b = stream.post(job("B", 2));
      sg4::this_actor::sleep_for(0.5);
      long c = stream.post(job("C", 3));
      stream.wait_for(b);
      out << "B done " << clock() << "; ";
      stream.wait_for(c);
      out << "C done " << clock() << "; ";
      sg4::this_actor::sleep_until(10);
      long d = stream.post(job("D", 1));
      EXPECT_FALSE(stream.idle());
      stream.wait_for(d);
      out << "D done " << clock() << "; ";
      EXPECT_TRUE(stream.idle());
      stream.stop();
    });
    sg4::Engine::get_instance()->run();
    return out.str();
  });
  EXPECT_EQ(text, "A 0; B 1; C 3; B done 3; C done 6; D 10; D done 11; ");
}

} // namespace
} // namespace trainsim::sim
