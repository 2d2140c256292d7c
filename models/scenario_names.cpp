// The names of a scenario's enumerated settings (models/scenario.hpp) as scenario files and
// reports write them; the loader reads the same words (models/execution_keys.cpp,
// models/model_keys.cpp).
#include "models/scenario.hpp"

namespace trainsim {

std::string to_string(PipelineSchedule s) {
  switch (s) {
  case PipelineSchedule::gpipe:
    return "gpipe";
  case PipelineSchedule::one_f_one_b:
    return "1f1b";
  case PipelineSchedule::interleaved:
    return "interleaved";
  case PipelineSchedule::dualpipev:
    return "dualpipev";
  }
  return "?";
}
std::string to_string(ModelKind k) { return k == ModelKind::mlp ? "mlp" : "transformer"; }
std::string to_string(AttentionKernel a) {
  switch (a) {
  case AttentionKernel::flash:
    return "flash";
  case AttentionKernel::unfused:
    return "unfused";
  case AttentionKernel::cudnn:
    return "cudnn";
  }
  return "?";
}
std::string to_string(Fp8Recipe r) {
  switch (r) {
  case Fp8Recipe::none:
    return "none";
  case Fp8Recipe::tensorwise:
    return "tensorwise";
  case Fp8Recipe::delayed:
    return "delayed";
  case Fp8Recipe::blockwise:
    return "blockwise";
  case Fp8Recipe::mxfp8:
    return "mxfp8";
  }
  return "?";
}
std::string to_string(ComputeModel c) {
  return c == ComputeModel::roofline ? "roofline" : "operators";
}
std::string to_string(Recompute r) {
  switch (r) {
  case Recompute::none:
    return "none";
  case Recompute::full:
    return "full";
  case Recompute::selective:
    return "selective";
  }
  return "?";
}

} // namespace trainsim
