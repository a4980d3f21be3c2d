"""rooftop: choose, size, measure and watch AI accelerators, from Python.

The functions run the C++ jobs the ``rooftop`` command runs (no second
implementation) and return what its ``--json`` prints, as plain Python
objects: JSON objects are :class:`Record` (a ``dict`` whose keys also read
as attributes), arrays are lists. Results with rows convert to pandas with
``.to_pandas()`` when pandas is installed. Failures raise :class:`Error` with
the message the CLI prints. The GIL is released while the model works, so a
thread pool sweeps in parallel. API reference: docs/python.md.

    >>> import rooftop
    >>> p = rooftop.predict("llama-3.1-8b", "nvidia-h100-sxm5-80gb")
    >>> p.throughput.value, p.throughput.unit
"""

from __future__ import annotations

import json as _json
import os as _os
from concurrent.futures import ThreadPoolExecutor as _Pool
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _native

__all__ = [
    "Error",
    "Record",
    "Table",
    "Prediction",
    "Workload",
    "Validation",
    "Advice",
    "Serving",
    "catalog",
    "workload",
    "predict",
    "serve",
    "frontier",
    "advise",
    "validate",
]

Error = _native.Error
Error.__doc__ = (
    "A rooftop failure: str(e) is what the CLI prints after 'rooftop: error: '. "
    "Attributes: message, context (the input it names: a flag, file:line), "
    "code ('invalid_input', 'not_found', 'unsupported', 'io', 'internal') and "
    "exit_code (the CLI's: 2 for bad input, 1 otherwise)."
)

PathLike = Union[str, "_os.PathLike[str]"]


def _pandas():
    try:
        import pandas  # noqa: PLC0415 (optional dependency)
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas)") from e
    return pandas


class Record(dict):
    """A JSON object of the ``--json`` output; keys read as attributes too."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'") from None

    def __dir__(self):
        return list(super().__dir__()) + [k for k in self if k.isidentifier()]


class _Rows:
    """Mixin: the rows under ``_rows`` as a pandas DataFrame (nested fields flattened with '.')."""

    _rows = ""

    def to_pandas(self):
        return _pandas().json_normalize(list(self[self._rows]))


class Table(list):
    """A list of records (``catalog()``, ``workload.list()``, ``frontier()``)."""

    def to_pandas(self):
        return _pandas().json_normalize(list(self))


class Prediction(_Rows, Record):
    """``rooftop predict --json``; ``to_pandas()``: the operators (``per_op``)."""

    __slots__ = ()
    _rows = "per_op"


class Serving(Record):
    """The ``serving`` part of a server-scenario prediction; ``to_pandas()``:
    one row per simulated operating point (``at_rate``, ``at_max_rate``)."""

    __slots__ = ()

    def to_pandas(self):
        rows = []
        for point in ("at_rate", "at_max_rate"):
            if point in self:
                row = {"point": point, "rate_per_s": self.get("rate_per_s") if point == "at_rate" else self["max_rate_per_s"]}
                row.update(self[point])
                rows.append(row)
        return _pandas().json_normalize(rows)


class Workload(_Rows, Record):
    """``rooftop workload show --json``; ``to_pandas()``: the operators (``ops``)."""

    __slots__ = ()
    _rows = "ops"


class Validation(_Rows, Record):
    """``rooftop validate --json``; ``to_pandas()``: one row per measurement."""

    __slots__ = ()
    _rows = "rows"


class Advice(_Rows, Record):
    """``rooftop advise --json``; ``to_pandas()``: the ranked candidates."""

    __slots__ = ()
    _rows = "candidates"


def _parse(text: str, top: Callable[[Record], Any] = Record) -> Any:
    value = _json.loads(text, object_hook=Record)
    return top(value) if top is not Record else value


def _paths(paths: Iterable[PathLike]) -> list:
    return [_os.fspath(p) for p in paths]


class _Catalog:
    """The accelerator catalog: ``catalog()`` lists entries, ``catalog.show(id)`` shows one."""

    def __call__(self, kind: Optional[str] = None, vendor: Optional[str] = None, *,
                 overlays: Sequence[PathLike] = ()) -> Table:
        """``rooftop catalog list --json``: the entries (of one kind or vendor), in base units."""
        out = _parse(_native.catalog_list(kind or "", vendor or "", _paths(overlays)))
        return Table(out["accelerators"])

    def show(self, id: str, *, overlays: Sequence[PathLike] = ()) -> Record:
        """``rooftop catalog show ID --json``: one entry by id or alias, with its ``sources`` map."""
        return _parse(_native.catalog_show(id, _paths(overlays)))


class _Workloads:
    """The models: ``workload(id_or_path)`` shows one, ``workload.list()`` lists the zoo."""

    def __call__(self, id_or_path: PathLike, *, batch: int = 1, seq: Optional[int] = None,
                 input_tokens: Optional[int] = None, output_tokens: Optional[int] = None,
                 image_size: Optional[int] = None, precision: str = "fp16", task: str = "infer",
                 inputs: Sequence[str] = ()) -> Workload:
        """``rooftop workload show ID_OR_PATH --json``: a zoo id, a model YAML or an ONNX file
        (``inputs``: ONNX input shapes, ``"name=1x3x224x224"``)."""
        return _parse(_native.workload_show(_os.fspath(id_or_path), batch, seq, input_tokens, output_tokens,
                                            image_size, precision, task, list(inputs)), Workload)

    def list(self) -> Table:
        """``rooftop workload list --json``: the model zoo."""
        return Table(_parse(_native.workload_list())["models"])


catalog = _Catalog()
workload = _Workloads()


def predict(model: PathLike, accelerator: str, *, count: int = 1, task: str = "infer",
            precision: Optional[str] = None, plan: Optional[str] = None, batch: Optional[int] = None,
            input_tokens: Optional[int] = None, output_tokens: Optional[int] = None, seq: Optional[int] = None,
            scenario: Optional[str] = None, latency_target: Optional[str] = None, rate: Optional[float] = None,
            trace: Optional[PathLike] = None, requests: Optional[int] = None, chunk_tokens: float = 2048,
            kv_cache: str = "paged", global_batch: Optional[int] = None, grad_accumulation: int = 1,
            straggler_cv: float = 0.0, to_target: bool = False, lora: bool = False,
            overlays: Sequence[PathLike] = ()) -> Prediction:
    """``rooftop predict --json``: one model on ``count`` accelerators of one type.

    Each keyword is the CLI flag of the same name (``plan="tp=8,pp=2"``,
    ``precision="w4a16+fp8-kv"``, ``latency_target="100ms"``); ``rate`` or
    ``trace`` run the server simulation, whose result is under ``serving``.
    """
    return _parse(_native.predict(
        _os.fspath(model), accelerator, count, task, precision or "", scenario, latency_target or "", plan or "",
        _os.fspath(trace) if trace is not None else "", rate, requests, chunk_tokens, batch, input_tokens,
        output_tokens, seq, global_batch, kv_cache, to_target, lora, grad_accumulation, straggler_cv,
        _paths(overlays)), _with_serving)


def _with_serving(record: Record) -> Prediction:
    p = Prediction(record)
    if isinstance(p.get("serving"), dict):
        p["serving"] = Serving(p["serving"])
    return p


def serve(model: PathLike, accelerator: str, *, rate: Optional[float] = None, trace: Optional[PathLike] = None,
          requests: Optional[int] = None, chunk_tokens: float = 2048, latency_target: Optional[str] = None,
          **kwargs: Any) -> Serving:
    """The server simulation (``rooftop predict --scenario server --json``, its ``serving`` part):
    continuous batching over Poisson arrivals at ``rate`` requests/s or a trace CSV, and the highest
    rate within the latency bounds. Other keywords as :func:`predict`."""
    p = predict(model, accelerator, scenario="server", rate=rate, trace=trace, requests=requests,
                chunk_tokens=chunk_tokens, latency_target=latency_target, **kwargs)
    return p["serving"]


def frontier(model: PathLike, accelerator: str, rates: Iterable[float], *, workers: Optional[int] = None,
             **kwargs: Any) -> Table:
    """The serving frontier: the server simulation at each of ``rates`` (requests/s), run in a
    thread pool (the simulations run without the GIL). One row per rate: ``rate_per_s`` and the
    simulated ``at_rate`` figures; keywords as :func:`serve`."""
    rates = list(rates)
    with _Pool(max_workers=workers or min(len(rates), _os.cpu_count() or 1) or 1) as pool:
        runs = list(pool.map(lambda r: serve(model, accelerator, rate=r, **kwargs), rates))
    rows = Table()
    for r, s in zip(rates, runs):
        row = Record(rate_per_s=r)
        row.update(s["at_rate"])
        rows.append(row)
    return rows


def advise(scenario: Union[PathLike, Mapping[str, Any]], *, top: int = 5,
           overlays: Sequence[PathLike] = ()) -> Advice:
    """``rooftop advise SCENARIO --json --top N``: a scenario YAML file, or the same as a dict
    (docs/advise.md). Raises :class:`Error` when no candidate is feasible, as the CLI exits 2."""
    if isinstance(scenario, Mapping):
        text, name = _json.dumps(dict(scenario)), "<scenario dict>"
    else:
        name = _os.fspath(scenario)
        text = _native.read_text(name)
    return _parse(_native.advise(text, name, top, _paths(overlays)), Advice)


def validate(csv_path: Union[PathLike, Sequence[PathLike]], *, overlays: Sequence[PathLike] = ()) -> Validation:
    """``rooftop validate FILE... --json``: every row of the measurement CSV(s), predicted, with
    the MdAPE overall and per group."""
    files = [csv_path] if isinstance(csv_path, (str, bytes, _os.PathLike)) else list(csv_path)
    return _parse(_native.validate(_paths(files), _paths(overlays)), Validation)
