"""The type stub of ``renolab._core`` (python/renolab/_core.pyi) matches the built module:
the same public names, each of the same kind, functions with the same parameters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import renolab
from renolab import _core

STUB = Path(renolab.__file__).with_name("_core.pyi")
#: Names the stub declares only for typing (they do not exist at run time).
TYPING_ONLY = {"TraceEntry", "RunOutput", "OptionInfo", "ControllerInfo"}


def _stub() -> dict[str, ast.stmt]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def _public(module: object) -> set[str]:
    return {n for n in vars(module) if not n.startswith("_") or n == "__version__"}


def test_the_stub_and_the_module_name_the_same_things():
    declared = set(_stub()) - TYPING_ONLY
    assert declared == _public(_core)
    assert set(_core.__all__) <= declared


def test_each_name_is_of_the_kind_the_stub_says():
    for name, node in _stub().items():
        if name in TYPING_ONLY:
            continue
        value = getattr(_core, name)
        if isinstance(node, ast.FunctionDef):
            assert callable(value) and not isinstance(value, type), name
        elif isinstance(node, ast.ClassDef):
            assert isinstance(value, type), name
            bases = {ast.unparse(b) for b in node.bases}
            assert bases == {b.__name__ for b in value.__bases__}, name
        else:
            annotation = ast.unparse(node.annotation)
            assert annotation.split("[")[0] == type(value).__name__, name


def test_functions_take_the_parameters_the_stub_gives():
    for name, node in _stub().items():
        if not isinstance(node, ast.FunctionDef):
            continue
        runtime = inspect.signature(getattr(_core, name))
        stub_args = node.args
        stub_params = [a.arg for a in stub_args.posonlyargs + stub_args.args]
        assert stub_params == list(runtime.parameters), name
        defaults = stub_args.defaults
        with_default = [p for p in runtime.parameters.values() if p.default is not inspect.Parameter.empty]
        assert len(defaults) == len(with_default), name
        for default, param in zip(defaults, with_default):
            text = ast.unparse(default)
            if text != "...":
                assert text == repr(param.default), (name, param.name)


def test_the_package_ships_the_stub_and_its_marker():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()


def test_the_controllers_are_the_variants_a_scenario_takes():
    names = [c["name"] for c in _core.CONTROLLERS]
    assert names == ["tahoe", "reno", "newreno", "sack", "vegas", "cubic", "bbr", "dctcp", "prague"]
    cubic = next(c for c in _core.CONTROLLERS if c["name"] == "cubic")
    assert [o["name"] for o in cubic["options"]] == ["beta", "c", "fast_convergence", "hystart"]
    assert cubic["trace"] == ["w_max", "k_ns", "epoch_start_ns"]
    assert cubic["default_recovery"] == {"rfc": "rfc6675", "ns2": "sack", "opnet": "rfc6675", "linux": "prr"}
