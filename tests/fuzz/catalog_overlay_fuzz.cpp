// A --catalog overlay (catalog/catalog.h layer_catalog) over a real
// embedded entry (one: each run parses it again). The input is one or more overlay files separated by a
// line "#----", in layers separated by a line "#====": entries replace
// embedded ones by id, duplicate ids and clashing aliases are errors. A
// catalog that loads answers get() for each of its ids and aliases, and
// match_reported_name() for the input's first line, without crashing.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "fuzz_input.h"

using rooftop::catalog::SourceText;
using rooftop::fuzz::check;

namespace {

const std::vector<SourceText>& base() {
  static const std::vector<SourceText> kBase = [] {
    std::vector<SourceText> out;
    for (SourceText& s : rooftop::catalog::embedded_sources()) {
      if (s.name.find("nvidia-a100-sxm4-80gb") != std::string::npos) out.push_back(std::move(s));
    }
    return out;
  }();
  return kBase;
}

std::vector<std::string> split_on(std::string_view in, std::string_view sep) {
  std::vector<std::string> out;
  for (;;) {
    const auto at = in.find(sep);
    out.emplace_back(in.substr(0, at));
    if (at == std::string_view::npos) return out;
    in.remove_prefix(at + sep.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(base().size() == 1, "the base entry is embedded");
  const std::string_view in = rooftop::fuzz::text(data, size);
  std::vector<std::vector<SourceText>> layers;
  int n = 0;
  for (const std::string& layer : split_on(in, "\n#====\n")) {
    layers.emplace_back();
    for (std::string& file : split_on(layer, "\n#----\n"))
      layers.back().push_back(SourceText{"fuzz/overlay" + std::to_string(++n) + ".yaml", std::move(file)});
  }
  auto cat = rooftop::catalog::layer_catalog(base(), layers);
  if (!rooftop::fuzz::explained(cat)) return 0;
  check(cat->accelerators.size() >= base().size(), "an overlay replaces or adds, never removes");
  for (const auto& a : cat->accelerators) {
    auto got = cat->get(a.id);
    check(got && (*got)->id == a.id, "every id resolves to its entry");
    for (const std::string& alias : a.aliases) check(cat->get(alias).has_value(), "every alias resolves");
  }
  cat->match_reported_name(in.substr(0, std::min<std::size_t>(in.find('\n'), 200)));
  return 0;
}
