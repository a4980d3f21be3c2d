"""rooftop's Python module against the CLI: each function returns what the
command's --json prints for the same inputs, and bad input raises
rooftop.Error with the CLI's message and exit code."""
import os
import threading

import pytest
import rooftop

compares = pytest.mark.compares

H100 = "nvidia-h100-sxm5-80gb"


def assert_same_error(excinfo, cli_error):
    code, message = cli_error
    assert str(excinfo.value) == message
    assert excinfo.value.exit_code == code
    assert excinfo.value.code in {"invalid_input", "not_found", "unsupported", "io", "internal"}


# ---- predict ---------------------------------------------------------------

@compares("predict")
def test_predict_default_matches_cli(cli):
    p = rooftop.predict("llama-3.1-8b", H100)
    assert p == cli.json("predict", "--model", "llama-3.1-8b", "--accelerator", H100, "--json")
    assert p.throughput.value > 0 and p.throughput.unit == p["throughput"]["unit"]
    assert isinstance(p, rooftop.Prediction) and isinstance(p.memory, rooftop.Record)


@compares("predict")
def test_predict_training_plan_matches_cli(cli):
    kw = dict(count=16, task="train", precision="bf16", plan="tp=2,pp=2", batch=2, seq=2048, straggler_cv=0.05)
    p = rooftop.predict("llama-2-7b", "nvidia-a100-sxm4-80gb", **kw)
    assert p == cli.json("predict", "--model", "llama-2-7b", "--accelerator", "nvidia-a100-sxm4-80gb", "--count", "16",
                         "--task", "train", "--precision", "bf16", "--plan", "tp=2,pp=2", "--batch", "2",
                         "--seq", "2048", "--straggler-cv", "0.05", "--json")
    assert p.parallelism.tensor == 2 and p.parallelism.pipeline == 2


@compares("predict")
def test_predict_model_file_matches_cli(cli, src):
    path = os.path.join(src, "data", "models", "bert-base.yaml")
    got = rooftop.predict(path, H100, precision="fp16", batch=8)
    assert got == cli.json("predict", "--model", path, "--accelerator", H100, "--precision", "fp16", "--batch", "8",
                           "--json")


@compares("predict")
def test_predict_operators_to_pandas():
    pandas = pytest.importorskip("pandas")
    p = rooftop.predict("resnet50", "nvidia-t4")
    df = p.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(p.per_op) and {"name", "time_s", "bound"} <= set(df.columns)


@compares("predict")
@pytest.mark.parametrize("kwargs,flags", [
    (dict(accelerator="no-such-gpu"), ["--accelerator", "no-such-gpu"]),
    (dict(task="fly"), ["--task", "fly"]),
    (dict(precision="fp3"), ["--precision", "fp3"]),
    (dict(plan="tp=banana"), ["--plan", "tp=banana"]),
    (dict(scenario="sometimes"), ["--scenario", "sometimes"]),
    (dict(rate=-1.0), ["--rate", "-1"]),
    (dict(kv_cache="wide"), ["--kv-cache", "wide"]),
    (dict(count=0), ["--count", "0"]),
    (dict(lora=True), ["--lora"]),
    (dict(model="no-such-model"), []),
    (dict(trace="/nonexistent/trace.csv"), ["--trace", "/nonexistent/trace.csv"]),
])
def test_predict_bad_input_raises_the_cli_message(cli, kwargs, flags):
    model = kwargs.pop("model", "llama-3.1-8b")
    accelerator = kwargs.pop("accelerator", H100)
    with pytest.raises(rooftop.Error) as e:
        rooftop.predict(model, accelerator, **kwargs)
    args = ["predict", "--model", model]
    if "--accelerator" not in flags:
        args += ["--accelerator", accelerator]
    assert_same_error(e, cli.error(*args, *flags))


# ---- the server simulation -------------------------------------------------

@compares("serve")
def test_serve_matches_cli(cli):
    s = rooftop.serve("llama-3.1-8b", H100, rate=4, requests=60)
    full = cli.json("predict", "--model", "llama-3.1-8b", "--accelerator", H100, "--scenario", "server",
                    "--rate", "4", "--requests", "60", "--json")
    assert s == full["serving"]
    assert isinstance(s, rooftop.Serving) and s.at_rate.requests == 60
    pytest.importorskip("pandas")
    df = s.to_pandas()
    assert list(df["point"]) == ["at_rate", "at_max_rate"]


@compares("serve")
def test_serve_trace_matches_cli(cli, tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("input_tokens,output_tokens,arrival_s\n" +
                     "".join(f"{100 + 7 * i},{20 + i},{0.25 * i}\n" for i in range(30)))
    s = rooftop.serve("llama-3.1-8b", H100, trace=trace)
    assert s == cli.json("predict", "--model", "llama-3.1-8b", "--accelerator", H100, "--trace", trace,
                         "--json")["serving"]


@compares("serve")
def test_serve_bad_trace_raises_the_cli_message(cli, tmp_path):
    trace = tmp_path / "bad.csv"
    trace.write_text("input_tokens,output_tokens\n12,banana\n")
    with pytest.raises(rooftop.Error) as e:
        rooftop.serve("llama-3.1-8b", H100, rate=1, trace=trace)
    assert_same_error(e, cli.error("predict", "--model", "llama-3.1-8b", "--accelerator", H100,
                                   "--rate", "1", "--trace", trace))


@compares("frontier")
def test_frontier_matches_cli_at_each_rate(cli):
    rates = [1.0, 3.0, 6.0]
    rows = rooftop.frontier("llama-3.1-8b", H100, rates, requests=40)
    assert [r.rate_per_s for r in rows] == rates
    for r in rows:
        want = cli.json("predict", "--model", "llama-3.1-8b", "--accelerator", H100, "--rate", r.rate_per_s,
                        "--requests", "40", "--json")["serving"]["at_rate"]
        assert {k: v for k, v in r.items() if k != "rate_per_s"} == want
    pytest.importorskip("pandas")
    assert len(rows.to_pandas()) == len(rates)


def test_the_gil_is_released_while_the_model_works(tmp_path):
    # predict() opens the trace inside the GIL-free section; a FIFO blocks
    # that open until this thread (which needs the GIL) writes the trace.
    fifo = tmp_path / "trace.csv"
    os.mkfifo(fifo)
    out = {}

    def run():
        try:
            out["serving"] = rooftop.serve("llama-3.1-8b", H100, trace=fifo)
        except Exception as e:  # reported below
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    with open(fifo, "w") as f:  # blocks until the reader opened it: only possible without the GIL held
        f.write("input_tokens,output_tokens,arrival_s\n128,16,0\n256,8,0.5\n")
    t.join(120)
    assert not t.is_alive() and "error" not in out, out
    assert out["serving"].at_rate.requests == 2


def test_parallel_sweep_equals_the_sequential_one():
    from concurrent.futures import ThreadPoolExecutor
    jobs = [("llama-3.1-8b", H100, n) for n in (1, 2, 4, 8)] + [("resnet50", "nvidia-t4", 1), ("bert-large", H100, 2)]
    one = [rooftop.predict(m, a, count=n) for m, a, n in jobs]
    with ThreadPoolExecutor(4) as pool:
        many = list(pool.map(lambda j: rooftop.predict(j[0], j[1], count=j[2]), jobs))
    assert many == one


# ---- catalog ---------------------------------------------------------------

@compares("catalog")
def test_catalog_matches_cli(cli):
    rows = rooftop.catalog()
    assert rows == cli.json("catalog", "list", "--json")["accelerators"]
    assert rooftop.catalog(kind="gpu", vendor="nvidia") == cli.json("catalog", "list", "--kind", "gpu", "--vendor",
                                                                    "nvidia", "--json")["accelerators"]
    pytest.importorskip("pandas")
    df = rows.to_pandas()
    assert len(df) == len(rows) and "memory_bytes" in df.columns


@compares("catalog")
@pytest.mark.parametrize("kwargs,flags", [(dict(kind="quantum"), ["--kind", "quantum"]),
                                          (dict(vendor="nvidiaa"), ["--vendor", "nvidiaa"])])
def test_catalog_bad_filter_raises_the_cli_message(cli, kwargs, flags):
    with pytest.raises(rooftop.Error) as e:
        rooftop.catalog(**kwargs)
    assert_same_error(e, cli.error("catalog", "list", *flags))


@compares("catalog.show")
def test_catalog_show_matches_cli(cli):
    entry = rooftop.catalog.show("h100")
    assert entry == cli.json("catalog", "show", "h100", "--json")
    assert entry.id == H100 and entry.sources


@compares("catalog.show")
def test_catalog_overlay_matches_cli(cli, src):
    card = os.path.join(src, "tests", "data", "catalog", "good-card.yaml")
    listed = rooftop.catalog(overlays=[card])
    assert listed == cli.json("--catalog", card, "catalog", "list", "--json")["accelerators"]
    added = [a["id"] for a in listed if a["id"] not in {b["id"] for b in rooftop.catalog()}]
    assert len(added) == 1
    assert rooftop.catalog.show(added[0], overlays=[card]) == cli.json("--catalog", card, "catalog", "show", added[0],
                                                                       "--json")


@compares("catalog.show")
def test_catalog_show_unknown_id_raises_the_cli_message(cli):
    with pytest.raises(rooftop.Error) as e:
        rooftop.catalog.show("h1000")
    assert_same_error(e, cli.error("catalog", "show", "h1000"))
    assert "did you mean" in str(e.value)


# ---- workload --------------------------------------------------------------

@compares("workload")
def test_workload_matches_cli(cli):
    w = rooftop.workload("llama-2-7b", batch=4, input_tokens=512, output_tokens=64)
    assert w == cli.json("workload", "show", "llama-2-7b", "--batch", "4", "--input-tokens", "512",
                         "--output-tokens", "64", "--json")
    t = rooftop.workload("resnet50", task="train", batch=32, precision="bf16")
    assert t == cli.json("workload", "show", "resnet50", "--task", "train", "--batch", "32", "--precision", "bf16",
                         "--json")
    pytest.importorskip("pandas")
    assert len(t.to_pandas()) == len(t.ops)


@compares("workload")
@pytest.mark.parametrize("args,kwargs", [(["no-such-model"], {}), (["resnet50", "--batch", "0"], dict(batch=0)),
                                         (["resnet50", "--precision", "fp7"], dict(precision="fp7")),
                                         (["resnet50", "--task", "eat"], dict(task="eat"))])
def test_workload_bad_input_raises_the_cli_message(cli, args, kwargs):
    with pytest.raises(rooftop.Error) as e:
        rooftop.workload(args[0], **kwargs)
    assert_same_error(e, cli.error("workload", "show", *args))


@compares("workload")
def test_workload_malformed_yaml_raises_the_cli_message(cli, tmp_path):
    bad = tmp_path / "model.yaml"
    bad.write_text("name: [unclosed\n  family: 12\n")
    with pytest.raises(rooftop.Error) as e:
        rooftop.workload(bad)
    assert_same_error(e, cli.error("workload", "show", bad))


@compares("workload.list")
def test_workload_list_matches_cli(cli):
    assert rooftop.workload.list() == cli.json("workload", "list", "--json")["models"]


# ---- validate --------------------------------------------------------------

@compares("validate")
def test_validate_matches_cli(cli, src):
    csv = os.path.join(src, "tests", "data", "validation", "measurements.csv")
    v = rooftop.validate(csv)
    assert v == cli.json("validate", csv, "--json")
    assert v.total_rows == len(v.rows) > 0
    pytest.importorskip("pandas")
    assert len(v.to_pandas()) == v.total_rows


@compares("validate")
def test_validate_bad_csv_raises_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,accelerator\n\"unterminated,x\n")
    for path in (bad, tmp_path / "missing.csv"):
        with pytest.raises(rooftop.Error) as e:
            rooftop.validate(path)
        assert_same_error(e, cli.error("validate", path))
    with pytest.raises(rooftop.Error) as e:
        rooftop.validate([])  # the CLI requires a file
    assert e.value.exit_code == 2


# ---- advise ----------------------------------------------------------------

@compares("advise")
def test_advise_file_matches_cli(cli, src):
    path = os.path.join(src, "data", "scenarios", "default.yaml")
    a = rooftop.advise(path, top=3)
    assert a == cli.json("advise", path, "--top", "3", "--json")
    assert a.candidates and a.candidates[0].rank == 1
    pytest.importorskip("pandas")
    assert len(a.to_pandas()) == len(a.candidates)


@compares("advise")
def test_advise_dict_equals_its_file(cli, src):
    yaml = pytest.importorskip("yaml")
    path = os.path.join(src, "data", "scenarios", "llama2-70b-serving.yaml")
    with open(path) as f:
        scenario = yaml.safe_load(f)
    assert rooftop.advise(scenario) == cli.json("advise", path, "--json")


@compares("advise")
def test_advise_bad_scenario_raises_the_cli_message(cli, tmp_path):
    bad = tmp_path / "scenario.yaml"
    bad.write_text("model: llama-2-7b\nobjective: [\n")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("model: no-such-model\n")
    for path in (bad, unknown, tmp_path / "missing.yaml"):
        with pytest.raises(rooftop.Error) as e:
            rooftop.advise(path)
        assert_same_error(e, cli.error("advise", path))
    with pytest.raises(rooftop.Error):
        rooftop.advise({"model": "llama-2-7b"}, top=0)
    with pytest.raises(rooftop.Error) as e:
        rooftop.advise({"model": 12, "objective": {"what": "ever"}})
    assert e.value.exit_code == 2 and e.value.context.startswith("<scenario dict>")


def test_readme_notebook_example_runs(src):
    text = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    start = text.index("### From Python")
    block = text[text.index("```python\n", start) + len("```python\n"):]
    code = block[:block.index("```")]
    assert len(code.strip().splitlines()) == 3
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 (our own README)
    assert scope["p"].throughput.value > 0


def test_the_stub_declares_every_public_name():
    import ast
    stub = os.path.join(os.path.dirname(rooftop.__file__), "__init__.pyi")
    tree = ast.parse(open(stub, encoding="utf-8").read())
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    declared |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    assert set(rooftop.__all__) <= declared, set(rooftop.__all__) - declared
    for name in ("predict", "serve", "frontier", "advise", "validate"):
        stub_args = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name).args
        real = rooftop.__dict__[name].__code__
        names = real.co_varnames[:real.co_argcount + real.co_kwonlyargcount]
        assert [a.arg for a in stub_args.args + stub_args.kwonlyargs] == list(names), name
