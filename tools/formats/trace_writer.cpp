#include "tools/formats/trace_writer.hpp"

#include "tools/study/critical_path.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "models/error.hpp"
#include "models/layout.hpp"
#include "models/step_program.hpp"

namespace trainsim {
namespace {

using Kind = sim::TraceEvent::Kind;

// --- selection -------------------------------------------------------------------------------

struct SelectionContext {
  const Scenario& scenario;
  const topo::Topology& topology;
  const std::string& flag;
  const std::string& selection;
};

[[noreturn]] void bad_selection(const SelectionContext& c, const std::string& problem) {
  throw InputError("command line", c.flag, c.selection,
                   problem + " (use all, pipeline:K, node:N, stage:S, R or A-B, comma-separated)");
}

int parse_index(const SelectionContext& c, const std::string& text, int limit, const char* what) {
  size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    bad_selection(c, "'" + text + "' is not a number");
  }
  if (used != text.size() || value < 0) bad_selection(c, "'" + text + "' is not a whole number");
  if (value >= limit)
    bad_selection(c, std::string(what) + " " + text + " is out of range (there are " +
                         std::to_string(limit) + ")");
  return static_cast<int>(value);
}

void add_named(const SelectionContext& c, const std::string& kind, const std::string& index,
               std::set<int>& out) {
  const ExecutionSpec& e = c.scenario.execution;
  Layout layout(e);
  int gpus = e.gpus();
  if (kind == "pipeline") {
    int k = parse_index(c, index, layout.ranks_per_stage(), "pipeline");
    int block = layout.tp_block();
    for (int s = 0; s < e.pp; ++s) out.insert(layout.rank({k % block, k / block, s}));
  } else if (kind == "stage") {
    int s = parse_index(c, index, e.pp, "stage");
    for (int r = 0; r < gpus; ++r)
      if (layout.coords(r).pp == s) out.insert(r);
  } else if (kind == "node") {
    int per_node = c.topology.gpus_per_node();
    int n = parse_index(c, index, (gpus + per_node - 1) / per_node, "node");
    for (int r = n * per_node; r < std::min(gpus, (n + 1) * per_node); ++r) out.insert(r);
  } else {
    bad_selection(c, "unknown selector '" + kind + "'" +
                         did_you_mean(kind, {"pipeline", "stage", "node"}));
  }
}

void add_term(const SelectionContext& c, const std::string& term, std::set<int>& out) {
  int gpus = c.scenario.execution.gpus();
  if (term == "all") {
    for (int r = 0; r < gpus; ++r) out.insert(r);
  } else if (auto colon = term.find(':'); colon != std::string::npos) {
    add_named(c, term.substr(0, colon), term.substr(colon + 1), out);
  } else if (auto dash = term.find('-'); dash != std::string::npos && dash > 0) {
    int first = parse_index(c, term.substr(0, dash), gpus, "rank");
    int last = parse_index(c, term.substr(dash + 1), gpus, "rank");
    if (last < first) bad_selection(c, "range '" + term + "' is empty");
    for (int r = first; r <= last; ++r) out.insert(r);
  } else {
    out.insert(parse_index(c, term, gpus, "rank"));
  }
}

// --- names -----------------------------------------------------------------------------------

std::string pass_prefix(const sim::TraceEvent& ev, const Scenario& s) {
  std::string p = std::string(ev.forward ? "F" : "B") + " mb" + std::to_string(ev.microbatch);
  if (s.execution.interleave > 1) p += " chunk" + std::to_string(ev.chunk);
  return p;
}

std::string with_count(std::string name, int count) {
  return count > 1 ? name + " x" + std::to_string(count) : name;
}

int neighbour_stage(const sim::TraceEvent& ev, const Scenario& s) {
  int stages = s.execution.pp;
  int stage = Layout(s.execution).coords(ev.rank).pp;
  return (stage + (ev.forward ? stages - 1 : 1)) % stages; // the sender of a receive
}

// The collective an event stands for, from the scenario: the simulator records the group,
// and each group runs one kind of collective (two with sequence parallelism or ZeRO-3).
std::string group_name(Kind kind, const ExecutionSpec& e) {
  switch (kind) {
  case Kind::tp:
    return e.sequence_parallel ? "tp all-gather/reduce-scatter" : "tp all-reduce";
  case Kind::tp_background:
    return e.sequence_parallel ? "tp overlapped all-gather/reduce-scatter"
                               : "tp overlapped all-reduce";
  case Kind::ep:
  case Kind::ep_background:
    return "ep all-to-all";
  case Kind::cp:
    return "cp all-gather/reduce-scatter";
  default:
    return e.zero >= 3 ? "dp all-gather/reduce-scatter" : "dp";
  }
}

std::string gradient_collective(const ExecutionSpec& e) {
  return e.zero >= 1 ? "reduce-scatter" : "all-reduce";
}

std::string collective_name(const sim::TraceEvent& ev, const Scenario& s) {
  if (ev.microbatch < 0 && ev.kind == Kind::dp) return with_count("dp gradient sync", ev.count);
  if (ev.microbatch < 0) return with_count(group_name(ev.kind, s.execution), ev.count);
  std::string layer = ev.layer >= 0 ? " L" + std::to_string(ev.layer) : "";
  return with_count(pass_prefix(ev, s) + layer + " " + group_name(ev.kind, s.execution), ev.count);
}

// --- JSON ------------------------------------------------------------------------------------

// Whole nanoseconds: a track's durations then add up exactly to its last end time.
std::int64_t ns(double seconds) { return std::llround(seconds * 1e9); }

std::string micros(std::int64_t nanos) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, nanos / 1000, nanos % 1000);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

const char* category(Kind kind) {
  switch (kind) {
  case Kind::compute:
    return "compute";
  case Kind::tp:
    return "tp";
  case Kind::dp:
    return "dp";
  case Kind::ep:
    return "ep";
  case Kind::cp:
    return "cp";
  case Kind::pp_transfer:
    return "pp_transfer";
  case Kind::bubble:
    return "bubble";
  case Kind::pp_send_wait:
    return "pp_send_wait";
  case Kind::dp_background:
    return "dp_background";
  case Kind::tp_background:
    return "tp_background";
  case Kind::ep_background:
    return "ep_background";
  case Kind::host_copy:
    return "host_copy";
  case Kind::offload_wait:
    return "offload_wait";
  }
  return "other";
}

// Main track: tid 2R; what runs beside the kernels: tid 2R + 1. Its streams overlap the main
// track, and each other where two run at once (the DP stream's buckets in the last backward
// beside the TP or EP stream's collectives, or beside activation copies).
int track(const sim::TraceEvent& ev) {
  bool background = ev.kind == Kind::dp_background || ev.kind == Kind::tp_background ||
                    ev.kind == Kind::ep_background || ev.kind == Kind::host_copy;
  return 2 * ev.rank + (background ? 1 : 0);
}

// Fine mode runs a layer's kernels in program order (models/step_program.cpp): attention then MLP
// forward, MLP then attention backward; so the k-th compute event of a layer pass is known.
class KernelNames {
public:
  explicit KernelNames(const Scenario& s) : transformer_(s.model.kind == ModelKind::transformer) {}

  /// For the events of one track in time order.
  std::string next(const sim::TraceEvent& ev) {
    auto key = std::tuple(ev.rank, ev.forward, ev.microbatch, ev.chunk, ev.layer);
    k_ = key == last_ ? k_ + 1 : 0;
    last_ = key;
    if (!transformer_) return "mlp";
    return (k_ % 2 == 0) == ev.forward ? "attention" : "mlp";
  }

private:
  bool transformer_;
  std::tuple<int, bool, int, int, int> last_{-1, false, -1, -1, -1};
  int k_ = 0;
};

std::string event_json(const sim::TraceEvent& ev, const Scenario& s, const std::string& name) {
  Coords at = Layout(s.execution).coords(ev.rank);
  std::int64_t start = ns(ev.start);
  char bytes[32];
  std::snprintf(bytes, sizeof bytes, "%.0f", ev.bytes);
  return "{\"name\":" + quoted(name) + ",\"cat\":\"" + category(ev.kind) +
         "\",\"ph\":\"X\",\"ts\":" + micros(start) + ",\"dur\":" + micros(ns(ev.end) - start) +
         ",\"pid\":" + std::to_string(at.pp) + ",\"tid\":" + std::to_string(track(ev)) +
         ",\"args\":{\"rank\":" + std::to_string(ev.rank) +
         ",\"microbatch\":" + std::to_string(ev.microbatch) +
         ",\"chunk\":" + std::to_string(ev.chunk) + ",\"layer\":" + std::to_string(ev.layer) +
         ",\"count\":" + std::to_string(ev.count) + ",\"bytes\":" + bytes + "}}";
}

std::string metadata(const char* what, int pid, int tid, const std::string& name, int sort) {
  std::string tid_field = tid >= 0 ? ",\"tid\":" + std::to_string(tid) : "";
  return "{\"name\":\"" + std::string(what) +
         "_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + tid_field +
         ",\"args\":{\"name\":" + quoted(name) + "}},\n{\"name\":\"" + what +
         "_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + tid_field +
         ",\"args\":{\"sort_index\":" + std::to_string(sort) + "}}";
}

// Names for every stage (process) and traced GPU (thread), so Perfetto labels the tracks.
std::vector<std::string> track_names(const Scenario& s,
                                     const std::vector<sim::TraceEvent>& events) {
  Layout layout(s.execution);
  std::set<int> stages, tracks;
  for (const auto& ev : events) {
    stages.insert(layout.coords(ev.rank).pp);
    tracks.insert(track(ev));
  }
  std::vector<std::string> out;
  for (int st : stages)
    out.push_back(metadata("process", st, -1, "stage " + std::to_string(st), st));
  for (int t : tracks) {
    int rank = t / 2;
    Coords at = layout.coords(rank);
    std::string name = "gpu " + std::to_string(rank) + " (tp " + std::to_string(at.tp) + ", dp " +
                       std::to_string(at.dp) + ", pp " + std::to_string(at.pp) + ")";
    if (t % 2 == 1) name += " background";
    out.push_back(metadata("thread", at.pp, t, name, t));
  }
  return out;
}

} // namespace

std::vector<int> parse_rank_selection(const std::string& selection, const Scenario& scenario,
                                      const topo::Topology& topology, const std::string& flag) {
  SelectionContext c{scenario, topology, flag, selection};
  std::set<int> ranks;
  size_t begin = 0;
  while (begin <= selection.size()) {
    size_t end = std::min(selection.find(',', begin), selection.size());
    std::string term = selection.substr(begin, end - begin);
    if (term.empty()) bad_selection(c, "empty term");
    add_term(c, term, ranks);
    begin = end + 1;
  }
  return {ranks.begin(), ranks.end()};
}

double estimated_trace_bytes_per_rank(const Scenario& scenario, bool fine) {
  // A receive becomes two events (bubble, transfer) and a send may add a wait: at most ~2
  // events per op. Measured event size ~230 bytes (name, args, separators).
  constexpr double kBytesPerEvent = 230;
  ProgramSize ops = program_size(scenario);
  return 2.0 * (fine ? ops.fine : ops.folded) * kBytesPerEvent;
}

std::vector<int> default_trace_ranks(const Scenario& scenario, bool fine, double budget_bytes) {
  const ExecutionSpec& e = scenario.execution;
  double per_rank = estimated_trace_bytes_per_rank(scenario, fine);
  std::vector<int> ranks;
  if (per_rank * e.gpus() <= budget_bytes) {
    for (int r = 0; r < e.gpus(); ++r) ranks.push_back(r);
  } else if (per_rank * e.pp <= budget_bytes) {
    Layout layout(e);
    for (int s = 0; s < e.pp; ++s) ranks.push_back(layout.rank({0, 0, s}));
  } else {
    ranks.push_back(0);
  }
  return ranks;
}

std::string trace_event_name(const sim::TraceEvent& ev, const Scenario& s) {
  bool in_pass = ev.microbatch >= 0;
  switch (ev.kind) {
  case Kind::compute:
    if (!in_pass) return "compute";
    return pass_prefix(ev, s) + (ev.layer >= 0 ? " L" + std::to_string(ev.layer) : "") + " compute";
  case Kind::tp:
  case Kind::tp_background:
  case Kind::dp:
  case Kind::ep:
  case Kind::ep_background:
  case Kind::cp:
    return collective_name(ev, s);
  case Kind::dp_background:
    return with_count("dp gradient bucket " + gradient_collective(s.execution), ev.count);
  case Kind::bubble:
    return "bubble (waiting for " + std::string(ev.forward ? "activations of" : "gradients of") +
           " mb" + std::to_string(ev.microbatch) + " from stage " +
           std::to_string(neighbour_stage(ev, s)) + ")";
  case Kind::pp_transfer:
    return pass_prefix(ev, s) + " recv from stage " + std::to_string(neighbour_stage(ev, s));
  case Kind::pp_send_wait:
    return in_pass ? pass_prefix(ev, s) + " send (waiting for the previous one)"
                   : "waiting for the last sends";
  case Kind::host_copy:
    return pass_prefix(ev, s) + " L" + std::to_string(ev.layer) +
           (ev.forward ? " activations to the host" : " activations back from the host");
  case Kind::offload_wait:
    return pass_prefix(ev, s) + " L" + std::to_string(ev.layer) + " waiting for activation copies";
  }
  return "event";
}

// The critical path (sim/critical_path.hpp) as a process of its own after the stages, on
// top: each GPU's stretch on one track, each hand-over's transfer on another, with its time
// on idle links and what other flows on them added.
std::vector<std::string> critical_path_events(const Scenario& s,
                                              const std::vector<sim::PathStep>& path) {
  if (path.empty()) return {};
  int pid = s.execution.pp;
  std::vector<std::string> out{metadata("process", pid, -1, "critical path", -1),
                               metadata("thread", pid, 0, "GPUs on it", 0),
                               metadata("thread", pid, 1, "hand-overs", 1)};
  auto slice = [&](const std::string& name, int tid, double from, double to,
                   const std::string& args) {
    return "{\"name\":" + quoted(name) + ",\"cat\":\"critical_path\",\"ph\":\"X\",\"ts\":" +
           micros(ns(from)) + ",\"dur\":" + micros(ns(to) - ns(from)) + ",\"pid\":" +
           std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}}";
  };
  for (const sim::PathStep& st : path) {
    std::string rank = std::to_string(st.rank);
    out.push_back(slice("gpu " + rank + (st.stream ? " stream" : ""), 0, st.start, st.end,
                        "\"rank\":" + rank));
    if (st.from_rank < 0) continue;
    std::string from = std::to_string(st.reverse ? st.rank : st.from_rank),
                to = std::to_string(st.reverse ? st.from_rank : st.rank);
    std::string args = "\"from\":" + from + ",\"to\":" + to;
    std::int64_t alone = ns(st.alone), shared = ns(st.start) - ns(st.handed) - alone;
    if (st.alone >= 0) // its time on idle links, and what sharing them added
      args += ",\"alone_us\":" + micros(alone) + ",\"shared_us\":" + micros(std::max(shared, 0L));
    out.push_back(slice(std::string(via_name(st.via)) + " " + from + " -> " + to, 1, st.handed,
                        st.start, args));
  }
  return out;
}

void write_trace(std::ostream& out, const Scenario& scenario, const sim::SimResult& result) {
  std::vector<sim::TraceEvent> events = result.trace;
  // By track, then time: the simulator records in order of completion, across ranks.
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return track(a) != track(b) ? track(a) < track(b) : a.start < b.start;
  });
  out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"scenario\":" << quoted(scenario.file)
      << ",\"step_time_us\":" << micros(ns(result.step_time.value())) << "},\n\"traceEvents\":[\n";
  bool first = true;
  for (const std::string& m : track_names(scenario, events)) {
    out << (first ? "" : ",\n") << m;
    first = false;
  }
  for (const std::string& e : critical_path_events(scenario, result.critical_path)) {
    out << (first ? "" : ",\n") << e;
    first = false;
  }
  KernelNames kernels(scenario);
  for (const auto& ev : events) {
    bool layer_kernel = ev.kind == Kind::compute && ev.layer >= 0 && ev.microbatch >= 0;
    std::string name = layer_kernel ? pass_prefix(ev, scenario) + " L" + std::to_string(ev.layer) +
                                          " " + kernels.next(ev)
                                    : trace_event_name(ev, scenario);
    out << (first ? "" : ",\n") << event_json(ev, scenario, name);
    first = false;
  }
  out << "\n]}\n";
}

} // namespace trainsim
