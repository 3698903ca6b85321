"""Read SuperPMI collections, .mcz archives and .mch files alike, through libmcz.

    import mcz
    with mcz.open("libraries.mcz") as c:     # or an .mch file
        print(len(c), c.info()["kind"])
        first = c.context(1)                  # bytes of context 1 (SuperPMI's numbers)
        for mc in c:                          # every context's bytes, in number order
            ...

The library is libmcz.so.ABI_MAJOR: the file $MCZ_LIBRARY names when it is set, else the one
`make install` put beside this module (LIBDIR, then PREFIX/lib), else whatever the system's
loader finds. Every failure, bad input above all, is an mcz.Error carrying the library's
message and the name of its error code. A Collection is safe to share between threads (calls
on it take turns); each iteration reads through a handle of its own.
"""

import ctypes
import operator
import os
import threading

__all__ = ["ABI_MAJOR", "Collection", "Error", "library_version", "open"]

# The ABI the declarations below follow: they load libmcz.so.2 and no other major.
ABI_MAJOR = 2

# Set by `make install` to its LIBDIR.
_INSTALLED_LIBDIR = None

# Error codes this module raises itself (format/mcz.h, MCZ_ERROR_LIST: part of the ABI).
_ETRUNCATED = -5
_ENOTFOUND = -8
_ESTATE = -12


class Error(Exception):
    """A failure reported by libmcz, or found by this module before it asked.

    code     the mcz_error code (negative), or None when libmcz itself could not be loaded
    name     mcz_error_name(code), e.g. "corrupt input"
    message  the library's one-line detail (mcz_diag), or the name when it gave none
    path     the collection concerned, or None
    offset   byte offset in the file, or None
    context  1-based context number, or None
    """

    def __init__(self, code, message, path=None, offset=-1, context=-1):
        self.code = code
        self.name = _error_name(code)
        self.message = message or self.name
        self.path = path
        self.offset = offset if offset is not None and offset >= 0 else None
        self.context = context if context is not None and context > 0 else None
        super().__init__(self._text())

    def _text(self):
        text = self.message
        # The library often names the file or the context itself already: say each once.
        if self.path and text.startswith(self.path + ": "):
            text = text[len(self.path) + 2:]
        if self.context is not None and text.startswith("context %d: " % self.context):
            text = text[len("context %d: " % self.context):]
        parts = [self.path] if self.path else []
        if self.context is not None and self.offset is not None:
            parts.append("context %d at offset %d" % (self.context, self.offset))
        elif self.context is not None:
            parts.append("context %d" % self.context)
        elif self.offset is not None:
            parts.append("at offset %d" % self.offset)
        line = ": ".join(parts + [text])
        return line if text == self.name else "%s [%s]" % (line, self.name)


# ---- The C declarations (format/mcz.h) ----

class _Diag(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_int64),
                ("context", ctypes.c_int64), ("message", ctypes.c_char * 256)]


class _Mc(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("offset", ctypes.c_uint64), ("number", ctypes.c_uint32)]


_CODEC_XZ = 2  # MCZ_CODEC_XZ
_LAYOUT_PACKETS = 2  # MCZ_LAYOUT_PACKETS


class _ArchiveInfo(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("contexts", ctypes.c_uint64),
                ("chunks", ctypes.c_uint64), ("first_number", ctypes.c_uint32),
                ("last_number", ctypes.c_uint32), ("raw_bytes", ctypes.c_uint64),
                ("file_bytes", ctypes.c_uint64), ("dict_id", ctypes.c_uint32),
                ("dict_size", ctypes.c_uint32), ("level", ctypes.c_int),
                ("chunk_size", ctypes.c_uint32), ("hashes", ctypes.c_bool),
                ("codec", ctypes.c_int),
                # A guard only: the struct does not grow within a major version (mcz.h).
                ("_reserved", ctypes.c_uint8 * 256)]


_VOID = ctypes.c_void_p
_DIAG = ctypes.POINTER(_Diag)
_PROTOTYPES = {
    "mcz_version_number": (ctypes.c_uint, []),
    "mcz_version_string": (ctypes.c_char_p, []),
    "mcz_error_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mcz_diag_clear": (None, [_DIAG]),
    "mcz_source_open": (_VOID, [ctypes.c_char_p, _DIAG]),
    "mcz_source_close": (None, [_VOID]),
    "mcz_source_archive": (_VOID, [_VOID]),
    "mcz_source_next": (ctypes.c_int, [_VOID, ctypes.POINTER(_Mc), _DIAG]),
    "mcz_source_get": (ctypes.c_int, [_VOID, ctypes.c_uint32, ctypes.POINTER(_Mc), _DIAG]),
    "mcz_reader_get_info": (None, [_VOID, ctypes.POINTER(_ArchiveInfo)]),
    "mcz_reader_layout": (ctypes.c_int, [_VOID]),
    "mcz_toc_find": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "mcz_source_jit_ee": (_VOID, [_VOID, _VOID, _VOID]),
    "mcz_jit_ee_name": (ctypes.c_char_p, [_VOID]),
    "mcz_jit_ee_guid": (ctypes.c_char_p, [_VOID]),
}

_lib = None
_lib_lock = threading.RLock()


def _candidates():
    name = "libmcz.so.%d" % ABI_MAJOR
    override = os.environ.get("MCZ_LIBRARY")
    if override:
        return [override]
    here = os.path.dirname(os.path.abspath(__file__))
    beside = [os.path.join(d, name) for d in (_INSTALLED_LIBDIR,
                                              os.path.join(here, "..", "..", ".."))
              if d]
    return [p for p in beside if os.path.exists(p)] + [name]


def _load():
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path)
                break
            except OSError as e:
                tried.append(str(e))
        else:
            raise Error(None, "cannot load libmcz (set MCZ_LIBRARY to its path): " +
                        "; ".join(tried))
        try:
            for fn, (restype, argtypes) in _PROTOTYPES.items():
                f = getattr(lib, fn)
                f.restype, f.argtypes = restype, argtypes
        except AttributeError as e:
            raise Error(None, "%s is not libmcz: %s" % (path, e)) from None
        major = lib.mcz_version_number() // 10000
        if major != ABI_MAJOR:
            raise Error(None, "%s is libmcz %s; this module speaks ABI %d" % (
                path, lib.mcz_version_string().decode(), ABI_MAJOR))
        _lib = lib
        return lib


def _error_name(code):
    if code is None:
        return "library not loaded"
    try:
        return _load().mcz_error_name(code).decode()
    except Error:
        return "error %d" % code


def library_version():
    """The version of the libmcz loaded (mcz_version_string), e.g. "2.1.0"."""
    return _load().mcz_version_string().decode()


def _raise(diag, path, code=None):
    code = diag.code if diag.code != 0 else (code if code is not None else -1)
    raise Error(code, diag.message.decode("utf-8", "replace"), path, diag.offset, diag.context)


class _Handle:
    """One mcz_source, closed exactly once."""

    def __init__(self, path, display):
        self.ptr = None
        lib = _load()
        diag = _Diag()
        lib.mcz_diag_clear(ctypes.byref(diag))
        self.ptr = lib.mcz_source_open(path, ctypes.byref(diag))
        if not self.ptr:
            _raise(diag, display)
        self.lib = lib

    def close(self):
        ptr, self.ptr = self.ptr, None
        if ptr:
            self.lib.mcz_source_close(ptr)

    def __del__(self):
        self.close()


def _walk(path, display):
    """(number, bytes) of every context, in order, through a handle of its own."""
    h = _Handle(path, display)
    try:
        mc, diag = _Mc(), _Diag()
        while True:
            rc = h.lib.mcz_source_next(h.ptr, ctypes.byref(mc), ctypes.byref(diag))
            if rc == 0:
                return
            if rc < 0:
                _raise(diag, display, rc)
            yield mc.number, ctypes.string_at(mc.bytes, mc.size)
    finally:
        h.close()


class Collection:
    """An open .mcz archive or .mch file (mcz_source). Use mcz.open()."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._display = os.fsdecode(self.path)
        self._file = os.fsencode(self.path)
        try:
            empty = os.path.isfile(self._file) and os.path.getsize(self._file) == 0
        except OSError:
            empty = False
        if empty:  # as mcs refuses it: an empty file holds no collection
            raise Error(_ETRUNCATED, "empty file: no method contexts", self._display)
        self._lock = threading.Lock()
        self._handle = _Handle(self._file, self._display)
        self._mch = None  # an MCH's walk: (contexts, raw bytes, first, last), once done

    def close(self):
        """Releases the collection; later calls raise mcz.Error. Closing twice is harmless."""
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._handle is None else "open"
        return "<mcz.Collection %r (%s)>" % (self._display, state)

    def _open_handle(self):
        if self._handle is None:
            raise Error(_ESTATE, "the collection is closed", self._display)
        return self._handle

    def _archive(self):
        h = self._open_handle()
        return h.lib.mcz_source_archive(h.ptr)

    def _archive_info(self, reader):
        info = _ArchiveInfo()
        self._handle.lib.mcz_reader_get_info(reader, ctypes.byref(info))
        return info

    def _mch_walk(self):
        if self._mch is None:
            count, raw, first, last = 0, 0, 0, 0
            for number, data in _walk(self._file, self._display):
                count, raw, last = count + 1, raw + len(data), number
                first = first or number
            self._mch = (count, raw, first, last)
        return self._mch

    def __len__(self):
        """Contexts held. An .mch file is walked once to count them (damage raises)."""
        with self._lock:
            reader = self._archive()
            if reader:
                return self._archive_info(reader).contexts
        return self._mch_walk()[0]

    def context(self, number):
        """The bytes of context `number` (1-based, as SuperPMI numbers them); mcz.Error when
        the collection does not hold it or it is damaged."""
        number = operator.index(number)
        if not 0 <= number <= 0xFFFFFFFF:
            raise Error(_ENOTFOUND, "no context %d" % number, self._display)
        with self._lock:
            h = self._open_handle()
            mc, diag = _Mc(), _Diag()
            rc = h.lib.mcz_source_get(h.ptr, number, ctypes.byref(mc), ctypes.byref(diag))
            if rc < 0:
                _raise(diag, self._display, rc)
            return ctypes.string_at(mc.bytes, mc.size)

    def items(self):
        """(number, bytes) of every context, in number order."""
        self._open_handle()
        return _walk(self._file, self._display)

    def __iter__(self):
        """The bytes of every context, in number order: concatenated, an .mch file's bytes."""
        return (data for _, data in self.items())

    def _jit_ee(self):
        """(name, guid) of the JIT-EE version the collection records or its first contexts
        show (mcz_source_jit_ee), guid None when unknown; (None, None) when undecided."""
        h = self._open_handle()
        v = h.lib.mcz_source_jit_ee(h.ptr, None, None)
        if not v:
            return None, None
        guid = h.lib.mcz_jit_ee_guid(v)
        return h.lib.mcz_jit_ee_name(v).decode(), guid.decode() if guid else None

    def info(self):
        """What the collection is: a dict with kind ("archive" or "mch"), contexts,
        first_number, last_number, raw_bytes (the equivalent .mch size), file_bytes, jit_ee
        and jit_ee_guid (the JIT-EE version it records or its packets show: a name such as
        "B", and its GUID or None; both None when the packets cannot tell); for an
        archive also version, chunks, dictionary, dict_id, dict_size, level, chunk_size,
        hashes (identity hashes stored), codec ("zstd" or "xz") and layout ("packets" or
        "plain"); for an .mch file toc (the
        .mct SuperPMI would use,
        or None)."""
        with self._lock:
            jit_ee, jit_ee_guid = self._jit_ee()
            reader = self._archive()
            if reader:
                i = self._archive_info(reader)
                return {"kind": "archive", "path": self._display, "version": i.version,
                        "jit_ee": jit_ee, "jit_ee_guid": jit_ee_guid,
                        "contexts": i.contexts, "first_number": i.first_number,
                        "last_number": i.last_number, "raw_bytes": i.raw_bytes,
                        "file_bytes": i.file_bytes, "chunks": i.chunks,
                        "dictionary": i.dict_id != 0, "dict_id": i.dict_id,
                        "dict_size": i.dict_size, "level": i.level,
                        "chunk_size": i.chunk_size, "hashes": bool(i.hashes),
                        "codec": "xz" if i.codec == _CODEC_XZ else "zstd",
                        "layout": "packets" if self._handle.lib.mcz_reader_layout(reader)
                        == _LAYOUT_PACKETS else "plain"}
        count, raw, first, last = self._mch_walk()
        toc = ctypes.create_string_buffer(4096)
        found = _load().mcz_toc_find(self._file, toc, len(toc)) == 1
        return {"kind": "mch", "path": self._display, "contexts": count,
                "jit_ee": jit_ee, "jit_ee_guid": jit_ee_guid,
                "first_number": first, "last_number": last, "raw_bytes": raw,
                "file_bytes": os.path.getsize(self._file),
                "toc": os.fsdecode(toc.value) if found else None}


def open(path):
    """Opens a collection: an .mcz archive (recognised by its magic) or an .mch file. path is
    a str, bytes or os.PathLike. Raises mcz.Error when it is missing, empty or damaged."""
    return Collection(path)
