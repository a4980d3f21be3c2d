// A Grafana dashboard for what `rooftop monitor` exports: utilisation,
// memory, power and temperature per accelerator and per node. It reads the
// dcgm-exporter names by default, so it also works on clusters that run
// dcgm-exporter instead of rooftop.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "deploy/deploy.h"
#include "deploy/metric_names.h"
#include "deploy/yaml_out.h"

namespace rooftop::deploy {

namespace {

Tree target(const std::string& expr, const std::string& legend, char ref) {
  return Tree{{"datasource", Tree{{"type", "prometheus"}, {"uid", "${datasource}"}}},
              {"expr", expr},
              {"legendFormat", legend},
              {"refId", std::string(1, ref)}};
}

Tree panel(int id, const std::string& title, const std::string& unit, int x, int y, int w, Tree targets,
           std::optional<double> max = std::nullopt) {
  Tree defaults = Tree{{"unit", unit}};
  if (max) defaults["max"] = *max;
  defaults["min"] = 0;
  return Tree{{"id", id},
              {"type", "timeseries"},
              {"title", title},
              {"datasource", Tree{{"type", "prometheus"}, {"uid", "${datasource}"}}},
              {"gridPos", Tree{{"h", 8}, {"w", w}, {"x", x}, {"y", y}}},
              {"fieldConfig", Tree{{"defaults", defaults}, {"overrides", Tree::array()}}},
              {"options", Tree{{"legend", Tree{{"displayMode", "table"}, {"placement", "right"}, {"showLegend", true}}},
                               {"tooltip", Tree{{"mode", "multi"}, {"sort", "desc"}}}}},
              {"targets", targets}};
}

}  // namespace

std::string grafana_dashboard(const MonitorSpec& s) {
  const MetricNames& m = metric_names(s.rooftop_names);
  const std::string sel = fmt::format("{{{}=~\"$node\"}}", m.host_label);
  const std::string per_gpu = fmt::format("{{{{{}}}}} gpu {{{{gpu}}}}", m.host_label);
  const std::string per_node = fmt::format("{{{{{}}}}}", m.host_label);
  // Utilisation and memory are shown as 0..1 ratios whichever name set is used.
  const std::string util = fmt::format("{}{} / {}", m.gpu_util, sel, m.util_full_scale);
  const std::string copy = fmt::format("{}{} / {}", m.mem_copy_util, sel, m.util_full_scale);
  const std::string mem = fmt::format("{0}{2} / ({0}{2} + {1}{2})", m.fb_used, m.fb_free, sel);
  const std::string power_unit = "watt";
  Tree panels = Tree::array({
      panel(1, "Utilisation per accelerator", "percentunit", 0, 0, 12, Tree::array({target(util, per_gpu, 'A')}), 1.0),
      panel(2, "Utilisation per node (mean)", "percentunit", 12, 0, 12,
            Tree::array({target(fmt::format("avg by ({}) ({})", m.host_label, util), per_node, 'A')}), 1.0),
      panel(3, "Memory used per accelerator", "percentunit", 0, 8, 12, Tree::array({target(mem, per_gpu, 'A')}), 1.0),
      panel(4, "Memory used per node (max)", "percentunit", 12, 8, 12,
            Tree::array({target(fmt::format("max by ({}) ({})", m.host_label, mem), per_node, 'A')}), 1.0),
      panel(5, "Power per accelerator", power_unit, 0, 16, 12,
            Tree::array({target(m.power + sel, per_gpu, 'A')})),
      panel(6, "Power per node (sum)", power_unit, 12, 16, 12,
            Tree::array({target(fmt::format("sum by ({}) ({}{})", m.host_label, m.power, sel), per_node, 'A')})),
      panel(7, "Temperature per accelerator", "celsius", 0, 24, 12, Tree::array({target(m.temp + sel, per_gpu, 'A')})),
      panel(8, "Temperature per node (max)", "celsius", 12, 24, 12,
            Tree::array({target(fmt::format("max by ({}) ({}{})", m.host_label, m.temp, sel), per_node, 'A')})),
      panel(9, "Memory-copy (bandwidth) utilisation per accelerator", "percentunit", 0, 32, 24,
            Tree::array({target(copy, per_gpu, 'A')}), 1.0),
  });
  Tree templating = Tree{{"list", Tree::array({
      Tree{{"name", "datasource"}, {"type", "datasource"}, {"query", "prometheus"}, {"label", "Data source"},
           {"current", Tree::object()}, {"hide", 0}},
      Tree{{"name", "node"}, {"type", "query"}, {"label", "Node"},
           {"datasource", Tree{{"type", "prometheus"}, {"uid", "${datasource}"}}},
           {"query", fmt::format("label_values({}, {})", m.gpu_util, m.host_label)},
           {"refresh", 2}, {"multi", true}, {"includeAll", true}, {"allValue", ".*"},
           {"current", Tree::object()}, {"hide", 0}},
  })}};
  Tree dash = Tree{{"uid", s.rooftop_names ? "rooftop-accel-rt" : "rooftop-accel"},
                   {"title", "rooftop — accelerators"},
                   {"tags", Tree::array({"rooftop", "gpu", "accelerators"})},
                   {"timezone", "browser"},
                   {"editable", true},
                   {"refresh", "30s"},
                   {"schemaVersion", 39},
                   {"version", 1},
                   {"time", Tree{{"from", "now-6h"}, {"to", "now"}}},
                   {"templating", templating},
                   {"annotations", Tree{{"list", Tree::array()}}},
                   {"panels", panels}};
  return dash.dump(2) + "\n";
}

}  // namespace rooftop::deploy
