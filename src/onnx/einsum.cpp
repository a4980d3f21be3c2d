// FLOPs of an ONNX Einsum from its equation ("bhqd,bhkd->bhqk") and input
// shapes. The cost is that of the direct evaluation over the full index
// space (every letter, plus broadcast "..." dimensions): each point takes
// (operands - 1) multiplies, plus one add when some index is summed over.
// For two operands with a contraction that is the usual 2 x M x N x K.
#include <algorithm>
#include <cctype>
#include <map>

#include "onnx/graph.h"

namespace rooftop::onnx::detail {

namespace {

struct Term {
  std::string letters;
  bool ellipsis = false;
  std::size_t ellipsis_at = 0;  // letters before "..."
};

std::optional<Term> parse_term(std::string_view s) {
  Term t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 3) == "...") {
      if (t.ellipsis) return std::nullopt;
      t.ellipsis = true;
      t.ellipsis_at = t.letters.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
    } else {
      return std::nullopt;
    }
  }
  return t;
}

}  // namespace

std::optional<EinsumCost> einsum_cost(std::string_view equation, const std::vector<const Dims*>& inputs) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  std::size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = lhs.find(',', start);
    std::optional<Term> t = parse_term(std::string_view(lhs).substr(start, comma - start));
    if (!t) return std::nullopt;
    terms.push_back(*t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != inputs.size() || inputs.empty()) return std::nullopt;

  std::map<char, double> size;
  std::map<char, int> uses;
  std::vector<double> broadcast;  // "..." dimensions, right-aligned
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const Dims* d = inputs[i];
    const Term& t = terms[i];
    if (!d || d->size() < t.letters.size() || (!t.ellipsis && d->size() != t.letters.size())) return std::nullopt;
    std::size_t ell = d->size() - t.letters.size();
    const std::size_t before = t.ellipsis_at;
    std::size_t dim = 0;
    for (std::size_t k = 0; k < t.letters.size(); ++k) {
      if (t.ellipsis && k == before) dim += ell;  // skip the broadcast dimensions
      double v = (*d)[dim++];
      char c = t.letters[k];
      ++uses[c];
      auto it = size.find(c);
      if (it == size.end() || it->second == 1) {
        size[c] = v;
      } else if (v != 1 && v != it->second) {
        return std::nullopt;
      }
    }
    if (t.ellipsis) {
      if (broadcast.size() < ell) broadcast.insert(broadcast.begin(), ell - broadcast.size(), 1.0);
      for (std::size_t k = 0; k < ell; ++k) {
        double v = (*d)[before + k];
        double& b = broadcast[broadcast.size() - ell + k];
        b = std::max(b, v);
      }
    }
  }

  std::string out_letters;
  if (arrow != std::string::npos) {
    std::optional<Term> out = parse_term(std::string_view(eq).substr(arrow + 2));
    if (!out) return std::nullopt;
    out_letters = out->letters;
    for (char c : out_letters) {
      if (!size.count(c)) return std::nullopt;
    }
  } else {
    for (const auto& [c, n] : uses) {
      if (n == 1) out_letters += c;
    }
  }
  EinsumCost cost;
  double full = 1;
  for (const auto& [c, s] : size) {
    full *= s;
    if (out_letters.find(c) == std::string::npos) cost.contracts = true;
  }
  for (double b : broadcast) full *= b;
  // Output: "..." dimensions where the output names them (first when implicit), then its letters.
  std::size_t out_ell = std::string::npos;
  if (arrow != std::string::npos) {
    std::size_t dots = eq.find("...", arrow + 2);
    if (dots != std::string::npos) out_ell = std::count_if(eq.begin() + static_cast<std::ptrdiff_t>(arrow) + 2,
                                                           eq.begin() + static_cast<std::ptrdiff_t>(dots),
                                                           [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  } else if (!broadcast.empty()) {
    out_ell = 0;
  }
  for (std::size_t k = 0; k <= out_letters.size(); ++k) {
    if (k == out_ell) cost.out_dims.insert(cost.out_dims.end(), broadcast.begin(), broadcast.end());
    if (k < out_letters.size()) cost.out_dims.push_back(size[out_letters[k]]);
  }
  cost.flops = (static_cast<double>(inputs.size()) - 1) * full + (cost.contracts ? full : 0);
  return cost;
}

}  // namespace rooftop::onnx::detail
