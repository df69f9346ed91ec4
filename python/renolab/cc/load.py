"""The Python controllers of a scenario: from the class or instance a flow names, or from
``variant = "python:<module or file.py>:<Class>"``; what the engine needs of each.

- :func:`plain_variants`: a scenario's data with every class or instance replaced by its
  name (``"python:module:Class"``) and an instance's arguments added to the flow's
  options, the form scenario files and the core take;
- :func:`absolute_paths`: a scenario file's ``python:<file.py>:...`` made absolute, so the
  file is found from anywhere (its directory is the file's, not the current one);
- :func:`controllers`: for ``_core.run``, each Python flow's class (the object the scenario
  holds, else imported by name), the hooks it overrides and the attributes it traces, after
  checking its arguments against the class's signature.

A name is imported only when the caller allows it (``allow_python``, the command line's
``--allow-python``): a scenario file is data from whoever wrote it, and importing a module
runs its code (docs/extending.md). :func:`require_allowed` says how to allow it. A file
named by a scenario file must be in the scenario's directory or below it
(:func:`absolute_paths`), and a module name is looked up on ``sys.path`` only (never in the
current directory on the scenario's behalf).

How a controller reaches sweep workers: a scenario that holds the class object travels
pickled, as the rest of the scenario does (by reference, module and class name, with the
standard pickle of local workers; Dask's cloudpickle sends a class defined in a notebook or
a script's ``__main__`` by value); a scenario that names it ``"python:..."`` is imported by
name (or loaded from its file) in each worker.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from renolab import _core
from renolab._core import ScenarioError
from renolab.cc import HOOKS, CongestionControl

__all__ = [
    "PREFIX",
    "absolute_paths",
    "confined",
    "arguments_of",
    "class_name",
    "controllers",
    "hooks",
    "names_python_code",
    "names_python_controller",
    "plain_variants",
    "reference",
    "refusal",
    "require_allowed",
    "resolve",
]

#: How a scenario names a Python controller: ``"python:<module or file.py>:<Class>"``.
PREFIX = "python:"
#: Columns of the ``cc`` trace besides the traced attributes.
_TRACE_COLUMNS = ("time_ns", "flow")


def _flows(data: Mapping[str, Any]) -> list[Any]:
    flows = data.get("flow")
    if isinstance(flows, list):
        return flows
    return [flows] if isinstance(flows, Mapping) else []


def names_python_controller(data: Mapping[str, Any]) -> bool:
    """True if a flow of *data* names a Python controller (a class, an instance or a
    ``"python:..."`` string)."""
    for flow in _flows(data):
        if isinstance(flow, Mapping):
            variant = flow.get("variant")
            if variant is not None and (not isinstance(variant, str) or variant.startswith(PREFIX)):
                return True
    return False


def names_python_code(data: Mapping[str, Any]) -> bool:
    """True if a flow of *data* names a Python controller by a string (``"python:..."``):
    one that would have to be imported."""
    return bool(_named_in_code(data))


def _named_in_code(data: Mapping[str, Any]) -> list[tuple[int, str]]:
    return [
        (i, flow["variant"])
        for i, flow in enumerate(_flows(data))
        if isinstance(flow, Mapping) and isinstance(flow.get("variant"), str) and flow["variant"].startswith(PREFIX)
    ]


def refusal(index: int, variant: str) -> ScenarioError:
    """The error of a Python controller named by a string when running code is not allowed
    (a file is named by its name alone: its directory is the scenario's)."""
    module, sep, name = variant[len(PREFIX) :].rpartition(":")
    if sep and module.endswith(".py"):
        variant = f"{PREFIX}{os.path.basename(module)}:{name}"
    return ScenarioError(
        f"flow[{index}].variant: {json.dumps(variant)} is Python code, which renolab imports and runs only when "
        "asked (a scenario file is data, and its code would run as you): if you trust it, pass --allow-python "
        "(allow_python=True in Python); see docs/extending.md"
    )


def require_allowed(data: Mapping[str, Any], allow_python: bool) -> None:
    """Refuses (:func:`refusal`) a scenario naming a Python controller by a string unless
    *allow_python*."""
    named = _named_in_code(data)
    if named and not allow_python:
        raise refusal(*named[0])


def class_name(cls: type) -> str:
    """*cls*'s qualified name, without the function a local class was defined in."""
    return cls.__qualname__.rsplit(".<locals>.", 1)[-1]


def reference(cls: type) -> str:
    """``"python:<module>:<Class>"`` of *cls*: how a scenario file names it; for a class of
    a module without an importable name (``runpy.run_path``, ``exec``), its file, else
    ``__main__``."""
    module = cls.__module__
    if not all(part.isidentifier() for part in module.split(".")):
        functions = [f for f in vars(cls).values() if hasattr(f, "__code__")]
        files = [f.__code__.co_filename for f in functions if f.__code__.co_filename.endswith(".py")]
        module = os.path.abspath(files[0]) if files else "__main__"
    return f"{PREFIX}{module}:{class_name(cls)}"


def _controller_class(value: Any, where: str) -> type | None:
    """The class a flow's variant stands for, if it is a class or an instance."""
    cls = value if isinstance(value, type) else type(value)
    if isinstance(value, str):
        return None
    if not issubclass(cls, CongestionControl):
        raise ScenarioError(
            f"{where}: {class_name(cls)} is not a variant; a Python controller subclasses "
            "renolab.cc.CongestionControl"
        )
    return cls


def arguments_of(controller: CongestionControl) -> dict[str, Any]:
    """The keyword arguments *controller* was built with (positional ones named by its
    constructor's signature): what a scenario records for it as its flow's options."""
    try:
        args, kwargs = vars(controller).get("_renolab_arguments", ((), {}))
    except TypeError:  # a class with __slots__ and no __dict__
        args, kwargs = (), {}
    if not args:
        return dict(kwargs)
    import inspect

    cls = type(controller)
    name = class_name(cls)
    if cls.__init__ is object.__init__:  # type: ignore[misc]
        raise TypeError(f"{name} takes no arguments")
    bound = inspect.signature(cls.__init__).bind(controller, *args, **kwargs)  # type: ignore[misc]
    named: dict[str, Any] = {}
    for index, (parameter, value) in enumerate(bound.arguments.items()):
        kind = bound.signature.parameters[parameter].kind
        if index == 0:
            continue  # self
        if kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(f"{name}: pass *{parameter} by keyword to use it in a scenario")
        if kind is inspect.Parameter.VAR_KEYWORD:
            named.update(value)
        else:
            named[parameter] = value
    return named


def plain_variants(data: Mapping[str, Any]) -> dict[str, Any]:
    """*data* (not modified) with each class or instance variant written by name, an
    instance's arguments merged into its flow's options."""
    out = dict(data)
    flows = data.get("flow")
    if not isinstance(flows, (list, Mapping)):
        return out
    items = flows if isinstance(flows, list) else [flows]
    new_flows = []
    for i, flow in enumerate(items):
        where = f"flow[{i}]"
        if not isinstance(flow, Mapping) or isinstance(flow.get("variant", ""), str):
            new_flows.append(flow)
            continue
        variant = flow["variant"]
        cls = _controller_class(variant, f"{where}.variant")
        assert cls is not None
        flow = dict(flow)
        flow["variant"] = reference(cls)
        if not isinstance(variant, type):
            try:
                arguments = arguments_of(variant)
            except TypeError as exc:
                raise ScenarioError(f"{where}.variant: {exc}") from None
            options = dict(flow.get("options") or {})
            for key, value in arguments.items():
                if key in options and options[key] != value:
                    raise ScenarioError(
                        f"{where}.options.{key}: {options[key]!r} contradicts the variant's argument "
                        f"{class_name(cls)}({key}={value!r}); give it once"
                    )
                options[key] = value
            if options:
                flow["options"] = options
        new_flows.append(flow)
    out["flow"] = new_flows if isinstance(flows, list) else new_flows[0]
    return out


def absolute_paths(data: dict[str, Any], base_dir: str | os.PathLike[str]) -> None:
    """Makes each ``python:<file.py>:<Class>`` of *data* absolute, relative to *base_dir*
    (the scenario file's directory), in place; :class:`ScenarioError` for a file outside
    *base_dir* and its subdirectories (``../``, an absolute path, a symbolic link leading
    out)."""
    for i, flow in enumerate(_flows(data)):
        if isinstance(flow, dict) and isinstance(flow.get("variant"), str):
            flow["variant"] = confined(flow["variant"], base_dir, f"flow[{i}].variant")


def confined(variant: str, base_dir: str | os.PathLike[str], where: str) -> str:
    """*variant* with its controller file made absolute (relative to *base_dir*), checked to
    be inside *base_dir*; any other variant as it is."""
    if not variant.startswith(PREFIX):
        return variant
    module, sep, name = variant[len(PREFIX) :].rpartition(":")
    if not (sep and module.endswith(".py")):
        return variant
    base = os.path.realpath(os.fspath(base_dir))
    path = os.path.normpath(os.path.join(base, module))
    real = os.path.realpath(path)
    if os.path.commonpath([base, real]) != base:
        raise ScenarioError(
            f"{where}: {json.dumps(variant)}: the controller's file must be in the scenario's directory "
            f"({base}) or below it, and {module!r} is not"
        )
    return f"{PREFIX}{path}:{name}"


def _import_module(module: str, where: str) -> ModuleType:
    if module.endswith(".py"):
        path = Path(module).resolve()
        name = f"_renolab_cc_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
        if name in sys.modules:
            return sys.modules[name]
        if not path.is_file():
            raise ScenarioError(f"{where}: no file {module}")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded  # for pickle, by reference, in forked workers
        try:
            spec.loader.exec_module(loaded)
        except BaseException:
            del sys.modules[name]
            raise
        return loaded
    # sys.path only: never the current directory on a scenario's behalf (whatever is
    # there, e.g. a file shipped beside the scenario, would run).
    return importlib.import_module(module)


def resolve(name: str, where: str = "variant") -> type:
    """The class ``"python:<module or file.py>:<Class>"`` names (imported, or loaded from the
    file); :class:`ScenarioError` saying why not otherwise. This runs the module's code:
    callers ask first (:func:`require_allowed`)."""
    module_name, sep, class_name = name[len(PREFIX) :].rpartition(":")
    if not name.startswith(PREFIX) or not sep:
        raise ScenarioError(f"{where}: {name!r} is not \"python:<module or file.py>:<Class>\"")
    try:
        module = _import_module(module_name, where)
    except ScenarioError:
        raise
    except ModuleNotFoundError as exc:
        hint = ""
        if exc.name == module_name.split(".")[0] and "/" not in module_name:
            hint = f' (a file beside the scenario is named "python:{module_name.replace(".", "/")}.py:{class_name}")'
        raise ScenarioError(f"{where}: cannot import {module_name}: {type(exc).__name__}: {exc}{hint}") from exc
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import: say why
        raise ScenarioError(f"{where}: cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    value: Any = module
    for part in class_name.split("."):
        if not hasattr(value, part):
            raise ScenarioError(f"{where}: {module_name} has no class {class_name}")
        value = getattr(value, part)
    if not isinstance(value, type):
        raise ScenarioError(f"{where}: {module_name}.{class_name} is not a class")
    cls = _controller_class(value, where)
    assert cls is not None
    return cls


def _signature(cls: type) -> tuple[dict[str, Any], bool, str]:
    """The keyword parameters of *cls*'s constructor (name -> default or ``...`` when
    required), whether it takes ``**kwargs``, and the signature as text."""
    import inspect

    init = cls.__init__  # type: ignore[misc]
    if init is object.__init__:
        return {}, False, "()"
    signature = inspect.signature(init)
    parameters = list(signature.parameters.values())[1:]  # without self
    named: dict[str, Any] = {}
    var_keyword = False
    for p in parameters:
        if p.kind is p.VAR_KEYWORD:
            var_keyword = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            named[p.name] = ... if p.default is p.empty else p.default
    text = str(signature.replace(parameters=parameters))
    return named, var_keyword, text


def _check_arguments(cls: type, arguments: Mapping[str, Any], where: str) -> None:
    named, var_keyword, text = _signature(cls)
    for key in arguments:
        if key not in named and not var_keyword:
            raise ScenarioError(
                f"{where}.{key}: is neither an option of the sender nor an argument of "
                f"{class_name(cls)}{text}"
            )
    for key, default in named.items():
        if default is ... and key not in arguments:
            raise ScenarioError(f"{where}: {class_name(cls)}{text} needs the argument {key!r}")


def _trace_names(cls: type, where: str) -> tuple[str, ...]:
    trace = getattr(cls, "trace", ())
    if isinstance(trace, str) or not isinstance(trace, (tuple, list)):
        raise ScenarioError(f"{where}: {class_name(cls)}.trace must be a tuple of attribute names, not {trace!r}")
    for name in trace:
        if not (isinstance(name, str) and name.isidentifier()) or name in _TRACE_COLUMNS:
            raise ScenarioError(
                f"{where}: {class_name(cls)}.trace: {name!r} is not an attribute name the cc trace can record"
            )
    return tuple(trace)


def hooks(cls: type) -> tuple[str, ...]:
    """The hooks *cls* overrides: the only ones the engine calls."""
    return tuple(h for h in HOOKS if getattr(cls, h, None) is not getattr(CongestionControl, h))


def controllers(
    data: Mapping[str, Any], scenario_json: str, *, allow_python: bool = False
) -> dict[int, tuple[type, tuple[str, ...], tuple[str, ...]]]:
    """``{flow index: (class, hooks it overrides, attributes it traces)}`` of the Python
    controllers of *data* (whose core form is *scenario_json*), for ``_core.run``; checks
    each class's arguments (the flow's options that are not the sender's). A class named
    by a string is imported only with *allow_python* (:func:`refusal` otherwise)."""
    held = {}
    for i, flow in enumerate(_flows(data)):
        if isinstance(flow, Mapping) and not isinstance(flow.get("variant", ""), str):
            held[i] = _controller_class(flow["variant"], f"flow[{i}].variant")
    out = {}
    for index, name, arguments_json in _core.python_controllers(scenario_json):
        where = f"flow[{index}]"
        if index not in held and not allow_python:
            raise refusal(index, name)
        cls = held.get(index) or resolve(name, f"{where}.variant")
        _check_arguments(cls, json.loads(arguments_json), f"{where}.options")
        out[index] = (cls, hooks(cls), _trace_names(cls, f"{where}.variant"))
    return out
