#include "models/pipeline_layout.hpp"

#include <cctype>
#include <numeric>

namespace trainsim {
namespace {

// A written layout expands to one symbol per layer or boundary; beyond this many the text is
// not a model's layout (and expanding it further would only spend memory).
constexpr size_t kMaxSymbols = 1'000'000;

struct Problem {
  std::string why;
};

// Expands the notation's repeats into a flat run of symbols, one pass of recursive descent.
class Expander {
public:
  explicit Expander(const std::string& text) {
    for (char c : text)
      if (c != ',' && std::isspace(static_cast<unsigned char>(c)) == 0) text_ += c;
  }

  std::string run() {
    std::string out = sequence();
    if (at_ < text_.size()) throw Problem{"has a ')' without its '('"};
    return out;
  }

private:
  std::string sequence() {
    std::string out;
    while (at_ < text_.size() && text_[at_] != ')') {
      std::string item = one_item();
      append(out, item, repeats());
    }
    return out;
  }

  std::string one_item() {
    char c = text_[at_++];
    if (c == '(') {
      std::string inner = sequence();
      if (at_ >= text_.size()) throw Problem{"has a '(' without its ')'"};
      ++at_;
      return inner;
    }
    if (c == 't' || c == 'E' || c == 'L' || c == 'm' || c == '|') return std::string(1, c);
    if (c == '*') throw Problem{"has a '*' with nothing before it to repeat"};
    throw Problem{std::string("has '") + c +
                  "', which is not in the notation (t a layer, E the embedding, L the loss, m a "
                  "multi-token-prediction module, | a stage's end, (..)*n a repeat)"};
  }

  size_t repeats() {
    if (at_ >= text_.size() || text_[at_] != '*') return 1;
    ++at_;
    size_t n = 0;
    size_t digits = 0;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) != 0) {
      n = std::min(n * 10 + static_cast<size_t>(text_[at_++] - '0'), kMaxSymbols + 1);
      ++digits;
    }
    if (digits == 0 || n == 0) throw Problem{"has a '*' without a positive count after it"};
    return n;
  }

  static void append(std::string& out, const std::string& item, size_t n) {
    if (!item.empty() && (n > kMaxSymbols || out.size() + item.size() * n > kMaxSymbols))
      throw Problem{"expands to more than a million layers and stages"};
    for (size_t i = 0; i < n; ++i) out += item;
  }

  std::string text_;
  size_t at_ = 0;
};

// One virtual stage's symbols: its layers, and where the embedding, loss and modules may sit.
void add_stage(const std::string& symbols, bool first, bool last, PipelineLayout& layout) {
  int layers = 0, embeddings = 0, losses = 0, modules = 0;
  for (size_t i = 0; i < symbols.size(); ++i) {
    switch (symbols[i]) {
    case 't':
      ++layers;
      break;
    case 'm':
      ++modules;
      break;
    case 'E':
      if (!first || i != 0)
        throw Problem{"places the embedding (E) other than first in the first virtual stage"};
      ++embeddings;
      break;
    default: // 'L'
      if (!last || i + 1 != symbols.size())
        throw Problem{"places the loss (L) other than last in the last virtual stage"};
      ++losses;
    }
  }
  if (modules > 0 && !last)
    throw Problem{"places a multi-token-prediction module (m) before the last virtual stage; "
                  "trainsim runs the modules on the last, beside the loss"};
  if (first && embeddings == 0) throw Problem{"does not begin with the embedding (E)"};
  if (last && losses == 0) throw Problem{"does not end with the loss (L)"};
  layout.layers.push_back(layers);
  layout.mtp += modules;
}

} // namespace

int PipelineLayout::total_layers() const {
  return std::accumulate(layers.begin(), layers.end(), 0);
}

ParsedLayout parse_pipeline_layout(const std::string& text) {
  ParsedLayout out;
  try {
    std::string symbols = Expander(text).run();
    std::vector<std::string> stages{""};
    for (char c : symbols) {
      if (c == '|')
        stages.emplace_back();
      else
        stages.back() += c;
    }
    for (size_t v = 0; v < stages.size(); ++v)
      add_stage(stages[v], v == 0, v + 1 == stages.size(), out.layout);
    out.layout.text = text;
  } catch (const Problem& p) {
    out.layout = {};
    out.problem = p.why;
  }
  return out;
}

} // namespace trainsim
