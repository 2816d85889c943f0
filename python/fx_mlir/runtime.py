"""ctypes binding of the fx-mlir C API (include/fx/fx.h): compile FX-dialect
IR and run it on NumPy arrays, or load artifacts, from any Python 3 with
NumPy; no compiled extension and no torch.

    import fx_mlir
    model = fx_mlir.compile("model.mlir", target="cpu")   # or IR text
    model.bind_weights("model.safetensors")
    outputs = model(x)                 # a list of NumPy arrays
    fx_mlir.load("model.fxa")          # artifacts need only libfxrt.so

The library is found through $FX_MLIR_LIB (a path to libfx.so or
libfxrt.so), else next to this package in a build tree (build/lib), else on
the loader's search path. Errors raise fx_mlir.Error with the library's
message (compiler diagnostics carry their source locations).
"""

import ctypes
import os
import re

import numpy as np

__all__ = ["Compiler", "Error", "Model", "compile", "load", "library"]

API_VERSION = 101


class Error(RuntimeError):
    """An error reported by the fx-mlir library."""


# fx_dtype values and the NumPy dtypes they hold (bf16 as its raw uint16).
_DTYPES = [np.float32, np.float16, np.uint16, np.float64, np.int64, np.int32, np.int8,
           np.uint8, np.bool_]
_DTYPE_NAMES = ["f32", "f16", "bf16", "f64", "i64", "i32", "i8", "u8", "bool"]


class _ModelOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("entry", ctypes.c_char_p),
                ("target", ctypes.c_char_p), ("vulkan_device", ctypes.c_int),
                ("vulkan_validation", ctypes.c_int)]


class _CompilerOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("target", ctypes.c_char_p),
                ("mode", ctypes.c_char_p), ("fusion", ctypes.c_int),
                ("dump_dir", ctypes.c_char_p), ("cache_dir", ctypes.c_char_p),
                ("entry", ctypes.c_char_p), ("cpu", ctypes.c_char_p),
                ("vulkan_device", ctypes.c_int), ("num_arguments", ctypes.c_size_t),
                ("argument_ranks", ctypes.POINTER(ctypes.c_size_t)),
                ("argument_shapes", ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))),
                ("sub_batch", ctypes.c_char_p)]


_P = ctypes.c_void_p
_I64P = ctypes.POINTER(ctypes.c_int64)
_SIGNATURES = {
    "fx_api_version": (ctypes.c_uint32, []),
    "fx_error_message": (ctypes.c_char_p, [_P]),
    "fx_error_free": (None, [_P]),
    "fx_tensor_wrap": (_P, [_P, ctypes.c_int, _I64P, ctypes.c_size_t, ctypes.POINTER(_P)]),
    "fx_tensor_free": (None, [_P]),
    "fx_tensor_dtype": (ctypes.c_int, [_P]),
    "fx_tensor_rank": (ctypes.c_size_t, [_P]),
    "fx_tensor_shape": (_I64P, [_P]),
    "fx_tensor_data": (_P, [_P]),
    "fx_tensor_byte_size": (ctypes.c_size_t, [_P]),
    "fx_model_run": (_P, [_P, ctypes.POINTER(_P), ctypes.c_size_t, ctypes.POINTER(_P),
                          ctypes.c_size_t]),
    "fx_model_options_init": (None, [ctypes.POINTER(_ModelOptions)]),
    "fx_model_load": (_P, [ctypes.c_char_p, ctypes.POINTER(_ModelOptions), ctypes.POINTER(_P)]),
    "fx_model_free": (None, [_P]),
    "fx_model_name": (ctypes.c_char_p, [_P]),
    "fx_model_target": (ctypes.c_char_p, [_P]),
    "fx_model_num_inputs": (ctypes.c_size_t, [_P]),
    "fx_model_input_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "fx_model_input_dtype": (ctypes.c_int, [_P, ctypes.c_size_t]),
    "fx_model_input_rank": (ctypes.c_size_t, [_P, ctypes.c_size_t]),
    "fx_model_input_shape": (_I64P, [_P, ctypes.c_size_t]),
    "fx_model_num_outputs": (ctypes.c_size_t, [_P]),
    "fx_model_output_dtype": (ctypes.c_int, [_P, ctypes.c_size_t]),
    "fx_model_output_rank": (ctypes.c_size_t, [_P, ctypes.c_size_t]),
    "fx_model_output_shape": (_I64P, [_P, ctypes.c_size_t]),
    "fx_model_bind_weights": (_P, [_P, ctypes.c_char_p]),
    "fx_model_set_parameter": (_P, [_P, ctypes.c_char_p, _P]),
    "fx_model_run_into": (_P, [_P, ctypes.POINTER(_P), ctypes.c_size_t, ctypes.POINTER(_P),
                               ctypes.c_size_t]),
}
_COMPILER_SIGNATURES = {
    "fx_compiler_options_init": (None, [ctypes.POINTER(_CompilerOptions)]),
    "fx_compiler_create": (_P, [ctypes.POINTER(_CompilerOptions), ctypes.POINTER(_P)]),
    "fx_compiler_free": (None, [_P]),
    "fx_compiler_compile_file": (_P, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    "fx_compiler_compile_string": (_P, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    "fx_compiler_save": (_P, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fx_compiler_last_cache_hit": (ctypes.c_int, [_P]),
    "fx_compiler_last_milliseconds": (ctypes.c_double, [_P]),
}

_lib = None


def _candidates():
    env = os.environ.get("FX_MLIR_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(here, "..", "..", "build", "lib")
    return [os.path.join(build, "libfx.so"), os.path.join(build, "libfxrt.so"), "libfx.so",
            "libfxrt.so"]


def library():
    """The loaded C library (libfx.so, or libfxrt.so without the compiler)."""
    global _lib
    if _lib is not None:
        return _lib
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise Error("cannot load the fx-mlir library (set FX_MLIR_LIB to libfx.so): " +
                    "; ".join(errors))
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    lib.has_compiler = hasattr(lib, "fx_compiler_create")
    if lib.has_compiler:
        for name, (restype, argtypes) in _COMPILER_SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    if lib.fx_api_version() // 100 != API_VERSION // 100:
        raise Error("the fx-mlir library has API version %d; this binding needs %d.x" %
                    (lib.fx_api_version(), API_VERSION // 100))
    _lib = lib
    return lib


def _check(error):
    """Raises Error for a non-null fx_error*, freeing it."""
    if error:
        lib = library()
        message = lib.fx_error_message(error).decode()
        lib.fx_error_free(error)
        raise Error(message)


def _bytes(text):
    return None if text is None else os.fsencode(text) if not isinstance(text, bytes) else text


def _release(obj, attr):
    """Frees obj's C handle once, through the free function it kept when it
    was made: at interpreter exit this module's globals may be gone before
    the objects are."""
    handle = getattr(obj, attr, None)
    free = getattr(obj, "_free", None)
    if handle and free is not None:
        setattr(obj, attr, None)
        free(handle)


def _contiguous(array):
    """A C-contiguous array of the same shape (np.ascontiguousarray would make
    a 0-d array 1-d)."""
    array = np.asarray(array)
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


class _Tensor:
    """An fx_tensor wrapping a contiguous NumPy array (kept alive with it)."""

    def __init__(self, array):
        lib = library()
        self.array = array
        dtype = _DTYPES.index(array.dtype.type)
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        handle = _P()
        _check(lib.fx_tensor_wrap(array.ctypes.data, dtype, shape, array.ndim,
                                  ctypes.byref(handle)))
        self.handle = handle
        self._free = lib.fx_tensor_free

    def __del__(self):
        _release(self, "handle")


# The argument attribute the importer writes for an input's dynamic
# dimensions: {fx_import.dim_ranges = {dim0 = array<i64: MIN, MAX>}}, from
# torch.export.Dim(min=, max=); MAX 2^63-1 is unbounded (docs/Importing.md).
DIM_RANGES_ATTR = "fx_import.dim_ranges"
_UNBOUNDED = 2 ** 63 - 1
_RANGE = re.compile(r"dim(\d+)\s*=\s*array<i64:\s*(-?\d+)\s*,\s*(-?\d+)\s*>")


def _split_arguments(text, start):
    """The argument texts of the parenthesized list opening at text[start],
    split at its top-level commas (strings, brackets and types skipped)."""
    args, depth, i, begin = [], 0, start, start + 1
    closing = {")": "(", "]": "[", "}": "{", ">": "<"}
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{<":
            depth += 1
        elif ch in closing and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                args.append(text[begin:i])
                return args
        elif ch == "," and depth == 1:
            args.append(text[begin:i])
            begin = i + 1
        i += 1
    return args


_FUNC = re.compile(r"func\.func\s+((?:\w+\s+)*)@([\w$.]+)\s*\(")


def _function_arguments(ir, entry):
    """(name, [argument text]) of function `entry` in IR text (None: the
    only public one), or None when there is no such single function."""
    found = [m for m in _FUNC.finditer(ir) if "private" not in m.group(1)]
    if entry is not None:
        found = [m for m in found if m.group(2) == entry]
    if len(found) != 1:
        return None
    return found[0].group(2), _split_arguments(ir, found[0].end() - 1)


def dim_ranges(ir, entry):
    """{argument index: {dim: (min, max)}} from the `fx_import.dim_ranges`
    attributes of function `entry`'s arguments in the IR text; {} when it
    has none."""
    if DIM_RANGES_ATTR not in ir:
        return {}
    function = _function_arguments(ir, entry)
    if function is None:
        return {}
    ranges = {}
    for index, arg in enumerate(function[1]):
        at = arg.find(DIM_RANGES_ATTR)
        if at < 0:
            continue
        body = arg[at:arg.find("}", at)]
        ranges[index] = {int(d): (int(lo), int(hi)) for d, lo, hi in _RANGE.findall(body)}
    return ranges


class Model:
    """A compiled entry point loaded on the CPU or a Vulkan device.

    `inputs` and `outputs` list (name, dtype, shape); calling the model with
    NumPy arrays (the non-parameter inputs, in order) returns a list of
    arrays. Arrays must have the input's dtype exactly (bf16 as uint16);
    they are used in place when C-contiguous, else copied.

    `dim_ranges` maps an input's index to {dim: (min, max)}: the sizes its
    dynamic dimensions may take, from the IR's `fx_import.dim_ranges`
    (torch.export.Dim's range, which the importer records) for models
    compiled from IR; a call with a size outside them raises Error before
    running. (The C++ runtime checks them too, for artifacts as well: their
    manifests carry the ranges.)
    """

    def __init__(self, handle, ir=None):
        lib = library()
        self._handle = handle
        self._free = lib.fx_model_free
        self._parameters = {}
        self.name = lib.fx_model_name(handle).decode()
        self.target = lib.fx_model_target(handle).decode()
        self.inputs = [(lib.fx_model_input_name(handle, i).decode(),
                        _DTYPE_NAMES[lib.fx_model_input_dtype(handle, i)],
                        tuple(lib.fx_model_input_shape(handle, i)[d]
                              for d in range(lib.fx_model_input_rank(handle, i))))
                       for i in range(lib.fx_model_num_inputs(handle))]
        self.outputs = [(_DTYPE_NAMES[lib.fx_model_output_dtype(handle, i)],
                         tuple(lib.fx_model_output_shape(handle, i)[d]
                               for d in range(lib.fx_model_output_rank(handle, i))))
                        for i in range(lib.fx_model_num_outputs(handle))]
        # The inputs are the entry's arguments that are not parameters,
        # named argN by their argument index N.
        by_argument = dim_ranges(ir, self.name) if ir else {}
        self.dim_ranges = {}
        for i, (name, _, _) in enumerate(self.inputs):
            if name.startswith("arg") and name[3:].isdigit() and int(name[3:]) in by_argument:
                self.dim_ranges[i] = by_argument[int(name[3:])]

    def __del__(self):
        _release(self, "_handle")

    def __repr__(self):
        return "<fx_mlir.Model %s on %s: inputs %s, outputs %s>" % (
            self.name, self.target, self.inputs, self.outputs)

    def _check_ranges(self, i, name, shape):
        _check_range(self.dim_ranges.get(i, {}), i, name, shape)

    def bind_weights(self, path):
        """Binds every parameter from a .safetensors file, by name."""
        _check(library().fx_model_bind_weights(self._handle, _bytes(path)))

    def set_parameter(self, name, array):
        """Binds one parameter to a NumPy array (kept alive by the model).

        Changes to the array's contents take effect when it is bound again
        (a Vulkan device keeps a copy; CPU code may have prepared values
        from it, such as a packed convolution filter)."""
        tensor = _Tensor(_contiguous(array))
        _check(library().fx_model_set_parameter(self._handle, _bytes(name), tensor.handle))
        self._parameters[name] = tensor

    def __call__(self, *arrays):
        lib = library()
        if len(arrays) != len(self.inputs):
            raise Error("'%s' takes %d inputs (besides parameters), got %d" %
                        (self.name, len(self.inputs), len(arrays)))
        inputs = []
        for i, (array, (name, dtype, _)) in enumerate(zip(arrays, self.inputs)):
            array = np.asarray(array)
            want = _DTYPES[_DTYPE_NAMES.index(dtype)]
            if array.dtype.type is not want:
                raise Error("input %d (%s) expects dtype %s, got NumPy %s" %
                            (i, name, dtype, array.dtype))
            self._check_ranges(i, name, array.shape)
            inputs.append(_Tensor(_contiguous(array)))
        in_handles = (_P * max(len(inputs), 1))(*[t.handle for t in inputs])
        if any(d < 0 for _, shape in self.outputs for d in shape):
            # Shapes that depend on the inputs (an artifact compiled with
            # fx-compile --dynamic-sizes): the runtime allocates the outputs.
            out_handles = (_P * max(len(self.outputs), 1))()
            _check(lib.fx_model_run(self._handle, in_handles, len(inputs), out_handles,
                                    len(self.outputs)))
            results = []
            for handle in out_handles[:len(self.outputs)]:
                try:
                    rank = lib.fx_tensor_rank(handle)
                    shape = tuple(lib.fx_tensor_shape(handle)[d] for d in range(rank))
                    dtype = _DTYPES[lib.fx_tensor_dtype(handle)]
                    size = lib.fx_tensor_byte_size(handle)
                    raw = ctypes.string_at(lib.fx_tensor_data(handle), size)
                    results.append(np.frombuffer(raw, dtype=dtype).reshape(shape).copy())
                finally:
                    lib.fx_tensor_free(handle)
            return results
        results = [np.empty(shape, dtype=_DTYPES[_DTYPE_NAMES.index(dtype)])
                   for dtype, shape in self.outputs]
        outputs = [_Tensor(r) for r in results]
        out_handles = (_P * max(len(outputs), 1))(*[t.handle for t in outputs])
        _check(lib.fx_model_run_into(self._handle, in_handles, len(inputs), out_handles,
                                     len(outputs)))
        return results


def load(artifact, target=None, entry=None, vulkan_device=-1, vulkan_validation=False):
    """Loads an artifact (.fxa) with the runtime (libfxrt.so suffices)."""
    lib = library()
    options = _ModelOptions()
    lib.fx_model_options_init(ctypes.byref(options))
    options.target, options.entry = _bytes(target), _bytes(entry)
    options.vulkan_device, options.vulkan_validation = vulkan_device, int(vulkan_validation)
    handle = _P()
    _check(lib.fx_model_load(_bytes(artifact), ctypes.byref(options), ctypes.byref(handle)))
    return Model(handle)


class Compiler:
    """fx::Compiler through the C API; see fx/Compiler/Compiler.h.

    target: "cpu" or "vulkan"; mode: "default", "reduce-overhead" or
    "max-autotune"; fusion; cache_dir (the on-disk compile cache); dump_dir
    (the input IR and generated code); entry; cpu ("native", "x86-64-v3",
    ...); vulkan_device; argument_shapes: a shape per argument of the entry
    (parameters included), in order, that its dynamic dimensions take (CPU
    code needs static shapes; a Vulkan program is sized at run time);
    sub_batch: CPU: how a batch-separable entry runs its batch, "auto"
    (None), "off" or the items per call (an int or its string).
    """

    def __init__(self, target="cpu", mode="default", fusion=True, cache_dir=None,
                 dump_dir=None, entry=None, cpu="native", vulkan_device=-1,
                 argument_shapes=None, sub_batch=None):
        lib = library()
        if not lib.has_compiler:
            raise Error("the loaded library is the runtime only (libfxrt.so); compiling "
                        "needs libfx.so")
        options = _CompilerOptions()
        lib.fx_compiler_options_init(ctypes.byref(options))
        options.target, options.mode = _bytes(target), _bytes(mode)
        options.fusion, options.vulkan_device = int(bool(fusion)), vulkan_device
        options.cache_dir, options.dump_dir = _bytes(cache_dir), _bytes(dump_dir)
        options.entry, options.cpu = _bytes(entry), _bytes(cpu)
        options.sub_batch = _bytes(None if sub_batch is None else str(sub_batch))
        arrays = []
        if argument_shapes:
            shapes = [tuple(int(d) for d in shape) for shape in argument_shapes]
            ranks = (ctypes.c_size_t * len(shapes))(*[len(s) for s in shapes])
            arrays = [(ctypes.c_int64 * max(len(s), 1))(*s) for s in shapes]
            pointers = (ctypes.POINTER(ctypes.c_int64) * len(shapes))(
                *[ctypes.cast(a, ctypes.POINTER(ctypes.c_int64)) for a in arrays])
            options.num_arguments = len(shapes)
            options.argument_ranks, options.argument_shapes = ranks, pointers
            arrays += [ranks, pointers]
        self._keep = (options, arrays)  # must outlive the call only
        handle = _P()
        _check(lib.fx_compiler_create(ctypes.byref(options), ctypes.byref(handle)))
        self._handle = handle
        self._free = lib.fx_compiler_free

    def __del__(self):
        _release(self, "_handle")

    def compile_file(self, path):
        handle = _P()
        _check(library().fx_compiler_compile_file(self._handle, _bytes(path),
                                                  ctypes.byref(handle)))
        try:  # the IR text, for the ranges of its dynamic dimensions
            with open(path, encoding="utf-8", errors="replace") as f:
                ir = f.read()
        except OSError:
            ir = None
        return Model(handle, ir)

    def compile_string(self, text):
        handle = _P()
        _check(library().fx_compiler_compile_string(self._handle, text.encode(),
                                                    ctypes.byref(handle)))
        return Model(handle, text)

    def save(self, path, artifact):
        """Compiles the file at `path` into the artifact file `artifact`."""
        _check(library().fx_compiler_save(self._handle, _bytes(path), _bytes(artifact)))

    @property
    def last_cache_hit(self):
        return bool(library().fx_compiler_last_cache_hit(self._handle))

    @property
    def last_milliseconds(self):
        return library().fx_compiler_last_milliseconds(self._handle)


def _entry_arguments(ir, entry):
    """The name and arguments of the function to compile (`entry`, else the
    only public one with a body) in IR text: (name, [(dims with None for
    `?`, element type, is a parameter)]), or None when that is not clear."""
    function = _function_arguments(ir, entry)
    if function is None:
        return None
    arguments = []
    for text in function[1]:
        m = re.search(r"tensor<([^>]*)>", text)
        if not m:
            return None
        parts = m.group(1).split("x")
        dims = [None if d == "?" else int(d) for d in parts[:-1]]
        arguments.append((dims, parts[-1], "fx.param" in text))
    return function[0], arguments


def _check_range(ranges, i, name, shape):
    """Raises Error if `shape` (input i's) has a size outside `ranges`
    ({dim: (min, max)}, from fx_import.dim_ranges)."""
    for dim, (lo, hi) in sorted(ranges.items()):
        if dim < len(shape) and not lo <= shape[dim] <= hi:
            top = "no maximum" if hi == _UNBOUNDED else "at most %d" % hi
            raise Error(
                "input %d (%s) has size %d in dimension %d, outside the range it was "
                "imported for: at least %d and %s (torch.export.Dim's min and max, "
                "recorded as %s). Pass a size in that range, or import the model with "
                "a Dim whose range holds this size" %
                (i, name, shape[dim], dim, lo, top, DIM_RANGES_ATTR))


class PerShapeModel:
    """CPU code for IR with `?` dimensions, which CPU code cannot keep:
    each new set of input shapes compiles the entry for them (Compiler's
    argument_shapes) at its first call, and later calls with those shapes
    reuse it; the weights bound so far are bound to each new compile.
    `inputs` report a `?` as -1; `compiled` lists the shapes compiled.
    fx_mlir.compile returns one for such IR on the CPU (Vulkan compiles one
    program for all sizes instead)."""

    def __init__(self, ir, name, arguments, options):
        self._ir, self._options, self._arguments = ir, options, arguments
        self._models, self._bindings = {}, []
        self.name, self.target = name, "cpu"
        by_argument = dim_ranges(ir, name)
        self.inputs, self.dim_ranges = [], {}
        for index, (dims, etype, is_param) in enumerate(arguments):
            if is_param:
                continue
            if index in by_argument:
                self.dim_ranges[len(self.inputs)] = by_argument[index]
            self.inputs.append(("arg%d" % index, etype,
                                tuple(-1 if d is None else d for d in dims)))

    def __repr__(self):
        return "<fx_mlir.PerShapeModel %s on cpu: inputs %s, compiled for %s>" % (
            self.name, self.inputs, self.compiled)

    @property
    def compiled(self):
        return [shapes for shapes in self._models]

    def bind_weights(self, path):
        """Binds every parameter from a .safetensors file, by name (to the
        models compiled so far and to later ones)."""
        for model in self._models.values():
            model.bind_weights(path)
        self._bindings.append(("file", path))

    def set_parameter(self, name, array):
        """Binds one parameter to a NumPy array (see Model.set_parameter)."""
        for model in self._models.values():
            model.set_parameter(name, array)
        self._bindings.append(("array", name, array))

    def __call__(self, *arrays):
        if len(arrays) != len(self.inputs):
            raise Error("'%s' takes %d inputs (besides parameters), got %d" %
                        (self.name, len(self.inputs), len(arrays)))
        shapes, next_input = [], 0
        for dims, _, is_param in self._arguments:
            if is_param:
                if None in dims:
                    raise Error("'%s' has a parameter of dynamic shape; CPU code needs "
                                "its size" % self.name)
                shapes.append(tuple(dims))
                continue
            i = next_input
            shape = np.shape(arrays[i])
            name = self.inputs[i][0]
            if len(shape) != len(dims) or any(d is not None and d != s
                                              for d, s in zip(dims, shape)):
                raise Error("input %d (%s) expects shape %s, got %s" % (
                    i, name, "[" + ", ".join("?" if d is None else str(d) for d in dims) + "]",
                    list(shape)))
            _check_range(self.dim_ranges.get(i, {}), i, name, shape)
            shapes.append(tuple(shape))
            next_input += 1
        key = tuple(shapes)
        model = self._models.get(key)
        if model is None:
            model = Compiler(argument_shapes=list(key), entry=self.name,
                             **self._options).compile_string(self._ir)
            for binding in self._bindings:
                if binding[0] == "file":
                    model.bind_weights(binding[1])
                else:
                    model.set_parameter(binding[1], binding[2])
            self._models[key] = model
        return model(*arrays)


def compile(source, **options):
    """Compiles IR text, or the .mlir file at that path, into a Model.

    Keyword arguments are Compiler's. IR whose entry has `?` dimensions,
    compiled for the CPU without argument_shapes, gives a PerShapeModel,
    which compiles for each new set of input shapes at its first call."""
    looks_like_ir = "func.func" in source or "\n" in source
    if options.get("target", "cpu") == "cpu" and not options.get("argument_shapes"):
        ir = source
        if not looks_like_ir:
            try:
                with open(source, encoding="utf-8", errors="replace") as f:
                    ir = f.read()
            except OSError:
                ir = None  # compile_file reports it
        entry = _entry_arguments(ir, options.get("entry")) if ir else None
        if entry and any(None in dims for dims, _, _ in entry[1]):
            rest = {k: v for k, v in options.items() if k != "entry"}
            Compiler(**rest)  # the options' errors now, not at the first call
            return PerShapeModel(ir, entry[0], entry[1], rest)
    compiler = Compiler(**options)
    if not looks_like_ir:
        return compiler.compile_file(source)
    return compiler.compile_string(source)
