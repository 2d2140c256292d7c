#include "models/error.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace trainsim {
namespace {

// A line never shows an empty key path (" = '': ..."): without a key it names the value alone.
std::string input_line(std::string_view file, std::string_view key, std::string_view value,
                       std::string_view problem) {
  std::ostringstream line;
  line << file << ": ";
  if (!key.empty())
    line << key << " = '" << value << "': ";
  else if (!value.empty())
    line << "'" << value << "': ";
  line << problem;
  return line.str();
}

// Case is the cheapest typo to make ("TP" for "tp"), so it costs nothing here.
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitution = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

} // namespace

InputError::InputError(std::string_view file, std::string_view key, std::string_view value,
                       std::string_view problem)
    : Error(ExitCode::input, input_line(file, key, value, problem)) {}

InputError::InputError(std::string_view file, std::string_view problem)
    : Error(ExitCode::input, std::string(file) + ": " + std::string(problem)) {}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1; // beyond this it is not a typo
  for (const auto& candidate : candidates) {
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best = closest_match(word, candidates);
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

} // namespace trainsim
