// rooftop._native: the Python binding of the jobs the CLI runs (app/jobs.h).
// Each function takes the command's options, releases the GIL while the
// model works, and returns the JSON text the command's --json prints;
// python/rooftop/__init__.py parses it into plain Python objects. A failure
// raises rooftop.Error with the message the CLI prints after "rooftop: error: ".
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command.h"
#include "core/result.h"
#include "core/yaml.h"
#include "inputs.h"
#include "jobs.h"

namespace py = pybind11;

namespace rooftop::python {
namespace {

// A failed job, carried out of the GIL-free section to the translator below.
struct Failure {
  Error error;
};

const char* code_name(Errc c) {
  switch (c) {
    case Errc::invalid_input: return "invalid_input";
    case Errc::not_found: return "not_found";
    case Errc::unsupported: return "unsupported";
    case Errc::io: return "io";
    case Errc::internal: return "internal";
  }
  return "internal";
}

template <typename T>
T take(Result<T>&& r) {
  if (!r) throw Failure{r.error()};
  return std::move(*r);
}

app::GlobalOptions global_options(const std::vector<std::string>& overlays) {
  app::GlobalOptions g;
  g.catalog_paths = overlays;
  g.quiet = true;
  return g;
}

// Runs `job` (which returns the JSON text) without the GIL.
template <typename Job>
std::string without_gil(Job&& job) {
  py::gil_scoped_release release;
  return job();
}

std::string predict(std::string model, std::string accelerator, int count, std::string task, std::string precision,
                    std::optional<std::string> scenario, std::string latency_target, std::string plan,
                    std::string trace, std::optional<double> rate, std::optional<int> requests, double chunk_tokens,
                    std::optional<int> batch, std::optional<int> input_tokens, std::optional<int> output_tokens,
                    std::optional<int> seq, std::optional<int> global_batch, std::string kv_cache, bool to_target,
                    bool lora, int grad_accumulation, double straggler_cv, std::vector<std::string> overlays) {
  app::PredictOptions o;
  o.model = std::move(model);
  o.accelerator = std::move(accelerator);
  o.count = count;
  o.task = std::move(task);
  o.precision = std::move(precision);
  o.scenario_given = scenario.has_value();
  if (scenario) o.scenario = *scenario;
  o.latency_target = std::move(latency_target);
  o.plan = std::move(plan);
  o.trace = std::move(trace);
  o.rate = rate;
  o.requests = requests;
  o.chunk_tokens = chunk_tokens;
  o.batch = batch;
  o.input_tokens = input_tokens;
  o.output_tokens = output_tokens;
  o.seq = seq;
  o.global_batch = global_batch;
  o.kv_cache = std::move(kv_cache);
  o.to_target = to_target;
  o.lora = lora;
  o.grad_accumulation = grad_accumulation;
  o.straggler_cv = straggler_cv;
  const app::GlobalOptions g = global_options(overlays);
  return without_gil([&] { return app::prediction_json(take(app::run_prediction(o, g))).dump(); });
}

std::string catalog_list(std::string kind, std::string vendor, std::vector<std::string> overlays) {
  const app::GlobalOptions g = global_options(overlays);
  return without_gil([&] {
    catalog::Catalog cat = take(app::load_catalog(g));
    return app::catalog_list_json(take(app::select_accelerators(cat, kind, vendor))).dump();
  });
}

std::string catalog_show(std::string id, std::vector<std::string> overlays) {
  const app::GlobalOptions g = global_options(overlays);
  return without_gil([&] {
    catalog::Catalog cat = take(app::load_catalog(g));
    return app::accelerator_json(*take(cat.get(id))).dump();
  });
}

std::string workload_show(std::string model, int batch, std::optional<int> seq, std::optional<int> input_tokens,
                          std::optional<int> output_tokens, std::optional<int> image_size, std::string precision,
                          std::string task, std::vector<std::string> inputs) {
  app::WorkloadShowOptions o;
  o.model = std::move(model);
  o.batch = batch;
  o.seq = seq;
  o.input_tokens = input_tokens;
  o.output_tokens = output_tokens;
  o.image_size = image_size;
  o.precision = std::move(precision);
  o.task = std::move(task);
  o.onnx_inputs = std::move(inputs);
  return without_gil([&] { return take(app::workload_show_json(o)).dump(); });
}

std::string workload_list() {
  return without_gil([] { return take(app::workload_list_json()).dump(); });
}

std::string validate(std::vector<std::string> files, std::vector<std::string> overlays) {
  // The CLI requires a file (its argument is required).
  if (files.empty()) throw Failure{{Errc::invalid_input, "give at least one measurement CSV", "validate"}};
  const app::GlobalOptions g = global_options(overlays);
  return without_gil([&] { return app::validation_json(take(app::run_validation(files, g))).dump(); });
}

// `text` is the scenario (YAML or JSON), `name` the input messages cite.
std::string advise(std::string text, std::string name, long top, std::vector<std::string> overlays) {
  if (top < 1) throw Failure{{Errc::invalid_input, "must be a positive number of candidates", "--top"}};
  const app::GlobalOptions g = global_options(overlays);
  return without_gil([&] {
    app::AdviseOutcome r = take(app::run_advice(text, name, g));
    if (r.advice.candidates.empty()) throw Failure{app::nothing_feasible_error(r, name)};
    return app::advice_json(r, static_cast<std::size_t>(top)).dump();
  });
}

std::string read_text(std::string path) {
  return without_gil([&] { return take(read_file(path)); });
}

}  // namespace
}  // namespace rooftop::python

PYBIND11_MODULE(_native, m) {
  using namespace rooftop::python;
  m.doc() = "rooftop's C++ jobs (the ones the CLI runs); use the rooftop package, not this module.";
  // The type lives as long as the interpreter (a handle: no reference is
  // dropped after it has shut down).
  static py::handle error = py::exception<Failure>(m, "Error").release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Failure& f) {
      py::object e = error(f.error.what());
      e.attr("message") = f.error.message;
      e.attr("context") = f.error.context;
      e.attr("code") = code_name(f.error.code);
      e.attr("exit_code") = rooftop::app::exit_code_for(f.error.code);
      PyErr_SetObject(error.ptr(), e.ptr());
    }
  });
  m.def("predict", &predict, py::arg("model"), py::arg("accelerator"), py::arg("count"), py::arg("task"),
        py::arg("precision"), py::arg("scenario"), py::arg("latency_target"), py::arg("plan"), py::arg("trace"),
        py::arg("rate"), py::arg("requests"), py::arg("chunk_tokens"), py::arg("batch"), py::arg("input_tokens"),
        py::arg("output_tokens"), py::arg("seq"), py::arg("global_batch"), py::arg("kv_cache"), py::arg("to_target"),
        py::arg("lora"), py::arg("grad_accumulation"), py::arg("straggler_cv"), py::arg("overlays"));
  m.def("catalog_list", &catalog_list, py::arg("kind"), py::arg("vendor"), py::arg("overlays"));
  m.def("catalog_show", &catalog_show, py::arg("id"), py::arg("overlays"));
  m.def("workload_show", &workload_show, py::arg("model"), py::arg("batch"), py::arg("seq"), py::arg("input_tokens"),
        py::arg("output_tokens"), py::arg("image_size"), py::arg("precision"), py::arg("task"), py::arg("inputs"));
  m.def("workload_list", &workload_list);
  m.def("validate", &validate, py::arg("files"), py::arg("overlays"));
  m.def("advise", &advise, py::arg("text"), py::arg("name"), py::arg("top"), py::arg("overlays"));
  m.def("read_text", &read_text, py::arg("path"));
}
