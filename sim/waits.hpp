// What each actor is blocked on, for the deadlock report (sim/simulation.cpp). Every wait on a
// mailbox comm goes through wait_on(), which notes the comm for the calling actor while it
// waits: two stores per wait, where watching every comm SimGrid starts (a callback, a hash
// map and a reference per comm) cost ~10% of a run. Sleeps always end, and a join waits on an
// actor that itself waits in wait_on(), so the noted comms are all a deadlock can hang on.
#pragma once

#include <string>

#include <simgrid/forward.h>

namespace trainsim::sim {

/// What a rank blocked on a send or a receive is said to wait for.
inline constexpr const char* kSending = "to send to";
inline constexpr const char* kReceiving = "to receive on";

/// Waits for `comm`, noting it and `verb` ("to receive on") for the calling actor meanwhile.
void wait_on(const simgrid::s4u::CommPtr& comm, const char* verb);

/// "to receive on 3.tp" when actor `pid` is inside wait_on(), "" otherwise. Only while the
/// engine is stopped with that actor blocked (SimGrid's deadlock callback): the comm is the
/// waiter's, alive as long as it waits.
std::string waiting_on(long pid);

} // namespace trainsim::sim
