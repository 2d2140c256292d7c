// Physical quantities as types. Values are stored in SI base units (seconds, bytes, FLOP)
// and converted from strings with units only at the input boundary (parse_* below).
#pragma once

#include <compare>
#include <string>
#include <utility>
#include <string_view>

namespace trainsim {

template <class Tag>
class Quantity {
public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double si) : value_(si) {}
  /// The value in SI base units of the quantity (s, B, FLOP, FLOP/s, B/s).
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value_ -= o.value_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) {
    return Quantity(a.value_ + b.value_);
  }
  friend constexpr Quantity operator-(Quantity a, Quantity b) {
    return Quantity(a.value_ - b.value_);
  }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.value_ / k); }
  /// A ratio of two like quantities is a plain number.
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value_ / b.value_; }
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>'s 0
  friend constexpr auto operator<=>(Quantity, Quantity) = default;

private:
  double value_ = 0.0;
};

using Seconds = Quantity<struct SecondsTag>;
using Bytes = Quantity<struct BytesTag>;
using Flop = Quantity<struct FlopTag>;
using FlopPerSecond = Quantity<struct FlopPerSecondTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond r) { return Seconds(b.value() / r.value()); }
constexpr Seconds operator/(Flop f, FlopPerSecond r) { return Seconds(f.value() / r.value()); }
constexpr Bytes operator*(BytesPerSecond r, Seconds t) { return Bytes(r.value() * t.value()); }
constexpr Flop operator*(FlopPerSecond r, Seconds t) { return Flop(r.value() * t.value()); }
constexpr FlopPerSecond operator/(Flop f, Seconds t) {
  return FlopPerSecond(f.value() / t.value());
}
constexpr BytesPerSecond operator/(Bytes b, Seconds t) {
  return BytesPerSecond(b.value() / t.value());
}

namespace literals {
constexpr Seconds operator""_s(long double v) { return Seconds(static_cast<double>(v)); }
constexpr Seconds operator""_us(long double v) { return Seconds(static_cast<double>(v) * 1e-6); }
constexpr Bytes operator""_B(long double v) { return Bytes(static_cast<double>(v)); }
constexpr Bytes operator""_GB(long double v) { return Bytes(static_cast<double>(v) * 1e9); }
constexpr BytesPerSecond operator""_GBps(long double v) {
  return BytesPerSecond(static_cast<double>(v) * 1e9);
}
} // namespace literals

// Parsers accept a number followed by a unit, e.g. "2us", "80GB", "80GiB", "450GBps",
// "400Gbps", "989TFLOPS", "1e25FLOP". Decimal prefixes are powers of 1000, binary
// prefixes (Ki, Mi, Gi, Ti) powers of 1024; "b" is bits and "B" bytes. They throw
// std::invalid_argument naming the text and the units they accept; callers that know
// the file and key rethrow as InputError.
Seconds parse_seconds(std::string_view text);
Bytes parse_bytes(std::string_view text);
BytesPerSecond parse_bandwidth(std::string_view text);
FlopPerSecond parse_flop_rate(std::string_view text);
Flop parse_flop(std::string_view text);

// Short human forms with an SI prefix: "2.23 ms", "80 GB", "450 GB/s", "989 TFLOP/s".
/// Three significant digits in the unit a person reads: ns, us, ms and s below a minute, then
/// min, h, days and years (never "7.78 Ms").
std::string format(Seconds t);
/// `a` and `b` formatted alike with as many digits as it takes to tell them apart (up to 9),
/// so that "needs 109.2 ms, budget 109.1 ms" shows why one exceeds the other.
std::pair<std::string, std::string> format_apart(Seconds a, Seconds b);
std::string format(Bytes b);
std::string format(BytesPerSecond r);
std::string format(FlopPerSecond r);
std::string format(Flop f);

} // namespace trainsim
