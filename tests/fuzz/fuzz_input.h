// What every parser fuzz target (tests/fuzz/*_fuzz.cpp) shares: the input as
// text, and the one way a target reports a broken invariant (abort, which
// libFuzzer records with the input that caused it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rooftop::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` when `ok` is false.
inline void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// True when `r` holds a value; else checks that its Error says why.
template <class R>
bool explained(const R& r) {
  if (r) return true;
  check(!r.error().message.empty(), "an error says why");
  return false;
}

}  // namespace rooftop::fuzz
