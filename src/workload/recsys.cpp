// DLRM-style recommendation models (Naumov et al., arXiv:1906.00091; DCNv2
// interaction, Wang et al., arXiv:2008.13535): embedding tables gathered and
// sum-pooled per feature, a bottom MLP on the dense features, a feature
// interaction (DCNv2 low-rank cross layers or pairwise dot products) and a
// top MLP. One sample aggregates `pairs_per_sample` user-item pairs (MLPerf
// Inference dlrm-v2). Tables are read row by row: weight_elems_per_sample.
#include <cstdio>
#include <numeric>

#include "workload/builders.h"
#include "workload/ops.h"

namespace rooftop::workload::detail {

namespace {

void mlp(Net& net, const std::string& name, double in, const std::vector<long long>& widths, double pairs) {
  for (std::size_t i = 0; i < widths.size(); ++i) {
    double out = double(widths[i]);
    std::string layer = name + "." + std::to_string(i);
    net.linear(layer, in, out, pairs);
    net.act(layer + ".act", {out * pairs, 1, 1}, 1);
    in = out;
  }
}

}  // namespace

std::optional<Workload> build_dlrm_yaml(YamlMap& m, const BuildOptions& opts) {
  std::size_t before = m.diagnostics()->errors.size();
  double dim = double(m.integer("embedding_dim", true, 1, 1 << 16).value_or(1));
  std::vector<long long> rows = int_list(m, "tables", true, 1);
  std::vector<long long> hots = int_list(m, "lookups", false, 1);
  double dense = double(m.integer("dense_features", true, 0, 1 << 20).value_or(0));
  std::vector<long long> bottom = int_list(m, "bottom_mlp", true, 1);
  std::vector<long long> top = int_list(m, "top_mlp", true, 1);
  std::string interaction = m.choice("interaction", {"dcn", "dot"}, true).value_or("dot");
  double dcn_layers = double(m.integer("dcn_layers", false, 1, 64).value_or(3));
  double dcn_rank = double(m.integer("dcn_rank", false, 1, 1 << 16).value_or(512));
  double pairs = m.num("pairs_per_sample", false, 1, 1e9).value_or(1);
  if (opts.pairs_per_sample) pairs = *opts.pairs_per_sample;
  m.finish();
  if (hots.empty()) hots.assign(rows.size(), 1);
  if (!rows.empty() && hots.size() != rows.size()) m.error("'lookups' must have one entry per table");
  if (!bottom.empty() && double(bottom.back()) != dim) m.error("bottom_mlp must end at embedding_dim");
  if (m.diagnostics()->errors.size() > before || rows.empty() || top.empty()) return std::nullopt;
  if (opts.seq_len || opts.input_tokens || opts.output_tokens || opts.image_size) {
    m.error("a recommendation model has no sequence or image shape to change");
    return std::nullopt;
  }

  Workload w;
  w.family = Family::recsys;
  w.pairs_per_sample = pairs;
  Net net(w.ops, Phase::forward);
  const double tables = double(rows.size());
  const double all_rows = std::accumulate(rows.begin(), rows.end(), 0.0);
  const double lookups = std::accumulate(hots.begin(), hots.end(), 0.0);
  // Gather + sum pooling of the multi-hot rows of every table.
  Operator& emb = add_op(w.ops, "embeddings", OpKind::embedding, Phase::forward, lookups * dim * pairs,
                         all_rows * dim, dense * pairs, tables * dim * pairs);
  emb.weight_elems_per_sample = lookups * dim * pairs;
  mlp(net, "bottom_mlp", dense, bottom, pairs);
  double features = (tables + 1) * dim;
  double top_in = features;
  if (interaction == "dcn") {
    net.concat("interaction.concat", {tables * dim * pairs, 1, 1}, {dim * pairs, 1, 1});
    for (int l = 0; l < int(dcn_layers); ++l) {
      std::string name = "interaction.cross" + std::to_string(l);
      net.linear(name + ".v", features, dcn_rank, pairs, false);
      net.linear(name + ".u", dcn_rank, features, pairs, true);
      // x0 * (U V x) + x: a multiply and an add per feature.
      add_op(w.ops, name + ".mix", OpKind::elementwise, Phase::forward, 2 * features * pairs, 0,
             3 * features * pairs, features * pairs);
    }
  } else {
    // Pairwise dot products of the (tables + 1) vectors, lower triangle kept.
    double n = tables + 1, kept = n * (n - 1) / 2;
    add_op(w.ops, "interaction.dot", OpKind::matmul, Phase::forward, 2 * n * n * dim * pairs, 0,
           n * dim * pairs, kept * pairs);
    top_in = dim + kept;
  }
  mlp(net, "top_mlp", top_in, top, pairs);
  w.params = sum_params(w.ops);
  w.active_params = w.params;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", pairs);
  w.sample = std::string("one query of ") + buf + " user-item pairs (" + std::to_string(rows.size()) +
             " sparse features, " + std::to_string(int(lookups)) + " embedding lookups per pair)";
  w.activation_elems_per_sample = peak_activation_elems(w.ops);
  w.train_activation_elems_per_sample = saved_activation_elems(w.ops);
  return w;
}

}  // namespace rooftop::workload::detail
