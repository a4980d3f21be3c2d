// One constexpr table per enum: each value with its one spelling. Parsing,
// to_string, the list of allowed values in an error and in --help are all
// derived from it, so a value is spelt in exactly one place.
//
//   inline constexpr EnumName<Names> kNameSets[] = {{Names::dcgm, "dcgm"}, {Names::rooftop, "rooftop"}};
//   enum_name(kNameSets, Names::dcgm)   -> "dcgm"
//   enum_parse(kNameSets, "rooftop")    -> Names::rooftop
//   enum_choices(kNameSets)             -> "dcgm or rooftop"
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rooftop {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
constexpr std::string_view enum_name(const EnumName<E> (&table)[N], E value) {
  for (const EnumName<E>& e : table) {
    if (e.value == value) return e.name;
  }
  return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> enum_parse(const EnumName<E> (&table)[N], std::string_view text) {
  for (const EnumName<E>& e : table) {
    if (e.name == text) return e.value;
  }
  return std::nullopt;
}

template <class E, std::size_t N>
std::vector<std::string> enum_names(const EnumName<E> (&table)[N]) {
  std::vector<std::string> out;
  for (const EnumName<E>& e : table) out.emplace_back(e.name);
  return out;
}

// "a, b or c" (with `sep` between all but the last two).
template <class E, std::size_t N>
std::string enum_choices(const EnumName<E> (&table)[N], std::string_view last = " or ", std::string_view sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i) out += i + 1 == N ? last : sep;
    out += table[i].name;
  }
  return out;
}

// True when every value 0..count-1 of a dense enum has exactly one row:
// static_assert(enum_table_complete(kTable, std::size_t(E::last) + 1)).
template <class E, std::size_t N>
constexpr bool enum_table_complete(const EnumName<E> (&table)[N], std::size_t count) {
  if (N != count) return false;
  for (std::size_t v = 0; v < count; ++v) {
    std::size_t seen = 0;
    for (const EnumName<E>& e : table) seen += static_cast<std::size_t>(e.value) == v ? 1 : 0;
    if (seen != 1) return false;
  }
  return true;
}

}  // namespace rooftop
