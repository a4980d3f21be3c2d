// Result<T> and Error: the one error style of rooftop (see STYLE.md).
//
// Expected failures (bad input files, unknown ids, a vendor call that
// failed) travel as values: a function returns Result<T>, which holds either
// a T or an Error. The API is the subset of C++23 std::expected we use, so
// switching to it later is a one-line change of the alias. Broken invariants
// are not errors: they use ROOFTOP_ASSERT and abort.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace rooftop {

// What kind of failure; app/ maps kinds to exit codes (invalid_input,
// not_found, unsupported -> 2; io and internal -> 1).
enum class Errc {
  invalid_input,  // malformed file or flag value, impossible constraint
  not_found,      // unknown id, missing file
  unsupported,    // e.g. a precision the device does not have
  io,             // could not read/write/connect
  internal,       // a bug or a failure we did not expect
};

struct Error {
  Errc code = Errc::internal;
  std::string message;  // what is wrong, in words a user understands
  std::string context;  // where in the *input*: "file.yaml:12", "--batch", ""

  // "context: message", or the message alone.
  std::string what() const { return context.empty() ? message : context + ": " + message; }
};

// Wraps an Error to construct a failed Result, like std::unexpected.
struct Unexpected {
  Error error;
};

inline Unexpected make_error(Errc code, std::string message, std::string context = {}) {
  return Unexpected{Error{code, std::move(message), std::move(context)}};
}
inline Unexpected make_error(Error e) { return Unexpected{std::move(e)}; }

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(const T& v) : v_(std::in_place_index<0>, v) {}  // NOLINT(implicit)
  Expected(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT(implicit)
  Expected(Unexpected u) : v_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT(implicit)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { check(); return std::get<0>(v_); }
  const T& value() const& { check(); return std::get<0>(v_); }
  T&& value() && { check(); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    if (has_value()) bad_access("error() on a value");
    return std::get<1>(v_);
  }
  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!has_value()) bad_access(std::get<1>(v_).what().c_str());
  }
  [[noreturn]] static void bad_access(const char* what) {
    std::fprintf(stderr, "rooftop: internal error: value() on a failed Result: %s\n", what);
    std::abort();
  }
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Unexpected u) : err_(std::move(u.error)), ok_(false) {}  // NOLINT(implicit)
  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return err_; }
  void value() const {
    if (!ok_) {
      std::fprintf(stderr, "rooftop: internal error: value() on a failed Result: %s\n", err_.what().c_str());
      std::abort();
    }
  }

 private:
  Error err_;
  bool ok_ = true;
};

template <typename T>
using Result = Expected<T>;

}  // namespace rooftop

// Aborts with file:line when an invariant of *our* code is broken.
#define ROOFTOP_ASSERT(cond)                                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "rooftop: assertion failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

// Propagates a failed Result out of the enclosing function.
#define ROOFTOP_TRY(expr)                                  \
  do {                                                     \
    auto&& rooftop_try_r_ = (expr);                        \
    if (!rooftop_try_r_) return ::rooftop::make_error(rooftop_try_r_.error()); \
  } while (0)
