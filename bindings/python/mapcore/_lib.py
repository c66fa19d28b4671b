"""Loading libmapcore and the declarations of include/mapcore/common.h: versions, errors, buffers.

Also the type aliases of the annotations (for type checkers only: they do not exist at run time)."""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import json
import os
import queue
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Sequence, TypeVar

if TYPE_CHECKING:
    from typing import Protocol, Union

    from typing_extensions import Buffer

    class SupportsGeoInterface(Protocol):
        """An object of the geo interface (shapely geometries, GeoPandas frames, mapcore.GeoJSON)."""

        @property
        def __geo_interface__(self) -> Any: ...

    #: The forms GeoJSON input takes: a dict, JSON text (str or UTF-8 bytes), a path to a file, an
    #: object with __geo_interface__, or a list/tuple of features (dicts or geo interface objects).
    GeoJSONLike = Union[dict[str, Any], str, bytes, bytearray, memoryview, "os.PathLike[str]", SupportsGeoInterface,
                        list[Any], tuple[Any, ...]]
    #: Bulk positions: (lon, lat[, alt]) sequences, or a buffer of float64 lon/lat pairs (numpy, array('d')).
    PositionsLike = Union[Sequence[Sequence[float]], Buffer]
    #: A box (west, south, east, north).
    BBoxLike = Sequence[float]
    #: What the library's buffer-filling calls are given: the status-returning call, taking the mc_buf pointer.
    Fill = Callable[[Any], int]

c_int_p = ctypes.POINTER(ctypes.c_int)
c_size_p = ctypes.POINTER(ctypes.c_size_t)
c_double_p = ctypes.POINTER(ctypes.c_double)


def _candidates() -> Iterator[Path]:
    """Where the library may be, in the order the README documents."""
    env = os.environ.get("MAPCORE_LIBRARY")
    if env:
        yield Path(env)
        return
    here = Path(__file__).resolve().parent
    yield here / "libmapcore.so"
    for parent in here.parents:
        for build in (".build/release", ".build/debug"):
            yield parent / build / "libmapcore.so"
    found = ctypes.util.find_library("mapcore")
    if found:
        yield Path(found)


def _load() -> tuple[ctypes.CDLL, str]:
    """The loaded library and its path, from the first candidate that loads."""
    tried: list[str] = []
    for path in _candidates():
        if path.is_absolute() and not path.exists():
            tried.append(str(path))
            continue
        try:
            return ctypes.CDLL(str(path)), str(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError(
        "mapcore: libmapcore.so not found. Set MAPCORE_LIBRARY, or build it with "
        "`swift build -c release --product mapcore`. Tried: " + "; ".join(tried[:6])
    )


lib, library_path = _load()


def _declare(name: str, restype: Any, *argtypes: Any) -> Any:
    """Sets the C signature of one library function (ctypes types, so typed Any here) and returns it."""
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


# ---- versions --------------------------------------------------------------------------------

_declare("mc_version", ctypes.c_char_p)
_declare("mc_version_number", ctypes.c_int)
_declare("mc_abi_version", ctypes.c_int)
_declare("mc_geos_version", ctypes.c_char_p)


def version() -> str:
    """The loaded library's version string, e.g. "0.1.0"."""
    text: bytes = lib.mc_version()
    return text.decode()


def abi_version() -> int:
    """MC_ABI_VERSION of the library loaded: it changes only when the ABI breaks (the soname's number)."""
    number: int = lib.mc_abi_version()
    return number


def geos_version() -> str:
    """Version of the GEOS library MapCore is linked against."""
    text: bytes = lib.mc_geos_version()
    return text.decode()


# ---- errors ----------------------------------------------------------------------------------

# The status codes of include/mapcore/common.h (mc_status), mirrored once for every module.
MC_OK = 0
MC_E_INVALID_ARGUMENT = -1
MC_E_PARSE = -2
MC_E_INVALID_GEOJSON = -3
MC_E_TYPE = -4
MC_E_NOT_FOUND = -5
MC_E_UNSUPPORTED = -6
MC_E_IO = -7
MC_E_BUFFER_TOO_SMALL = -8
MC_E_NO_MEMORY = -9
MC_E_MISUSE = -10
MC_E_LIMIT = -11
MC_E_INTERNAL = -12
MC_E_EXPRESSION = -13
MC_E_EVALUATION = -14

class Error(ctypes.Structure):
    """mc_error of common.h: the last error the library recorded on this thread."""

    code: int
    message: bytes | None
    path: bytes | None
    offset: int
    line: int
    column: int
    _fields_ = [
        ("code", ctypes.c_int),
        ("message", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("offset", ctypes.c_int64),
        ("line", ctypes.c_int64),
        ("column", ctypes.c_int64),
    ]


_declare("mc_errstr", ctypes.c_char_p, ctypes.c_int)
_declare("mc_last_error", ctypes.POINTER(Error))
_declare("mc_clear_error", None)


class MapCoreError(Exception):
    """An error reported by the library: `code` (MC_E_*), `name`, `message`, and for text input
    the JSONPath `path`, byte `offset`, `line` and `column` (None when not applicable)."""

    def __init__(self, code: int, message: str, path: str | None = None, offset: int | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        self.code = code
        name: bytes = lib.mc_errstr(code)
        self.name = name.decode()
        self.message = message
        self.path = path
        self.offset = offset
        self.line = line
        self.column = column
        where = f" (line {line}, column {column}{', at ' + path if path else ''})" if line else ""
        super().__init__(f"{self.name}: {message}{where}")


class InvalidArgumentError(MapCoreError, ValueError):
    """An argument the library refuses (MC_E_INVALID_ARGUMENT): a bad option, a value out of range."""


class ParseError(MapCoreError, ValueError):
    """Text that is not valid JSON (MC_E_PARSE: syntax, invalid UTF-8, bad number), located by
    `line`, `column` and `offset`."""


class InvalidGeoJSONError(MapCoreError, ValueError):
    """Valid JSON that is not valid GeoJSON (MC_E_INVALID_GEOJSON: type, nesting, rings); `path` is
    the JSONPath of the failing member."""


class UnsupportedError(MapCoreError, ValueError):
    """Valid input MapCore does not handle (MC_E_UNSUPPORTED), named in the message."""


class NotFoundError(MapCoreError, KeyError):
    """No such feature id, cluster id or index."""

    def __str__(self) -> str:
        """The message as other exceptions show it (KeyError would show its repr)."""
        return Exception.__str__(self)


class MapCoreIOError(MapCoreError, OSError):
    """A file or network operation failed."""

    def __str__(self) -> str:
        """The message as MapCoreError shows it (OSError would show its errno form)."""
        return Exception.__str__(self)


class BufferTooSmallError(MapCoreError):
    """A caller's buffer too small for the result (MC_E_BUFFER_TOO_SMALL)."""


class MisuseError(MapCoreError):
    """A NULL, freed or wrong-kind handle (MC_E_MISUSE), e.g. one used after close()."""


class LimitError(MapCoreError, ValueError):
    """Input beyond a limit of the library (MC_E_LIMIT): nesting depth, size."""


class ExpressionError(MapCoreError, ValueError):
    """An expression or filter that does not compile; `path` is the failing node's key path."""


class EvaluationError(MapCoreError, ValueError):
    """An expression that failed while evaluating (the style spec's run-time error)."""


class TypeMismatchError(MapCoreError, TypeError):
    """A value of the wrong type for an expression (MC_E_TYPE)."""


_ERRORS: dict[int, type[MapCoreError]] = {
    MC_E_INVALID_ARGUMENT: InvalidArgumentError, MC_E_PARSE: ParseError,
    MC_E_INVALID_GEOJSON: InvalidGeoJSONError, MC_E_TYPE: TypeMismatchError, MC_E_NOT_FOUND: NotFoundError,
    MC_E_UNSUPPORTED: UnsupportedError, MC_E_IO: MapCoreIOError, MC_E_BUFFER_TOO_SMALL: BufferTooSmallError,
    MC_E_MISUSE: MisuseError, MC_E_LIMIT: LimitError, MC_E_EXPRESSION: ExpressionError,
    MC_E_EVALUATION: EvaluationError}


def check(status: int) -> None:
    """Raises the error the library recorded for a failing status."""
    if status == MC_OK:
        return
    err: Error = lib.mc_last_error().contents
    message = (err.message or b"").decode("utf-8", "replace")
    path = (err.path or b"").decode("utf-8", "replace") or None
    located = err.line > 0
    raise _ERRORS.get(status, MapCoreError)(
        status, message, path if (located or status == MC_E_EXPRESSION) else None,
        err.offset if located else None, err.line if located else None, err.column if located else None)


# ---- buffers ---------------------------------------------------------------------------------

class Buf(ctypes.Structure):
    """mc_buf of common.h: bytes the library allocated, released with mc_buf_dispose."""

    data: Any  # the address as an int, or None when empty (so ctypes reads a c_void_p)
    len: int
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_declare("mc_buf_dispose", None, ctypes.POINTER(Buf))


def take_text(fill: Fill) -> str:
    """Calls `fill(buf)` with a fresh mc_buf and returns its text as str, disposing the buffer."""
    buf = Buf()
    try:
        check(fill(ctypes.byref(buf)))
        return ctypes.string_at(buf.data, buf.len).decode("utf-8")
    finally:
        lib.mc_buf_dispose(ctypes.byref(buf))


_loads: Callable[[bytes | str], Any]
try:  # orjson, when installed, builds the dicts of large results 1.3x faster than json
    import orjson

    _loads = orjson.loads
except ImportError:  # pragma: no cover - the test environment installs orjson
    _loads = json.loads


@contextlib.contextmanager
def collector_paused(large: bool) -> Iterator[None]:
    """Pauses the cycle collector while a large result is built (when `large`): building a
    million feature dicts triggers it again and again, which halves the speed, though none of
    these objects can form a cycle."""
    if not large or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def loads_json(data: bytes | str) -> Any:
    """Python values of JSON text the library wrote (bytes or str); texts over 1 MB are read
    with the cycle collector paused."""
    with collector_paused(len(data) >= 1 << 20):
        return _loads(data)


def take_json(fill: Fill) -> Any:
    """Calls `fill(buf)` with a fresh mc_buf and returns its JSON text read as Python values."""
    return loads_json(take_bytes(fill))


#: Serialization flags of include/mapcore/geojson.h.
SERIALIZE_PRETTY = 1
SERIALIZE_MSGPACK = 2

#: The optional C extension (_dicts.c, typed in _dicts.pyi): dicts of cluster answers, MessagePack
#: read as values. None when built without a C compiler or Python's headers: the Python ways then
#: do the same.
dicts: Any
try:
    from . import _dicts

    dicts = _dicts
except ImportError:
    dicts = None


def take_values(call: Callable[[int, Any], int]) -> Any:
    """The value a serializing call writes, as Python values: `call(flags, buf)` is asked for
    MessagePack (SERIALIZE_MSGPACK), read by the C extension without a copy, when the extension
    is built, else for JSON text, read as take_json reads it. The same values either way (a
    test compares them, types included)."""
    if dicts is None:
        return take_json(lambda buf: call(0, buf))
    buf = Buf()
    try:
        check(call(SERIALIZE_MSGPACK, ctypes.byref(buf)))
        with collector_paused(buf.len >= 1 << 20):
            return dicts.unpack(buf.data or 0, buf.len)
    finally:
        lib.mc_buf_dispose(ctypes.byref(buf))


def take_values_overlapped(calls: Sequence[Callable[[int, Any], int]]) -> Iterator[Any]:
    """take_values of each call in turn, the library's writing overlapped with the reading: a
    helper thread makes the calls (ctypes lets the GIL go while the library writes) while this
    thread reads the MessagePack of the ones before. A large answer fetched in parts so costs the
    longer of the two, not their sum, where a second core is free (perf log, "fetches
    overlapped"). At most two written parts wait. A call's status is checked on the helper, as
    the library keeps its error messages per thread; its exception is raised here. Once this
    thread stops reading (done, failed, interrupted or closed early) the helper stops, and the
    parts written but not read are disposed: by the helper itself if this thread is interrupted
    again while it waits for it, else here after it ended."""
    if dicts is None or len(calls) < 2:
        yield from map(take_values, calls)
        return
    written: queue.Queue[tuple[BaseException | None, Buf] | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def hand_over(part: tuple[BaseException | None, Buf] | None) -> bool:
        while not stop.is_set():
            try:
                written.put(part, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def dispose_waiting() -> None:
        while True:
            try:
                part = written.get_nowait()
            except queue.Empty:
                return
            if part is not None:
                lib.mc_buf_dispose(ctypes.byref(part[1]))

    def write() -> None:
        last: tuple[BaseException | None, Buf] | None = None
        try:
            for call in calls:
                if stop.is_set():
                    return
                buf = Buf()
                failure: BaseException | None = None
                try:
                    check(call(SERIALIZE_MSGPACK, ctypes.byref(buf)))
                except BaseException as e:  # raised by the reading thread
                    failure = e
                if not hand_over((failure, buf)):
                    lib.mc_buf_dispose(ctypes.byref(buf))
                    return
                if failure is not None:
                    return  # the reader stops there
        except BaseException as e:  # anything else: the reader must not wait for ever
            last = (e, Buf())
        finally:
            hand_over(last)
            if stop.is_set():
                dispose_waiting()

    helper = threading.Thread(target=write, name="mapcore-fetch", daemon=True)
    try:
        helper.start()
    except RuntimeError:  # no thread can be started here: the parts one after another
        yield from map(take_values, calls)
        return
    try:
        while (part := written.get()) is not None:
            failure, buf = part
            try:
                if failure is not None:
                    raise failure
                with collector_paused(buf.len >= 1 << 20):
                    value = dicts.unpack(buf.data or 0, buf.len)
            finally:
                lib.mc_buf_dispose(ctypes.byref(buf))
            yield value
    finally:
        stop.set()
        helper.join()
        dispose_waiting()


def take_bytes(fill: Fill) -> bytes:
    """Calls `fill(buf)` with a fresh mc_buf and returns its bytes (binary, e.g. a vector tile)."""
    buf = Buf()
    try:
        check(fill(ctypes.byref(buf)))
        return ctypes.string_at(buf.data, buf.len) if buf.len else b""
    finally:
        lib.mc_buf_dispose(ctypes.byref(buf))


# ---- handles ---------------------------------------------------------------------------------


_H = TypeVar("_H", bound="Handle")


class Handle:
    """Owns one library handle: freed by close(), a with-block, or garbage collection.
    Subclasses name their free function in `_free` (a staticmethod taking the pointer)."""

    __slots__ = ("_handle",)
    _handle: ctypes.c_void_p
    _free: ClassVar[Any] = None  # staticmethod(lib.mc_..._free), a ctypes function

    @classmethod
    def _adopt(cls: type[_H], handle: ctypes.c_void_p) -> _H:
        """Wraps a handle the library just returned, without running __init__."""
        obj = cls.__new__(cls)
        obj._handle = handle
        return obj

    def close(self) -> None:
        """Frees the library handle now; closing again does nothing, other calls raise MisuseError."""
        if self._handle:
            type(self)._free(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self: _H) -> _H:
        """The handle itself, closed when the with-block ends."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Closes the handle."""
        self.close()

    def __repr__(self) -> str:
        """<mapcore.Name open> or <mapcore.Name closed>; subclasses show their content."""
        return f"<mapcore.{type(self).__name__} {'open' if getattr(self, '_handle', None) else 'closed'}>"


class Compiled(Handle):
    """A compiled expression handle. Inside JSON data handed to the library it stands for its
    JSON form (`to_json()`), so expressions nest in options, arguments and other expressions."""

    __slots__ = ()

    def to_json(self) -> Any:
        """The expression's JSON form (lists, dicts and scalars)."""
        raise NotImplementedError


def _json_default(value: object) -> Any:
    if isinstance(value, Compiled):
        return value.to_json()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_bytes(value: Any) -> bytes:
    """UTF-8 JSON text of `value` for the library (no NaN; compiled expressions as their JSON)."""
    return json.dumps(value, allow_nan=False, ensure_ascii=False,
                      default=_json_default).encode("utf-8", "surrogatepass")
