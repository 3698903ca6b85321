"""Read SuperPMI collections, .mcz archives and .mch files alike, through libmcz.

    import mcz
    with mcz.open("libraries.mcz") as c:       # or an .mch file
        print(len(c), c.info()["kind"])
        mc = c[1]                               # context number 1 (SuperPMI's numbering)
        print(mc.number, mc.size, mc.identity, mc.method_name)
        for p in mc.packets:                    # (id, name, data), in the file's order
            print(p.id, p.name, len(p.data))
        for mc in c:                            # every context, in number order
            ...
        first_ten = c[1:11]                     # contexts 1..10, a list

Numbering. A collection is indexed by context number, as mcs, superpmi and .mct files number
contexts: c[1] is the first context, c[len(c)] the last (an archive that rolled over starts
at info()["first_number"] instead). A number the collection does not hold raises
mcz.NoSuchContext, which is both an IndexError and an mcz.Error; c[0] is never a context.
Negative numbers count from the end as in a list (c[-1] is the last context). A slice selects
by number too, half-open as Python's are: c[1:11] holds contexts 1 to 10; it is clipped to the
numbers held and returns a list.

A Context is the context's serialized bytes (a bytes subclass: bytes(mc), len(mc), comparing
and joining work as on bytes) with its number and what the library reads out of it: identity
(the hash .mct files and mcs -dumpToc show), method_name (the "method name" column of
mcs -dumpMap), packets, os.

The library is libmcz.so.ABI_MAJOR: the file $MCZ_LIBRARY names when it is set, else the one
`make install` put beside this module, else build/ of the source tree this module lies in,
else whatever the system's loader finds. A missing file raises FileNotFoundError (an OSError,
as open() does); every other failure, bad input above all, is an mcz.Error carrying the
library's message and the name of its error code. A Collection is safe to share between
threads (calls on it take turns); each iteration reads through a handle of its own.
"""

import collections
import ctypes
import errno
import operator
import os
import stat
import struct
import threading

__all__ = ["ABI_MAJOR", "Collection", "Context", "Error", "NoSuchContext", "Packet",
           "library_version", "open"]

# The ABI the declarations below follow: they load libmcz.so.3 and no other major.
ABI_MAJOR = 3

# Set by `make install`: its LIBDIR, and the same directory relative to this file's directory
# (so a staged or moved tree finds its own library first).
_INSTALLED_LIBDIR = None
_LIBDIR_FROM_HERE = None

# Error codes this module raises itself (format/mcz.h, MCZ_ERROR_LIST: part of the ABI).
_ENOMEM = -2
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
        parts = [self.path] if self.path else []
        if self.context is not None and self.offset is not None:
            parts.append("context %d at offset %d" % (self.context, self.offset))
        elif self.context is not None:
            parts.append("context %d" % self.context)
        elif self.offset is not None:
            parts.append("at offset %d" % self.offset)
        line = ": ".join(parts + [text])
        return line if text == self.name else "%s [%s]" % (line, self.name)


class NoSuchContext(Error, IndexError):
    """A context number the collection does not hold: an IndexError for c[n], and an
    mcz.Error (name "no such context") for code that catches the library's errors."""


# ---- The C declarations (format/mcz.h) ----

class _Diag(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_int64),
                ("context", ctypes.c_int64), ("message", ctypes.c_char * 256),
                ("subject", ctypes.c_char * 512)]


class _Mc(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("offset", ctypes.c_uint64), ("number", ctypes.c_uint32)]


class _Packet(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint8), ("size", ctypes.c_uint32),
                ("data", ctypes.c_void_p), ("offset", ctypes.c_uint32)]


class _Map(ctypes.Structure):
    _fields_ = [("tagged", ctypes.c_bool), ("dense", ctypes.c_bool),
                ("count", ctypes.c_uint32), ("item_size", ctypes.c_uint32),
                ("key_size", ctypes.c_uint32), ("value_size", ctypes.c_uint32),
                ("items", ctypes.c_void_p), ("pool", ctypes.c_void_p),
                ("pool_size", ctypes.c_uint32)]


class _Hash128(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint8 * 16)]


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
    "mcz_reader_jit_ee_guid": (ctypes.c_char_p, [_VOID]),
    "mcz_toc_find": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "mcz_source_jit_ee": (_VOID, [_VOID, _VOID, _VOID]),
    "mcz_jit_ee_name": (ctypes.c_char_p, [_VOID]),
    "mcz_jit_ee_guid": (ctypes.c_char_p, [_VOID]),
    "mcz_jit_ee_newest": (_VOID, []),
    "mcz_path_is_url": (ctypes.c_int, [ctypes.c_char_p]),
    "mcz_reader_hash_jit_ee": (_VOID, [_VOID]),
    "mcz_reader_hashes": (ctypes.c_int, [_VOID, ctypes.c_uint32, ctypes.POINTER(_Hash128),
                                         ctypes.POINTER(_Hash128)]),
    "mcz_mc_from_bytes": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32,
                                         ctypes.c_uint64, ctypes.POINTER(_Mc), _DIAG]),
    "mcz_packet_next": (ctypes.c_int, [ctypes.POINTER(_Mc), ctypes.POINTER(ctypes.c_uint32),
                                       ctypes.POINTER(_Packet), _DIAG]),
    "mcz_packet_name": (ctypes.c_char_p, [_VOID, ctypes.c_uint8, ctypes.c_char_p,
                                          ctypes.c_size_t]),
    "mcz_map_parse": (ctypes.c_int, [_VOID, ctypes.POINTER(_Packet), ctypes.POINTER(_Map),
                                     _DIAG]),
    "mcz_map_find": (_VOID, [ctypes.POINTER(_Map), ctypes.c_char_p, ctypes.c_uint32]),
    "mcz_map_buffer": (ctypes.c_int, [ctypes.POINTER(_Map), ctypes.c_uint32,
                                      ctypes.POINTER(_VOID), ctypes.POINTER(ctypes.c_uint32)]),
    "mcz_mc_identity": (ctypes.c_int64, [_VOID, ctypes.POINTER(_Mc), ctypes.c_bool,
                                         ctypes.c_char_p, ctypes.c_size_t, _DIAG]),
    "mcz_mc_identity_hash": (ctypes.c_int, [_VOID, ctypes.POINTER(_Mc), ctypes.c_bool,
                                            ctypes.POINTER(_Hash128), _DIAG]),
    "mcz_hash_hex": (None, [ctypes.POINTER(_Hash128), ctypes.c_char_p]),
    "mcz_hash_is_zero": (ctypes.c_bool, [ctypes.POINTER(_Hash128)]),
}

_lib = None
_lib_lock = threading.RLock()


def _candidates():
    name = "libmcz.so.%d" % ABI_MAJOR
    override = os.environ.get("MCZ_LIBRARY")
    if override:
        return [override]
    here = os.path.dirname(os.path.abspath(__file__))
    if _INSTALLED_LIBDIR is not None:
        dirs = [os.path.join(here, _LIBDIR_FROM_HERE or "."), _INSTALLED_LIBDIR]
    else:  # python/mcz in the source tree, after `make`
        dirs = [os.path.join(here, "..", "..", "build")]
    beside = [os.path.normpath(os.path.join(d, name)) for d in dirs]
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
    """The version of the libmcz loaded (mcz_version_string), e.g. "3.0.0"."""
    return _load().mcz_version_string().decode()


def _raise(diag, path, code=None):
    code = diag.code if diag.code != 0 else (code if code is not None else -1)
    kind = NoSuchContext if code == _ENOTFOUND else Error
    # The file the library names (a subject of its own, e.g. an .mct beside the collection)
    # before the collection's.
    subject = diag.subject.decode("utf-8", "replace")
    raise kind(code, diag.message.decode("utf-8", "replace"), subject or path, diag.offset,
               diag.context)


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


def _walk(collection):
    """Every context of the collection, in order, read through a handle of its own."""
    collection._jit_ee_ptr()  # decided while the collection is open (Context attributes)
    h = _Handle(collection._file, collection._display)
    try:
        mc, diag = _Mc(), _Diag()
        while True:
            rc = h.lib.mcz_source_next(h.ptr, ctypes.byref(mc), ctypes.byref(diag))
            if rc == 0:
                return
            if rc < 0:
                _raise(diag, collection._display, rc)
            yield Context(ctypes.string_at(mc.bytes, mc.size), mc.number, collection, mc.offset)
    finally:
        h.close()


# ---- One context ----

Packet = collections.namedtuple("Packet", "id name data")
Packet.__doc__ = """One packet of a context: id (0-255), name (the JIT-EE version's name for
it, e.g. "CompileMethod", or "unknown(N)"), data (the serialized map it holds, as bytes)."""

# What mcs -dumpMap prints where a name cannot be looked up.
_UNKNOWN = "<unknown>"
# Packet ids (mcz_superpmi.h) and value layouts (mcz_agnostic.h) the accessors read.
_PACKET_PRINT_METHOD_NAME = 6
_PACKET_GET_METHOD_CLASS = 71
_PACKET_COMPILE_METHOD = 143
_PACKET_PRINT_CLASS_NAME = 149
_MI_FTN = 0
_CM_OS = 212
_CM_SIZE = 216
_CM_SIZE_NO_OS = 212
_PR_BUFFER = 4
_PR_BUFFER_SIZE = 8
_PR_SIZE = 12
_NAME_SIZE = 256  # the buffer SuperPMI prints a name into: 255 characters at most
_NO_IDENTITY = object()  # the identity was looked up and the context has none


class _View:
    """An mcz_mc over a Context's bytes, and the maps read through it; valid while the
    Context lives (it holds the bytes)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.lib = _load()
        self.mc = _Mc()
        diag = _Diag()
        rc = self.lib.mcz_mc_from_bytes(ctx, len(ctx), ctx.number, ctx.offset,
                                        ctypes.byref(self.mc), ctypes.byref(diag))
        if rc < 0:
            ctx._raise(diag, rc)

    def packets(self):
        """Every (_Packet copy) of the context, in order; mcz.Error when one is damaged."""
        pos, p, diag, out = ctypes.c_uint32(0), _Packet(), _Diag(), []
        while True:
            rc = self.lib.mcz_packet_next(ctypes.byref(self.mc), ctypes.byref(pos),
                                          ctypes.byref(p), ctypes.byref(diag))
            if rc == 0:
                return out
            if rc < 0:
                self.ctx._raise(diag, rc)
            out.append(_Packet.from_buffer_copy(p))

    def map_of(self, packet_id):
        """The map of the last packet with this id (the one SuperPMI keeps), or None."""
        found = [p for p in self.packets() if p.id == packet_id]
        if not found:
            return None
        m, diag = _Map(), _Diag()
        # The sizes read here agree in every JIT-EE version: the newest's table will do.
        rc = self.lib.mcz_map_parse(None, ctypes.byref(found[-1]), ctypes.byref(m),
                                    ctypes.byref(diag))
        if rc < 0:
            if diag.offset >= 0:  # the parser's offsets are relative to the context
                diag.offset += self.ctx.offset
            self.ctx._raise(diag, rc)
        return m

    def find(self, m, key, value_size):
        """The value_size bytes of m's value for key (bytes), or None."""
        if m is None or m.value_size < value_size:
            return None
        v = self.lib.mcz_map_find(ctypes.byref(m), key, len(key))
        return ctypes.string_at(v, value_size) if v else None

    def compile_method(self):
        """The CompileMethod record (key 0), or None. Its value size is left open by the
        packet table (212 bytes, or 216 with the os field): the key is a u32."""
        m = self.map_of(_PACKET_COMPILE_METHOD)
        if m is None or m.dense or m.item_size < 4 + _CM_SIZE_NO_OS:
            return None
        m.key_size, m.value_size = 4, m.item_size - 4
        return self.find(m, struct.pack("<I", 0), m.value_size)

    def printed_name(self, packet_id, handle):
        """A PrintMethodName / PrintClassName result as SuperPMI prints it (at most 255
        bytes), or None when the context lacks it."""
        m = self.map_of(packet_id)
        res = self.find(m, struct.pack("<Q", handle), _PR_SIZE)
        if res is None:
            return None
        index, = struct.unpack_from("<I", res, _PR_BUFFER)
        stored, = struct.unpack_from("<I", res, _PR_BUFFER_SIZE)
        if stored == 0:
            return ""
        data, length = ctypes.c_void_p(), ctypes.c_uint32()
        if self.lib.mcz_map_buffer(ctypes.byref(m), index, ctypes.byref(data),
                                   ctypes.byref(length)) != 0 or length.value < stored:
            return None
        text = ctypes.string_at(data, min(stored, _NAME_SIZE - 1))
        return text.decode("utf-8", "replace")


class Context(bytes):
    """One method context: its serialized bytes ("mc", length, packets, "42"), exactly as in
    an .mch file, with its number and what the library reads out of it.

    A Context is a bytes object, so bytes(mc), len(mc), mc == b"...", b"".join(contexts) and
    writing it to a file work as on bytes.

    number  its number in the collection (1-based, as SuperPMI numbers contexts)
    offset  where it starts in the .mch file (for an archive, in the .mch it was made of):
            the offset the .mct records

    The properties below are read on first use; damage found then raises mcz.Error naming
    the collection, the context and the offset.
    """

    def __new__(cls, data, number, collection, offset=0):
        self = super().__new__(cls, data)
        self.number = number
        self.offset = offset
        self._collection = collection
        self._cache = {}
        return self

    def __repr__(self):
        return "<mcz.Context %d: %d bytes>" % (self.number, len(self))

    __str__ = __repr__  # print(mc) names it; bytes(mc) is the content

    def __reduce__(self):  # pickles and copies as plain bytes: the collection is not kept
        return (bytes, (bytes(self),))

    @property
    def bytes(self):
        """The serialized context as a plain bytes object."""
        return bytes(self)

    @property
    def size(self):
        """Bytes of the serialized context, header and trailer included (len(mc))."""
        return len(self)

    def _raise(self, diag, code):
        if diag.context <= 0:
            diag.context = self.number
        _raise(diag, self._collection._display, code)

    def _cached(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    @property
    def packets(self):
        """The packets, in the order the context holds them: a list of mcz.Packet
        (id, name, data). A repeated id appears each time (SuperPMI keeps the last)."""
        def compute():
            v = self._collection._jit_ee_ptr()
            buf = ctypes.create_string_buffer(64)
            return [Packet(p.id, _load().mcz_packet_name(v, p.id, buf, len(buf)).decode(),
                           ctypes.string_at(p.data, p.size)) for p in _View(self).packets()]
        return list(self._cached("packets", compute))

    def packet(self, which):
        """The data of the last packet with this id (int) or name ("CompileMethod"), or
        None when the context holds none."""
        found = [p.data for p in self.packets if which in (p.id, p.name)]
        return found[-1] if found else None

    @property
    def method_name(self):
        """The method's name as mcs -dumpMap prints it in its "method name" column:
        "CLASS:METHOD" (the names PrintClassName and PrintMethodName recorded, 255
        characters each at most), "<unknown>" for a part the context does not hold."""
        def compute():
            view = _View(self)
            info = view.compile_method()
            if info is None:
                return _UNKNOWN + ":" + _UNKNOWN
            ftn, = struct.unpack_from("<Q", info, _MI_FTN)
            cls = view.find(view.map_of(_PACKET_GET_METHOD_CLASS), struct.pack("<Q", ftn), 8)
            cls_name = view.printed_name(_PACKET_PRINT_CLASS_NAME,
                                         struct.unpack("<Q", cls)[0]) if cls else None
            name = view.printed_name(_PACKET_PRINT_METHOD_NAME, ftn)
            return "%s:%s" % (cls_name if cls_name is not None else _UNKNOWN,
                              name if name is not None else _UNKNOWN)
        return self._cached("method_name", compute)

    @property
    def os(self):
        """The CORINFO_OS the context was compiled for (mcs -dumpMap's "os" column), or None
        when its CompileMethod record is missing or older than that field."""
        def compute():
            info = _View(self).compile_method()
            if info is None or len(info) < _CM_SIZE:
                return None
            return struct.unpack_from("<I", info, _CM_OS)[0]
        return self._cached("os", compute)

    @property
    def identity(self):
        """The method's identity hash: 32 upper-case hex digits, as the .mct file and
        mcs -dumpToc and mcs -info give it (MurmurHash3 of identity_text), or None when the
        context lacks what the identity needs (.mct then stores an empty hash). An archive's
        stored hash is used when it was computed with the collection's JIT-EE version."""
        def compute():
            stored = self._collection._stored_identity(self.number)
            if stored is not None:
                return None if stored is _NO_IDENTITY else stored
            h, diag, lib = _Hash128(), _Diag(), _load()
            rc = lib.mcz_mc_identity_hash(self._collection._jit_ee_ptr(),
                                          ctypes.byref(_View(self).mc), False,
                                          ctypes.byref(h), ctypes.byref(diag))
            if rc == _ENOMEM:
                self._raise(diag, rc)
            return _hash_text(h) if rc == 0 else None
        return self._cached("identity", compute)

    @property
    def identity_text(self):
        """The text the identity hashes, as SuperPMI's dumpMethodIdentityInfoToBuffer
        builds it: "CLASS:METHOD(ARGTYPES):RET -- CallingConvention: ..., ILCode Hash: ...".
        None when the context lacks what it needs."""
        def compute():
            lib, view, diag = _load(), _View(self), _Diag()
            v = self._collection._jit_ee_ptr()
            n = lib.mcz_mc_identity(v, ctypes.byref(view.mc), False, None, 0,
                                    ctypes.byref(diag))
            if n == _ENOMEM:
                self._raise(diag, n)
            if n < 0:
                return None
            buf = ctypes.create_string_buffer(n + 1)
            lib.mcz_mc_identity(v, ctypes.byref(view.mc), False, buf, len(buf), None)
            return buf.value.decode("utf-8", "replace")
        return self._cached("identity_text", compute)


def _hash_text(h):
    """The hex of an identity hash, or None for the all-zero "no identity"."""
    lib = _load()
    if lib.mcz_hash_is_zero(ctypes.byref(h)):
        return None
    text = ctypes.create_string_buffer(33)
    lib.mcz_hash_hex(ctypes.byref(h), text)
    return text.value.decode()


# ---- A collection ----

class Collection:
    """An open .mcz archive or .mch file (mcz_source). Use mcz.open().

    len(c)     contexts held
    c[n]       the Context numbered n (1-based, SuperPMI's numbers; negative: from the end);
               mcz.NoSuchContext (an IndexError) when the collection does not hold it
    c[a:b]     the contexts numbered a to b-1, a list (clipped to the numbers held)
    n in c     whether context number n is held
    iter(c)    every Context, in number order
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._display = os.fsdecode(self.path)
        self._file = os.fsencode(self.path)
        lib = _load()
        if not lib.mcz_path_is_url(self._file):
            st = os.stat(self.path)  # FileNotFoundError, PermissionError, ... as open() does
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), self.path)
            if st.st_size == 0 and stat.S_ISREG(st.st_mode):  # as mcs refuses it
                raise Error(_ETRUNCATED, "empty file: no method contexts", self._display)
        self._lock = threading.Lock()
        self._handle = _Handle(self._file, self._display)
        self._check_first()
        self._mch = None  # an MCH's walk: (contexts, raw bytes, first, last), once done
        self._version = None  # (jit_ee pointer, whether stored hashes were made with it)

    def _check_first(self):
        """An archive is checked by its opening (footer, index); an MCH file is read lazily, so
        its first context is read now: a file that is no collection (or whose first context is
        damaged) fails here, at open, as a cut archive or a directory does, not at the first
        len(), info() or c[1]. The handle's walk is used by nothing else."""
        h = self._handle
        if h.lib.mcz_source_archive(h.ptr):
            return
        mc, diag = _Mc(), _Diag()
        rc = h.lib.mcz_source_next(h.ptr, ctypes.byref(mc), ctypes.byref(diag))
        if rc < 0:
            self.close()
            _raise(diag, self._display, rc)

    def close(self):
        """Releases the collection; later calls raise mcz.Error. Closing twice is harmless.
        Contexts already read stay usable."""
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
            for mc in _walk(self):
                count, raw, last = count + 1, raw + len(mc), mc.number
                first = first or mc.number
            self._mch = (count, raw, first, last)
        return self._mch

    def __len__(self):
        """Contexts held. An .mch file is walked once to count them (damage raises)."""
        with self._lock:
            reader = self._archive()
            if reader:
                return self._archive_info(reader).contexts
        return self._mch_walk()[0]

    def _held(self):
        """The numbers held, as a range (an archive's first_number to last_number)."""
        with self._lock:
            reader = self._archive()
            if reader:
                i = self._archive_info(reader)
                return range(i.first_number, i.last_number + 1) if i.contexts else range(0)
        count, _, first, last = self._mch_walk()
        return range(first, last + 1) if count else range(0)

    def _version_info(self):
        """(JIT-EE version pointer, whether the archive's stored hashes were made with it),
        decided once: the version the archive records or the first contexts show, else the
        newest (as mcs decides)."""
        if self._version is None:
            h = self._open_handle()
            v = h.lib.mcz_source_jit_ee(h.ptr, None, None) or h.lib.mcz_jit_ee_newest()
            reader = h.lib.mcz_source_archive(h.ptr)
            usable = bool(reader) and h.lib.mcz_reader_hash_jit_ee(reader) == v
            self._version = (v, usable)
        return self._version

    def _jit_ee_ptr(self):
        """The version's pointer (static data: still valid after the close)."""
        with self._lock:
            if self._handle is None and self._version is not None:
                return self._version[0]
            return self._version_info()[0]

    def _stored_identity(self, number):
        """The identity the archive's index stores for number (hex, or _NO_IDENTITY), or
        None when it stores none usable (an .mch, no hashes, another version, closed)."""
        with self._lock:
            if self._handle is None:
                return None
            _, usable = self._version_info()
            if not usable:
                return None
            h = _Hash128()
            if self._handle.lib.mcz_reader_hashes(self._archive(), number, ctypes.byref(h),
                                                  None) != 0:
                return None
            return _hash_text(h) or _NO_IDENTITY

    def context(self, number):
        """The Context numbered `number` (1-based, as SuperPMI numbers them). Raises
        mcz.NoSuchContext (an IndexError and an mcz.Error) when the collection does not hold
        it, mcz.Error when it is damaged."""
        number = operator.index(number)
        if not 0 <= number <= 0xFFFFFFFF:
            raise NoSuchContext(_ENOTFOUND, "no context %d" % number, self._display)
        with self._lock:
            h = self._open_handle()
            mc, diag = _Mc(), _Diag()
            rc = h.lib.mcz_source_get(h.ptr, number, ctypes.byref(mc), ctypes.byref(diag))
            if rc < 0:
                _raise(diag, self._display, rc)
            self._version_info()  # decided while open: the Context's attributes need it
            return Context(ctypes.string_at(mc.bytes, mc.size), mc.number, self, mc.offset)

    def _number(self, n):
        """A number, or a negative one counted from the end (-1: the last held)."""
        n = operator.index(n)
        return n + self._held().stop if n < 0 else n

    def _slice(self, s):
        """The numbers a slice selects: Python's rules applied to context numbers."""
        held = self._held()

        def position(n):
            if n is None:
                return None
            n = self._number(n)
            # Below the first number: before every position, whichever way the step goes.
            return n - held.start if n >= held.start else -len(held) - 1
        return held[position(s.start):position(s.stop):s.step]

    def __getitem__(self, key):
        """c[n]: the Context numbered n (negative: from the end); c[a:b:step]: a list of the
        contexts numbered a, a+step, ... below b, clipped to the numbers held."""
        if isinstance(key, slice):
            return [self.context(n) for n in self._slice(key)]
        return self.context(self._number(key))

    def __contains__(self, number):
        """Whether the collection holds context number `number` (an int)."""
        try:
            return operator.index(number) in self._held()
        except TypeError:
            return False

    def numbers(self):
        """The context numbers held, as a range (1..len(c) unless an archive rolled over)."""
        return self._held()

    def items(self):
        """(number, Context) of every context, in number order."""
        return ((mc.number, mc) for mc in self)

    def __iter__(self):
        """Every Context, in number order (read through a handle of its own, so lookups and
        other iterations do not disturb it). Joined, they are the .mch file's bytes."""
        self._open_handle()
        return _walk(self)

    def _jit_ee(self):
        """(name, guid) of the packet table the collection is read with: the one an archive
        records or its first contexts show (mcz_source_jit_ee), guid None when the table has
        none known; (None, None) when undecided. The table's guid is inferred, not recorded."""
        h = self._open_handle()
        v = h.lib.mcz_source_jit_ee(h.ptr, None, None)
        if not v:
            return None, None
        guid = h.lib.mcz_jit_ee_guid(v)
        return h.lib.mcz_jit_ee_name(v).decode(), guid.decode() if guid else None

    def info(self):
        """What the collection is: a dict with kind ("archive" or "mch"), contexts,
        first_number, last_number, raw_bytes (the equivalent .mch size), file_bytes,
        jit_ee_guid (the JIT-EE GUID the archive records, as `mcs -printJITEEVersion` prints
        it: None when none is recorded, always for an .mch file), jit_ee (the packet table it
        is read with, a name such as "B"; None when the packets cannot tell) and
        jit_ee_table_guid (that table's own GUID, inferred from the table, never recorded;
        None when unknown); for an
        archive also version, chunks, dictionary, dict_id, dict_size, level, chunk_size,
        hashes (identity hashes stored), codec ("zstd" or "xz") and layout ("packets" or
        "plain"); for an .mch file toc (the .mct SuperPMI would use, or None)."""
        with self._lock:
            jit_ee, table_guid = self._jit_ee()
            reader = self._archive()
            if reader:
                i = self._archive_info(reader)
                recorded = self._handle.lib.mcz_reader_jit_ee_guid(reader)
                return {"kind": "archive", "path": self._display, "version": i.version,
                        "jit_ee": jit_ee, "jit_ee_table_guid": table_guid,
                        "jit_ee_guid": recorded.decode() if recorded else None,
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
                "jit_ee": jit_ee, "jit_ee_table_guid": table_guid, "jit_ee_guid": None,
                "first_number": first, "last_number": last, "raw_bytes": raw,
                "file_bytes": os.path.getsize(self._file),
                "toc": os.fsdecode(toc.value) if found else None}


def open(path):
    """Opens a collection: an .mcz archive (recognised by its magic) or an .mch file, as a
    Collection to use in a `with` block. path is a str, bytes or os.PathLike (or an http(s)
    URL of an archive). Raises FileNotFoundError (and the other OSErrors of open()) when the
    file cannot be reached, mcz.Error when it is empty, damaged or no collection at all (told
    here, at open: an archive's footer and index are read, and an MCH file's first context)."""
    return Collection(path)
