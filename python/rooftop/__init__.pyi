# Type hints of the rooftop module (docs/python.md). Every result mirrors the
# CLI's --json field for field; JSON objects are Record (a dict whose keys
# also read as attributes).
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import pandas

PathLike = Union[str, os.PathLike[str]]

class Error(Exception):
    """A rooftop failure; str(e) is what the CLI prints after 'rooftop: error: '."""

    message: str
    context: str
    code: str  # 'invalid_input' | 'not_found' | 'unsupported' | 'io' | 'internal'
    exit_code: int  # the CLI's exit code for it (2: bad input, 1: failure)

class Record(dict[str, Any]):
    def __getattr__(self, name: str) -> Any: ...

class Table(list[Record]):
    def to_pandas(self) -> pandas.DataFrame: ...

class Prediction(Record):
    """`rooftop predict --json`."""

    accelerator: str
    count: int
    model: str
    task: str
    precision: str
    precisions: Record
    batch: float
    throughput: Record  # value, unit, range
    latency_s: float
    latency_range_s: Optional[Record]
    unvalidated: bool
    validation: Optional[str]
    memory: Record
    bound: str
    plan: str
    parallelism: Record
    communication: Record
    per_op: list[Record]
    assumptions: Record
    serving: Serving  # server scenario only
    def to_pandas(self) -> pandas.DataFrame: ...  # per_op

class Serving(Record):
    """The `serving` part of `rooftop predict --scenario server --json`."""

    kind: str
    max_rate_per_s: float
    max_tokens_per_s: float
    at_max_rate: Record
    at_rate: Record
    bounds: Record
    def to_pandas(self) -> pandas.DataFrame: ...  # at_rate, at_max_rate

class Workload(Record):
    """`rooftop workload show --json`."""

    model: str
    name: str
    family: str
    params: float
    flops: float
    bytes: float
    phases: list[Record]
    memory: Record
    ops: list[Record]
    def to_pandas(self) -> pandas.DataFrame: ...  # ops

class Validation(Record):
    """`rooftop validate --json`."""

    rows: list[Record]
    predicted_rows: int
    total_rows: int
    mdape: Optional[float]
    groups: list[Record]
    def to_pandas(self) -> pandas.DataFrame: ...  # rows

class Advice(Record):
    """`rooftop advise --json`."""

    scenario: str
    answer: str
    candidates: list[Record]
    baseline: Optional[Record]
    rejected: list[Record]
    assumptions: list[Record]
    def to_pandas(self) -> pandas.DataFrame: ...  # candidates

class _Catalog:
    def __call__(self, kind: Optional[str] = ..., vendor: Optional[str] = ..., *,
                 overlays: Sequence[PathLike] = ...) -> Table: ...
    def show(self, id: str, *, overlays: Sequence[PathLike] = ...) -> Record: ...

class _Workloads:
    def __call__(self, id_or_path: PathLike, *, batch: int = ..., seq: Optional[int] = ...,
                 input_tokens: Optional[int] = ..., output_tokens: Optional[int] = ...,
                 image_size: Optional[int] = ..., precision: str = ..., task: str = ...,
                 inputs: Sequence[str] = ...) -> Workload: ...
    def list(self) -> Table: ...

catalog: _Catalog
workload: _Workloads

def predict(model: PathLike, accelerator: str, *, count: int = ..., task: str = ...,
            precision: Optional[str] = ..., plan: Optional[str] = ..., batch: Optional[int] = ...,
            input_tokens: Optional[int] = ..., output_tokens: Optional[int] = ..., seq: Optional[int] = ...,
            scenario: Optional[str] = ..., latency_target: Optional[str] = ..., rate: Optional[float] = ...,
            trace: Optional[PathLike] = ..., requests: Optional[int] = ..., chunk_tokens: float = ...,
            kv_cache: str = ..., global_batch: Optional[int] = ..., grad_accumulation: int = ...,
            straggler_cv: float = ..., to_target: bool = ..., lora: bool = ...,
            overlays: Sequence[PathLike] = ...) -> Prediction: ...
def serve(model: PathLike, accelerator: str, *, rate: Optional[float] = ..., trace: Optional[PathLike] = ...,
          requests: Optional[int] = ..., chunk_tokens: float = ..., latency_target: Optional[str] = ...,
          **kwargs: Any) -> Serving: ...
def frontier(model: PathLike, accelerator: str, rates: Iterable[float], *, workers: Optional[int] = ...,
             **kwargs: Any) -> Table: ...
def advise(scenario: Union[PathLike, Mapping[str, Any]], *, top: int = ...,
           overlays: Sequence[PathLike] = ...) -> Advice: ...
def validate(csv_path: Union[PathLike, Sequence[PathLike]], *,
             overlays: Sequence[PathLike] = ...) -> Validation: ...
