/**
 * Runs a python3 job (given to `python3 -c`): reads `{args, preprocess?}` as JSON from fd 3, imports
 * the script from its file (as the module `argv[3]` names when given: `f.lib.main`, whose
 * `.sibling` is then `f.lib.sibling`, written beside it), calls the entrypoint with the arguments its signature names
 * (`**kwargs` takes the rest; a null for a parameter with a default takes the default; a string
 * for one annotated datetime, date or bytes becomes one), awaits a coroutine, and writes
 * `{"ok": true, "result": ...}` or `{"ok": false, "error": {name, message, stack}}` to fd 4
 * (a float of the result JSON cannot hold, inf, -inf or nan, is null there, as Windmill's).
 * With `preprocess`, the script's `preprocessor` is called first with the arguments and its
 * result (a dict as it is, None `{}`, anything else `{"value": ...}`) is the entrypoint's
 * arguments, written to fd 4 too as `preprocessed` (Windmill's preprocessor, in one process).
 * stdout and stderr stay the script's.
 * The traceback keeps only the script's own frames.
 */
export const PYTHON_WRAPPER = String.raw`
import asyncio, base64, datetime, decimal, importlib.util, inspect, json, os, sys, traceback

def _describe(error, script_path):
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script_path:
        tb = tb.tb_next
    stack = "".join(traceback.format_exception(type(error), error, tb))
    return {"name": type(error).__name__, "message": str(error), "stack": stack}

def _default(value):
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError("Object of type " + type(value).__name__ + " is not JSON serializable")

def _finite(value):
    # As Windmill's wrapper: a float JSON cannot hold (inf, -inf, nan) is null, wherever it is.
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value

def _dumps(value):
    try:
        return json.dumps(value, default=_default, allow_nan=False)
    except ValueError as error:
        if "Out of range float" not in str(error):
            raise
        return json.dumps(_finite(value), default=lambda item: _finite(_default(item)), allow_nan=False)

def _typed(param, value):
    # As Windmill's wrapper: a string for a parameter annotated datetime, date or bytes becomes one.
    if not isinstance(value, str):
        return value
    annotation = param.annotation
    if annotation in (datetime.datetime, "datetime", "datetime.datetime"):
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if annotation in (datetime.date, "date", "datetime.date"):
        return datetime.date.fromisoformat(value[:10])
    if annotation in (bytes, "bytes"):
        return base64.b64decode(value)
    return value

def _call(fn, args):
    params = inspect.signature(fn).parameters.values()
    positional, named = [], {}
    takes_rest = any(param.kind == param.VAR_KEYWORD for param in params)
    for param in params:
        if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        # A null for a parameter with a default takes the default (Windmill's wrapper), unless
        # the function takes **kwargs, which gets every argument as given.
        if not takes_rest and param.default is not param.empty and args.get(param.name) is None:
            continue
        if param.name in args:
            value = _typed(param, args[param.name])
            if param.kind == param.POSITIONAL_ONLY:
                positional.append(value)
            else:
                named[param.name] = value
    if takes_rest:
        for key, value in args.items():
            named.setdefault(key, value)
    value = fn(*positional, **named)
    if inspect.isawaitable(value):
        async def settle():
            return await value
        value = asyncio.run(settle())
    return value

def _run():
    script_path, entrypoint = sys.argv[1], sys.argv[2]
    # The module its path names when it imports workspace scripts, so relative imports resolve.
    module_name = sys.argv[3] if len(sys.argv) > 3 else "script"
    with os.fdopen(3, "r", encoding="utf-8") as source:
        request = json.loads(source.read() or "{}")
    args = request.get("args") or {}
    preprocessed = None
    out = os.fdopen(4, "w", encoding="utf-8")
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.spec_from_file_location(module_name, script_path)
        module = importlib.util.module_from_spec(spec)
        if len(sys.argv) > 3:
            sys.modules[module_name] = module
        spec.loader.exec_module(module)
        fn = getattr(module, entrypoint, None)
        preprocessor = getattr(module, "preprocessor", None)
        if not callable(fn):
            reply = {"ok": False, "error": {"name": "ExecutionErr", "message": "the script defines no function named " + entrypoint}}
        elif request.get("preprocess") and not callable(preprocessor):
            reply = {"ok": False, "error": {"name": "ExecutionErr", "message": "the script defines no function named preprocessor"}}
        else:
            if request.get("preprocess"):
                shaped = _call(preprocessor, args)
                if shaped is None:
                    shaped = {}
                elif not isinstance(shaped, dict):
                    shaped = {"value": shaped}
                try:
                    preprocessed = _dumps(shaped)
                except (TypeError, ValueError) as error:
                    raise TypeError("the preprocessor's result is not JSON: " + str(error))
                args = json.loads(preprocessed)
            value = _call(fn, args)
            try:
                text = _dumps(value)
            except (TypeError, ValueError) as error:
                reply = {"ok": False, "error": {"name": "ExecutionErr", "message": "the result is not JSON: " + str(error)}}
            else:
                sys.stdout.flush()
                sys.stderr.flush()
                out.write('{"ok": true, "result": ' + text + _also(preprocessed) + "}")
                out.close()
                return
    except BaseException as error:
        reply = {"ok": False, "error": _describe(error, script_path)}
    sys.stdout.flush()
    sys.stderr.flush()
    out.write(json.dumps(reply)[:-1] + _also(preprocessed) + "}")
    out.close()

def _also(preprocessed):
    return "" if preprocessed is None else ', "preprocessed": ' + preprocessed

_run()
`;
