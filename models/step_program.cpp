#include "models/step_program.hpp"
#include "models/step_program_blocks.hpp"
#include "models/step_program_gradients.hpp"

#include <algorithm>
#include <utility>

#include "models/operators.hpp"
#include "models/workload.hpp"
#include "models/workload_parts.hpp"
#include "models/schedule.hpp"
#include "models/step_compute.hpp"

namespace trainsim {
namespace {

Op compute(Seconds t) {
  return {OpKind::compute, GroupKind::tp, CollectiveOp::all_reduce, true, 1, t, Bytes()};
}
Op collective(GroupKind g, CollectiveOp c, Bytes b) {
  return {OpKind::collective, g, c, true, 1, Seconds(), b};
}
Op transfer(OpKind k, bool forward, Bytes b) {
  return {k, GroupKind::tp, CollectiveOp::all_reduce, forward, 1, Seconds(), b};
}

/// Builds one stage's ops; each member is one part of the step.
class Builder {
public:
  Builder(const Scenario& s, int stage)
      : s_(s), e_(s.execution), stage_(stage), dp_(s, stage), embedding_(embedding_time(s)),
        head_(head_time(s)), bucket_(dp_bucket_bytes(s.model, s.execution)),
        offloaded_(program_detail::offloaded_activations(s)) {
    for (const auto& [kind, count] : layer_kinds(s.model))
      for (bool recomputed : {e_.recomputes(0), e_.recomputes(e_.kept_layer())})
        if (plans_.empty() || plans_.back().kind != kind || plans_.back().recomputed != recomputed)
          plans_.push_back(layer_plan(s, kind, recomputed));
    for (int chunk = 0; chunk < e_.chunks(); ++chunk)
      first_layer_.push_back(chunk_first_layer(s.model, e_, stage, chunk));
    forwarded_.assign(static_cast<size_t>(e_.chunks()), 0);
  }

  Program build() {
    int chunks = e_.chunks();
    auto order = pipeline_order(e_.schedule, stage_, e_.pp, static_cast<int>(e_.microbatches()),
                                chunks, e_.group(), e_.ep_overlap);
    std::vector<int> backwards_left(static_cast<size_t>(chunks),
                                    static_cast<int>(e_.microbatches()));
    long passes_left = e_.microbatches() * chunks;
    if (e_.delayed_update) delayed_reduction();
    if (e_.param_gather_overlap) early_gathers();
    auto run = [&](const PipelineOp& pass) {
      bool last_backward = !pass.forward && --backwards_left[static_cast<size_t>(pass.chunk)] == 0;
      bool final_pass = !pass.forward && --passes_left == 0;
      size_t first = program_.size();
      pass.forward ? forward(pass.chunk) : backward(pass.chunk, last_backward, final_pass);
      for (size_t i = first; i < program_.size(); ++i) {
        program_[i].microbatch = pass.microbatch;
        program_[i].chunk = pass.chunk;
        if (program_[i].kind == OpKind::recv || program_[i].kind == OpKind::send) continue;
        program_[i].forward = pass.forward;
      }
      return first;
    };
    auto at = [&](size_t i) { return program_.begin() + static_cast<std::ptrdiff_t>(i); };
    for (size_t k = 0; k < order.size(); ++k) {
      size_t first = run(order[k]);
      // ep_overlap: a steady-state forward runs with the backward after it.
      if (!e_.ep_overlap || !order[k].steady || !order[k].forward) continue;
      size_t second = run(order[++k]);
      std::vector<Op> merged = program_detail::paired({at(first), at(second)}, {at(second), program_.end()});
      program_.resize(first);
      program_.insert(program_.end(), merged.begin(), merged.end());
    }
    program_.push_back(transfer(OpKind::wait_sends, true, Bytes()));
    gradient_sync();
    return std::move(program_);
  }

private:
  [[nodiscard]] bool first_virtual(int chunk) const { return e_.virtual_stage(stage_, chunk) == 0; }
  [[nodiscard]] bool last_virtual(int chunk) const {
    return e_.virtual_stage(stage_, chunk) == e_.pp * e_.chunks() - 1;
  }
  [[nodiscard]] bool receives(int chunk, bool forward) const {
    return receives_from_stage(e_, stage_, chunk, forward);
  }
  [[nodiscard]] bool sends(int chunk, bool forward) const { return receives(chunk, !forward); }
  [[nodiscard]] int layers(int chunk) const { return chunk_layers(s_.model, e_, stage_, chunk); }
  /// Layer `l` of the chunk, by its kind and whether it recomputes.
  [[nodiscard]] const LayerPlan& plan(int chunk, int l) const {
    LayerKind kind = layer_kind(s_.model, first_layer_[static_cast<size_t>(chunk)] + l);
    bool recomputed = e_.recomputes(l);
    return *std::find_if(plans_.begin(), plans_.end(), [&](const LayerPlan& p) {
      return p.kind == kind && p.recomputed == recomputed;
    });
  }
  [[nodiscard]] Bytes layer_gradients(const LayerPlan& p) const {
    return gradient_word(s_.model, e_) * p.costs.params;
  }
  [[nodiscard]] Bytes layer_parameters(const LayerPlan& p) const {
    return gathered_parameter_word(s_.model, e_) * p.costs.params;
  }
  /// This stage's embedding and LM head gradients (none without a vocabulary).
  [[nodiscard]] Bytes vocabulary_gradients() const {
    return gradient_word(s_.model, e_) * workload_parts::vocabulary_params(s_.model, e_, stage_);
  }
  /// The embedding's (`embedding`) or the LM head's parameters on this stage, at the model's
  /// precision (none without a vocabulary, or off their stage).
  [[nodiscard]] Bytes vocabulary_parameters(bool embedding) const {
    bool here = embedding ? stage_ == 0 : stage_ == e_.head_stage();
    if (!here) return Bytes();
    return s_.model.bytes_per_word *
           (embedding ? embedding_params(s_.model, e_)
                      : workload_parts::head_stage_params(s_.model, e_));
  }
  /// Kernels outside the layers (embedding, LM head, optimizer step), when the model has them.
  void extra_kernels(const KernelTime& t) {
    if (t.total() > Seconds()) program_.push_back(compute(t.total()));
  }
  /// Kernels that run once a step (Op::per_step), when there are any.
  void once(const KernelTime& t) {
    if (t.total() <= Seconds()) return;
    program_.push_back(compute(t.total()));
    program_.back().per_step = true;
  }

  // The embedding opens the first virtual stage's forward and closes its backward; the LM
  // head and the loss close the last virtual stage's forward and open its backward.
  // With param_gather_overlap a chunk's first forward waits for each layer's parameters; it
  // casts each layer's FP8 weights before the layer, once a step (BlockTime::per_step).
  void forward(int chunk) {
    auto c = static_cast<size_t>(chunk);
    bool casting = !forwarded_[c]; // the chunk's first forward
    forwarded_[c] = 1;
    bool gathering = e_.param_gather_overlap && casting;
    auto wait_for = [&](int l) {
      if (gathering) wait_gathers(gathered_[c].before(l));
    };
    if (receives(chunk, true)) receive(true);
    if (first_virtual(chunk)) wait_for(0), extra_kernels(embedding_.forward);
    for (int l = 0; l < layers(chunk); ++l)
      wait_for(l), prefetch(chunk, l, true), tagged(l, [&] {
        if (casting)
          once(plan(chunk, l).times.attention.per_step + plan(chunk, l).times.mlp.per_step);
        make_room(chunk, l, true);
        layer(plan(chunk, l), true);
        copy_after(chunk, l, true);
      });
    if (last_virtual(chunk)) wait_for(layers(chunk)), extra_kernels(head_.forward);
    if (last_virtual(chunk) && casting) once(head_.per_step);
    if (sends(chunk, true)) program_.push_back(transfer(OpKind::send, true, costs().pp_activation));
  }

  // `last`: the chunk's last backward, whose gradients are final (dp_overlap buckets them);
  // `final_pass`: the stage's last backward, whose last bucket also takes the vocabulary's.
  void backward(int chunk, bool last, bool final_pass) {
    if (receives(chunk, false)) receive(false);
    if (last_virtual(chunk)) extra_kernels(head_.backward);
    int n = layers(chunk); // none in a chunk that holds only the embedding or the loss
    for (int l = 0; l < n; ++l) {
      const LayerPlan& p = plan(chunk, n - 1 - l);
      prefetch(chunk, n - 1 - l, false);
      tagged(n - 1 - l, [&] {
        make_room(chunk, n - 1 - l, false);
        layer(p, false);
        copy_after(chunk, n - 1 - l, false);
      });
      if (l + 1 < n && last && e_.dp_overlap) bucket(layer_gradients(p), false);
    }
    if (first_virtual(chunk)) extra_kernels(embedding_.backward);
    if (final_pass && e_.dp_overlap) pending_ += vocabulary_gradients();
    if (last && e_.dp_overlap) bucket(n > 0 ? layer_gradients(plan(chunk, 0)) : Bytes(), true);
    if (sends(chunk, false))
      program_.push_back(transfer(OpKind::send, false, costs().pp_activation));
  }

  /// A pipeline receive; under scatter/gather the TP group then gathers the whole activation
  /// (or gradient) from the 1/tp shares its ranks received.
  void receive(bool forward) {
    program_.push_back(transfer(OpKind::recv, forward, costs().pp_activation));
    if (e_.gathers_pp_receives())
      program_.push_back(collective(GroupKind::tp, CollectiveOp::all_gather, costs().tp_allreduce));
  }

  // Activation offloading's wait before layer `l` of the chunk and copy after it.
  void make_room(int chunk, int l, bool fwd) {
    if (auto op = program_detail::offload_wait(s_, first_layer_[static_cast<size_t>(chunk)] + l, fwd))
      program_.push_back(*op);
  }
  void copy_after(int chunk, int l, bool fwd) {
    int layer = first_layer_[static_cast<size_t>(chunk)] + l;
    if (auto op = program_detail::offload_copy(s_, offloaded_, layer, fwd)) program_.push_back(*op);
  }

  /// Runs `body` and marks the ops it added as belonging to layer `l` of the chunk.
  template <class Body>
  void tagged(int l, Body&& body) {
    size_t first = program_.size();
    body();
    for (size_t i = first; i < program_.size(); ++i) program_[i].layer = l;
  }

  // Megatron TP: [attention, all-reduce, MLP, all-reduce]; with sequence parallelism each
  // all-reduce becomes a reduce-scatter after the block and an all-gather before the next.
  // Backward runs the blocks in reverse, each as two kernels (input and weight gradients).
  // Full recomputation first runs the layer's forward again, its collectives included:
  // Megatron's checkpointed function re-runs the whole forward, and Korthikanti et al. 2022,
  // Table 4, measure its cost as one more forward (backward 11.9 ms, 19.5 with recomputation,
  // forward 7.7).
  void layer(const LayerPlan& p, bool fwd) {
    layer_ = &p;
    bool blocking = e_.zero >= 3 && !e_.zero3_prefetch;
    if (blocking)
      program_.push_back(collective(GroupKind::dp, CollectiveOp::all_gather, layer_parameters(p)));
    bool recompute = !fwd && p.recomputed;
    if (recompute) blocks(true, false);
    blocks(fwd, recompute);
    Op reduce = collective(GroupKind::dp, CollectiveOp::reduce_scatter, layer_gradients(p));
    if (e_.zero >= 3 && !fwd) blocking ? program_.push_back(reduce) : start({reduce});
  }

  // zero3_prefetch: each layer starts the next one's gather before waiting for its own.
  void prefetch(int chunk, int l, bool fwd) {
    if (!e_.zero3_prefetch) return;
    auto gather = [&](int k) {
      start(
          {collective(GroupKind::dp, CollectiveOp::all_gather, layer_parameters(plan(chunk, k)))});
      return dp_started_;
    };
    int mine = l == (fwd ? 0 : layers(chunk) - 1) ? gather(l) : gathered_through_;
    if (int next = fwd ? l + 1 : l - 1; next >= 0 && next < layers(chunk))
      gathered_through_ = gather(next);
    program_.push_back(program_detail::wait_stream(GroupKind::dp, mine));
  }

  // One pass over the layer's blocks; `less_forward`: the backward kernels' time without the
  // recomputed forward, which then runs on its own before them.
  void blocks(bool fwd, bool less_forward) {
    auto pass = [=](const BlockTime& b) {
      if (fwd) return b.forward.total();
      return less_forward ? b.backward.total() - b.forward.total() : b.backward.total();
    };
    auto beside = [=](const BlockTime& b) { return fwd ? Seconds() : b.beside_collective.total(); };
    const LayerTimes& times = layer_->times;
    std::vector<std::vector<Op>> order;
    using namespace program_detail;
    if (s_.model.kind == ModelKind::transformer)
      order.push_back(overlapped(
          with_context(block(e_, pass(times.attention), block_bytes(layer_->costs.attention_input),
                             fwd, false, false),
                       costs().cp_kv, e_, fwd),
          beside(times.attention), e_));
    if (layer_->experts)
      order.push_back(expert_block(e_, s_.model, pass(times.mlp),
                                   routed_time(times.mlp, fwd, less_forward), block_bytes(), fwd,
                                   delayed_weight_gradients(e_, times.mlp)));
    else
      order.push_back(overlapped(block(e_, pass(times.mlp), block_bytes(), fwd, false, true),
                                 beside(times.mlp), e_));
    // Backward visits the blocks in reverse, each in the same shape as forward: Megatron's
    // g (all-reduce forward) is the identity backward and its f (identity forward) is the
    // all-reduce backward, so a block's collective still follows its kernels.
    if (!fwd) std::reverse(order.begin(), order.end());
    for (auto& ops : order) program_.insert(program_.end(), ops.begin(), ops.end());
  }

  [[nodiscard]] program_detail::BlockBytes block_bytes(Bytes input = Bytes()) const {
    const LayerCosts& costs = layer_->costs;
    return {costs.tp_allreduce, input > Bytes() ? input : costs.tp_allreduce, costs.ep_dispatch,
            costs.ep_routing, costs.tp2_allreduce};
  }

  /// During the last backward pass: start a DP collective whenever a bucket's worth of
  /// gradients is ready, and for the rest at the end of the pass.
  void bucket(Bytes gradients, bool end_of_pass) {
    pending_ += gradients;
    if (pending_ < bucket_ && !end_of_pass) return;
    start(dp_.reduction(pending_));
    pending_ = Bytes();
  }

  /// Starts `ops` on the DP stream, counted in dp_started_.
  void start(std::vector<Op> ops, bool in_rounds = false) {
    for (Op& op : ops) {
      op.kind = OpKind::start_collective;
      op.in_rounds = in_rounds;
      program_.push_back(op);
    }
    dp_started_ += static_cast<int>(ops.size());
  }

  // delayed_update: the previous step's gradients are final when this step starts, so their
  // reduction and ZeRO's gather of the parameters it updates run on the DP stream alongside
  // the passes, contending for the links with them; the step waits for them at its end. The
  // optimizer kernel stays at the end: it shares the GPU with the passes wherever it runs.
  void delayed_reduction() {
    start(dp_.stage_reduction(), true);
    start(dp_.parameter_gathers(), true);
  }

  // param_gather_overlap: the parameters the previous step's optimizer updated are gathered
  // from this step's start, chunk by chunk in the order the forward passes need them, a bucket
  // (dp_bucket) at a time, as Megatron-LM's --overlap-param-gather dispatches them; the DP
  // stream runs them beside the passes and the first forward of each layer waits for its
  // bucket (forward()). The embedding comes with its chunk's first layer, the LM head with its
  // last.
  void early_gathers() {
    gathered_.resize(static_cast<size_t>(e_.chunks()));
    for (int chunk = 0; chunk < e_.chunks(); ++chunk) {
      Gathered& g = gathered_[static_cast<size_t>(chunk)];
      int n = layers(chunk);
      Bytes pending = first_virtual(chunk) ? vocabulary_parameters(true) : Bytes();
      g.through.assign(static_cast<size_t>(n) + 1, 0);
      for (int l = 0; l <= n; ++l) {
        bool last = l == n;
        pending += last ? (last_virtual(chunk) ? vocabulary_parameters(false) : Bytes())
                        : layer_parameters(plan(chunk, l));
        if (pending < bucket_ && !last) continue;
        if (pending > Bytes()) start(dp_.gathers_of(pending));
        pending = Bytes();
        // Layers back to the previous bucket's end need this bucket.
        for (int k = l; k >= 0 && g.through[static_cast<size_t>(k)] == 0; --k)
          g.through[static_cast<size_t>(k)] = dp_started_; // the first on the stream
      }
    }
  }

  /// Waits on the DP stream for its first `count` collectives (this step's early gathers).
  void wait_gathers(int count) {
    if (count <= waited_gathers_) return;
    program_.push_back(program_detail::wait_stream(GroupKind::dp, count));
    waited_gathers_ = count;
  }

  // Reduce the gradients (or wait for the DP stream that reduces them), step the optimizer on
  // them (on its shard with ZeRO), and with ZeRO-1/2 gather the updated parameters back,
  // unless the delayed update's stream gathered them already.
  void gradient_sync() {
    if (e_.dp_overlap || e_.delayed_update || e_.zero3_prefetch) {
      program_.push_back(program_detail::wait_stream(GroupKind::dp, 0));
    } else {
      std::vector<Op> ops = dp_.stage_reduction();
      program_.insert(program_.end(), ops.begin(), ops.end());
    }
    if (clips_over_dp(s_))
      program_.push_back(collective(GroupKind::dp, CollectiveOp::all_reduce, kNormBytes));
    extra_kernels(optimizer_time(s_, stage_));
    if (e_.delayed_update || e_.param_gather_overlap) return;
    std::vector<Op> gathers = dp_.parameter_gathers();
    program_.insert(program_.end(), gathers.begin(), gathers.end());
  }

  /// What every layer shares, whatever its kind: the activation it passes on, its TP and CP
  /// transfers.
  [[nodiscard]] const LayerCosts& costs() const { return plans_.front().costs; }

  const Scenario& s_;
  const ExecutionSpec& e_;
  int stage_;
  program_detail::GradientCollectives dp_;
  std::vector<LayerPlan> plans_;     ///< one per kind of the model's layers
  std::vector<int> first_layer_;     ///< each chunk's first layer, the model's index of it
  const LayerPlan* layer_ = nullptr; ///< the layer being built
  BlockTime embedding_, head_;
  Bytes bucket_; ///< dp_bucket_bytes(): a DP bucket's gradients (or parameters to gather)
  std::vector<Bytes> offloaded_; ///< offload_layers: what each offloaded layer copies, per pass
  Bytes pending_;
  /// param_gather_overlap, per chunk: the DP-stream collectives started through the bucket of
  /// each layer (`through[layers]`: of the LM head).
  struct Gathered {
    std::vector<int> through;
    [[nodiscard]] int before(int layer) const { return through[static_cast<size_t>(layer)]; }
  };
  std::vector<Gathered> gathered_;
  std::vector<char> forwarded_; ///< per chunk: whether its first forward has run
  int waited_gathers_ = 0;
  int dp_started_ = 0, gathered_through_ = 0; ///< DP-stream collectives started in all, and
                                              ///< through zero3_prefetch's next gather
  Program program_;
};

} // namespace

Op program_detail::wait_stream(GroupKind group, int count) {
  return {
      OpKind::wait_collectives, group, CollectiveOp::all_reduce, true, count, Seconds(), Bytes()};
}

Program stage_program(const Scenario& scenario, int stage, bool fold_runs, GroupKinds in_order) {
  Program fine = Builder(scenario, stage).build();
  return fold_runs ? program_detail::fold(fine, in_order) : fine;
}

} // namespace trainsim
