"""The Python module mcz (python/mcz) against generated collections and bin/mcs.

tests/cli/test_python.sh runs it with MCZ_BIN (the programs), MCZ_LIBRARY (the built library)
and PYTHONPATH set; each test prints "ok - python: NAME" or "not ok - python: NAME".
"""

import csv
import os
import pathlib
import pydoc
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import traceback
import unittest

import mcz

BIN = os.environ.get("MCZ_BIN", "bin")
CONTEXTS = 300


def run(*args):
    """Runs a program, which must succeed; returns its standard output."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def mcs(*args):
    return run(os.path.join(BIN, "mcs"), *args)


class Collections(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mcz-python.")
        cls.mch = os.path.join(cls.dir, "X.mch")
        cls.mcz = os.path.join(cls.dir, "X.mcz")
        run(os.path.join(BIN, "mchgen"), "--seed", "7", "--contexts", str(CONTEXTS),
            "--preset", "small", "--out", cls.mch)
        run(os.path.join(BIN, "mcs"), "-convert", cls.mch, cls.mcz)
        with open(cls.mch, "rb") as f:
            cls.mch_bytes = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def both(self):
        return (self.mch, self.mcz)

    def damaged(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # ---- Reading ----

    def test_len(self):
        for path in self.both():
            with mcz.open(path) as c:
                self.assertEqual(len(c), CONTEXTS, path)

    def copied(self, n):
        """Context n as mcs -copy writes it alone."""
        one = os.path.join(self.dir, "one-%d.mch" % n)
        mcs("-copy", str(n), self.mch, one)
        with open(one, "rb") as f:
            return f.read()

    # ---- Indexing by context number ----

    def test_index_is_the_context_number(self):
        for path in self.both():
            with mcz.open(path) as c:
                for n in (1, 2, 151, CONTEXTS):
                    mc = c[n]
                    self.assertIsInstance(mc, mcz.Context)
                    self.assertEqual(mc.number, n)
                    self.assertEqual(mc, self.copied(n), "%s context %d" % (path, n))
                    self.assertEqual(mc, c.context(n))
                self.assertEqual(c[1], self.mch_bytes[:c[1].size])
                self.assertEqual(c[len(c)], self.mch_bytes[-c[CONTEXTS].size:])

    def test_negative_numbers_count_from_the_end(self):
        for path in self.both():
            with mcz.open(path) as c:
                self.assertEqual(c[-1].number, CONTEXTS)
                self.assertEqual(c[-1], c[CONTEXTS])
                self.assertEqual(c[-CONTEXTS].number, 1)

    def test_numbers_not_held_are_index_errors(self):
        for path in self.both():
            with mcz.open(path) as c:
                for n in (0, CONTEXTS + 1, -CONTEXTS - 1, 2**32, 2**64):
                    with self.assertRaises(IndexError, msg="%s[%d]" % (path, n)) as cm:
                        c[n]
                    e = cm.exception
                    self.assertIsInstance(e, mcz.NoSuchContext)
                    self.assertIsInstance(e, mcz.Error)
                    self.assertEqual(e.name, "no such context")
                    self.assertIn(os.path.basename(path), str(e))
                with self.assertRaises(IndexError):
                    c.context(CONTEXTS + 1)
                for key in ("1", 1.0, None):
                    self.assertRaises(TypeError, c.__getitem__, key)
                # The old protocol's end: list(c) stops, it does not run past the last.
                self.assertEqual(len(list(c)), CONTEXTS)

    def test_slices_select_by_number(self):
        cases = {(1, 4, None): [1, 2, 3], (None, 3, None): [1, 2],
                 (CONTEXTS - 1, None, None): [CONTEXTS - 1, CONTEXTS],
                 (-3, None, None): [CONTEXTS - 2, CONTEXTS - 1, CONTEXTS],
                 (None, None, 100): [1, 101, 201], (5, 0, -1): [5, 4, 3, 2, 1],
                 (3, None, -1): [3, 2, 1], (0, 2, None): [1], (-1000, 2, None): [1],
                 (CONTEXTS + 1, CONTEXTS + 9, None): [], (4, 4, None): [],
                 (CONTEXTS + 5, CONTEXTS - 2, -1): [CONTEXTS, CONTEXTS - 1]}
        for path in self.both():
            with mcz.open(path) as c:
                for (a, b, step), want in cases.items():
                    got = c[a:b:step]
                    self.assertIsInstance(got, list)
                    self.assertEqual([mc.number for mc in got], want, "%s[%s:%s:%s]" % (
                        path, a, b, step))
                    self.assertEqual(got, [c[n] for n in want])
                self.assertEqual(b"".join(c[:]), self.mch_bytes)
                self.assertRaises(ValueError, c.__getitem__, slice(None, None, 0))

    def test_contains_and_numbers(self):
        for path in self.both():
            with mcz.open(path) as c:
                self.assertEqual(c.numbers(), range(1, CONTEXTS + 1))
                self.assertIn(1, c)
                self.assertIn(CONTEXTS, c)
                for n in (0, CONTEXTS + 1, -1, "1"):
                    self.assertNotIn(n, c)

    def test_context_is_what_mcs_copy_writes(self):
        for n in (1, 2, 151, CONTEXTS):
            one = os.path.join(self.dir, "one-%d.mch" % n)
            run(os.path.join(BIN, "mcs"), "-copy", str(n), self.mch, one)
            with open(one, "rb") as f:
                expected = f.read()
            for path in self.both():
                with mcz.open(path) as c:
                    self.assertEqual(c.context(n), expected, "%s context %d" % (path, n))

    def test_iteration_is_the_file(self):
        for path in self.both():
            with mcz.open(path) as c:
                self.assertEqual(b"".join(c), self.mch_bytes, path)
                self.assertEqual(b"".join(c), self.mch_bytes, path + ", again")

    def test_items_are_numbered_in_order(self):
        for path in self.both():
            with mcz.open(path) as c:
                self.assertEqual([n for n, _ in c.items()], list(range(1, CONTEXTS + 1)))
                self.assertTrue(all(n == mc.number for n, mc in c.items()))

    def test_iteration_yields_contexts_in_order(self):
        for path in self.both():
            with mcz.open(path) as c:
                seen = list(c)
            self.assertTrue(all(isinstance(mc, mcz.Context) for mc in seen))
            self.assertEqual([mc.number for mc in seen], list(range(1, CONTEXTS + 1)))
            self.assertEqual(b"".join(mc.bytes for mc in seen), self.mch_bytes)

    # ---- One context ----

    def test_a_context_is_its_bytes(self):
        with mcz.open(self.mcz) as c:
            mc = c[7]
        self.assertEqual(mc.size, len(mc))
        self.assertEqual(mc.size, len(self.copied(7)))
        self.assertIs(type(mc.bytes), bytes)
        self.assertIs(type(bytes(mc)), bytes)
        self.assertEqual(mc.bytes, bytes(mc))
        self.assertEqual(mc.bytes[:2], b"mc")
        self.assertEqual(mc.bytes[-2:], b"42")
        self.assertEqual(repr(mc), "<mcz.Context 7: %d bytes>" % mc.size)
        self.assertEqual(str(mc), repr(mc))
        import pickle
        self.assertEqual(pickle.loads(pickle.dumps(mc)), mc.bytes)

    def toc(self):
        """{number: (offset, hash or None)} of the .mct mcs -toc writes for the .mch."""
        d = tempfile.mkdtemp(dir=self.dir)
        mch = shutil.copy(self.mch, d)
        mcs("-toc", mch)
        hashes = {}
        for line in mcs("-dumpToc", mch + ".mct").splitlines():
            number, offset, *field = line.split()
            text = bytes(int(b, 16) for b in field).rstrip(b"\0").decode()
            hashes[int(number.rstrip(":"))] = (int(offset, 16), text or None)
        self.assertEqual(len(hashes), CONTEXTS)
        return hashes

    def test_identity_and_offset_are_the_tocs(self):
        want = self.toc()
        self.assertTrue(any(h is None for _, h in want.values()))  # mchgen leaves some out
        self.assertTrue(any(h is not None for _, h in want.values()))
        plain = os.path.join(self.dir, "nohashes.mcz")
        mcs("-convert", "--no-hashes", self.mch, plain)
        for path in self.both() + (plain,):
            with mcz.open(path) as c:
                got = {mc.number: (mc.offset, mc.identity) for mc in c}
            self.assertEqual(got, want, path)
            with mcz.open(path) as c:
                self.assertEqual((c[3].offset, c[3].identity), want[3])

    def test_identity_text(self):
        with mcz.open(self.mcz) as c:
            for mc in c[1:60]:
                if mc.identity is None:
                    self.assertIsNone(mc.identity_text)
                    continue
                self.assertTrue(mc.identity_text.startswith(mc.method_name + "("),
                                mc.identity_text)
                self.assertIn(" -- CallingConvention: ", mc.identity_text)

    def test_method_name_and_os_are_dump_maps(self):
        rows = list(csv.reader(mcs("-dumpMap", self.mch).splitlines()))
        self.assertEqual(rows[0][:2], ["index", "method name"])
        want = {int(r[0]): (r[1], int(r[4])) for r in rows[1:]}
        self.assertEqual(len(want), CONTEXTS)
        self.assertIn("<unknown>:<unknown>", [w[0] for w in want.values()])
        for path in self.both():
            with mcz.open(path) as c:
                got = {mc.number: (mc.method_name, mc.os) for mc in c}
            self.assertEqual(got, want, path)

    def test_packets_are_the_context(self):
        for path in self.both():
            with mcz.open(path) as c:
                for mc in c[1:CONTEXTS + 1:37]:
                    packets = mc.packets
                    self.assertTrue(all(isinstance(p, mcz.Packet) for p in packets))
                    body = b"".join(struct.pack("<BI", p.id, len(p.data)) + p.data + b"B"
                                    for p in packets)
                    self.assertEqual(b"mc" + struct.pack("<I", len(body)) + body + b"42", mc)
                    names = {p.id: p.name for p in packets}
                    self.assertEqual(names[143], "CompileMethod")
                    self.assertEqual(mc.packet("CompileMethod"), mc.packet(143))
                    self.assertIsNotNone(mc.packet(143))
                    self.assertIsNone(mc.packet(255))
                    self.assertIsNone(mc.packet("NoSuchPacket"))

    def test_contexts_outlive_their_collection(self):
        for path in self.both():
            with mcz.open(path) as c:
                mc, first = c[1], next(iter(c))
                want = (mc.identity, mc.method_name, mc.packets)
            self.assertEqual((first.identity, first.method_name, first.packets), want)
            mc = type(mc)(mc.bytes, 1, c, 0)  # attributes read only after the close
            self.assertEqual((mc.identity, mc.method_name, mc.packets), want)

    def test_damaged_packet(self):
        # Context 1's first packet loses its canary: the container still holds, the packet
        # walk fails, naming the context.
        data = bytearray(self.mch_bytes)
        first_size, = struct.unpack_from("<I", data, 7)
        canary = 6 + 5 + first_size
        self.assertEqual(data[canary], 0x42)
        data[canary] = 0
        path = self.damaged("canary.mch", bytes(data))
        with mcz.open(path) as c:
            mc = c[1]
            for attribute in ("packets", "method_name"):
                with self.assertRaises(mcz.Error, msg=attribute) as cm:
                    getattr(mc, attribute)
                self.assertEqual(cm.exception.context, 1)
                self.assertEqual(cm.exception.offset, canary)
                self.assertIn("canary.mch", str(cm.exception))
            self.assertIsNone(mc.identity)  # as .mct stores it: an empty hash
            self.assertEqual(c[2].method_name, self.method_name_of(2))

    def method_name_of(self, n):
        rows = csv.reader(mcs("-dumpMap", self.mch).splitlines())
        return [r[1] for r in rows if r[0] == str(n)][0]

    def test_help_describes_the_api(self):
        text = pydoc.render_doc(mcz, renderer=pydoc.plaintext)
        for words in ("c[1]", "NoSuchContext", "method_name", "identity", "packets",
                      "FileNotFoundError", "context number"):
            self.assertIn(words, text)
        for name in mcz.__all__:
            obj = getattr(mcz, name)
            if callable(obj):
                self.assertTrue(obj.__doc__, name)
        for cls in (mcz.Collection, mcz.Context):
            for name, member in vars(cls).items():
                if not name.startswith("_") and (callable(member) or isinstance(member, property)):
                    self.assertTrue(member.__doc__, "%s.%s" % (cls.__name__, name))

    def test_iterations_and_lookups_do_not_disturb_each_other(self):
        for path in self.both():
            with mcz.open(path) as c:
                first = iter(c)
                self.assertEqual(next(first), c.context(1))
                self.assertEqual(len(c.context(250)), len(c.context(250)))
                self.assertEqual(b"".join(c), self.mch_bytes)
                self.assertEqual(next(first), c.context(2))

    def test_threads_share_a_collection(self):
        with mcz.open(self.mcz) as c:
            expected = {n: c.context(n) for n in range(1, CONTEXTS + 1, 7)}
            seen, errors = {}, []

            def read(offset):
                try:
                    for n in list(expected)[offset::4]:
                        seen[n] = c.context(n)
                except Exception as e:  # reported below
                    errors.append(e)

            threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            self.assertEqual(seen, expected)

    def test_paths_of_every_kind(self):
        for path in (pathlib.Path(self.mcz), os.fsencode(self.mcz), self.mcz):
            with mcz.open(path) as c:
                self.assertEqual(len(c), CONTEXTS)

    # ---- What a collection is ----

    def test_info_of_an_archive(self):
        with mcz.open(self.mcz) as c:
            info = c.info()
        self.assertEqual(info["kind"], "archive")
        self.assertEqual(info["contexts"], CONTEXTS)
        self.assertEqual((info["first_number"], info["last_number"]), (1, CONTEXTS))
        self.assertEqual(info["raw_bytes"], len(self.mch_bytes))
        self.assertEqual(info["file_bytes"], os.path.getsize(self.mcz))
        self.assertGreaterEqual(info["chunks"], 1)
        self.assertEqual(info["version"], 4)
        self.assertEqual(info["jit_ee"], "B")  # what mcs -convert recorded for mchgen's output
        # The GUID is what the archive records (none here: -convert was given none), as
        # mcs -printJITEEVersion says; B's own GUID is the table's, inferred, not recorded.
        self.assertIsNone(info["jit_ee_guid"])
        self.assertEqual(info["jit_ee_table_guid"], "28808a0e-5dc5-48bd-a7eb-27def284eff0")
        self.assertTrue(info["hashes"])
        self.assertEqual(info["dictionary"], info["dict_id"] != 0)
        self.assertEqual(info["dictionary"], info["dict_size"] > 0)
        self.assertEqual(info["codec"], "zstd")
        self.assertEqual(info["layout"], "packets")

    def test_a_plain_layout_archive(self):
        plain = os.path.join(self.dir, "plain.mcz")
        run(os.path.join(BIN, "mcs"), "-convert", "--layout", "plain", self.mch, plain)
        with mcz.open(plain) as c:
            self.assertEqual(c.info()["layout"], "plain")
            self.assertEqual(b"".join(c), self.mch_bytes)

    def test_an_xz_archive(self):
        xz = os.path.join(self.dir, "xz.mcz")
        run(os.path.join(BIN, "mcs"), "-convert", "--codec", "xz", "--level", "1", self.mch, xz)
        with mcz.open(xz) as c:
            self.assertEqual(c.info()["codec"], "xz")
            self.assertEqual(b"".join(c), self.mch_bytes)

    def test_info_of_an_mch(self):
        d = tempfile.mkdtemp(dir=self.dir)
        mch = shutil.copy(self.mch, d)
        with mcz.open(mch) as c:
            info = c.info()
        self.assertEqual(info["kind"], "mch")
        self.assertEqual(info["contexts"], CONTEXTS)
        self.assertEqual(info["jit_ee"], "B")  # detected: mchgen writes B by default
        self.assertEqual(info["raw_bytes"], len(self.mch_bytes))
        self.assertEqual(info["file_bytes"], len(self.mch_bytes))
        self.assertIsNone(info["toc"])
        run(os.path.join(BIN, "mcs"), "-toc", mch)
        with mcz.open(mch) as c, mcz.open(self.mcz) as a:
            self.assertEqual(c.info()["toc"], mch + ".mct")
            self.assertEqual(c.context(77), a.context(77))

    def test_library_version(self):
        version = mcz.library_version()
        self.assertRegex(version, r"^\d+\.\d+\.\d+$")
        self.assertEqual(int(version.split(".")[0]), mcz.ABI_MAJOR)

    # ---- Errors ----

    def assertError(self, name, fn, *args):
        with self.assertRaises(mcz.Error) as cm:
            fn(*args)
        e = cm.exception
        if name is not None:
            self.assertEqual(e.name, name, str(e))
        self.assertIsInstance(e.code, int)
        self.assertLess(e.code, 0)
        self.assertTrue(e.message)
        self.assertIn(e.name, str(e))
        return e

    def test_context_not_held(self):
        with mcz.open(self.mcz) as c, mcz.open(self.mch) as m:
            for n in (0, CONTEXTS + 1, 2**32, -1):
                e = self.assertError("no such context", c.context, n)
                self.assertError("no such context", m.context, n)
            self.assertEqual(e.path, self.mcz)
        with mcz.open(self.mcz) as c:
            self.assertRaises(TypeError, c.context, "1")

    def test_missing_file(self):
        missing = os.path.join(self.dir, "none.mcz")
        with self.assertRaises(FileNotFoundError) as cm:
            mcz.open(missing)
        self.assertEqual(cm.exception.filename, missing)
        with self.assertRaises(IsADirectoryError):
            mcz.open(self.dir)

    def test_empty_file(self):
        for name in ("empty.mch", "empty.mcz"):
            e = self.assertError(None, mcz.open, self.damaged(name, b""))
            self.assertIn("empty", e.message)

    def test_truncated_archive(self):
        with open(self.mcz, "rb") as f:
            path = self.damaged("cut.mcz", f.read()[:-100])
        e = self.assertError(None, mcz.open, path)
        self.assertIn("cut.mcz", str(e))

    def test_damaged_archive(self):
        with open(self.mcz, "rb") as f:
            data = bytearray(f.read())
        middle = len(data) // 2
        data[middle:middle + 16] = bytes(b ^ 0x5A for b in data[middle:middle + 16])
        path = self.damaged("flipped.mcz", bytes(data))

        def read_all():
            with mcz.open(path) as c:
                return [c.context(n) for n in range(1, CONTEXTS + 1)]

        def iterate():
            with mcz.open(path) as c:
                return list(c)

        self.assertError(None, read_all)
        self.assertError(None, iterate)

    def test_truncated_mch(self):
        cut = self.damaged("cut.mch", self.mch_bytes[:100000])
        with mcz.open(cut) as c:
            e = self.assertError("truncated input", len, c)
            self.assertIsNotNone(e.context)
            got = []
            with self.assertRaises(mcz.Error):
                for data in c:
                    got.append(data)
            self.assertGreater(len(got), 0)
            self.assertEqual(b"".join(got), self.mch_bytes[:len(b"".join(got))])

    def test_not_a_collection(self):
        # At open, as a cut archive and a directory fail there, not at the first len() or c[1]:
        # whatever its name, a text file (/etc/passwd, say) is no collection.
        for name in ("junk.mch", "junk.mcz", "passwd"):
            junk = self.damaged(name, b"root:x:0:0:root:/root:/bin/bash\n" * 100)
            e = self.assertError("corrupt input", mcz.open, junk)
            self.assertIn("not a collection", e.message)
            self.assertIn("looks like text", e.message)

    def test_closed(self):
        c = mcz.open(self.mcz)
        c.close()
        c.close()
        for fn in (len, list, lambda c: c.context(1), lambda c: c.info()):
            self.assertError("handle used in the wrong state", fn, c)
        with mcz.open(self.mch) as c:
            pass
        self.assertIn("closed", repr(c))
        self.assertError("handle used in the wrong state", c.context, 1)

    def test_library_that_cannot_load(self):
        env = dict(os.environ, MCZ_LIBRARY=os.path.join(self.dir, "no-such-libmcz.so"))
        code = "import mcz, sys\ntry:\n    mcz.open(sys.argv[1])\n" \
               "except mcz.Error as e:\n    print(e.code, e)\n    sys.exit(3)\n"
        p = subprocess.run([sys.executable, "-c", code, self.mcz], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertTrue(p.stdout.startswith("None cannot load libmcz"), p.stdout)
        self.assertIn("no-such-libmcz.so", p.stdout)


class LineResult(unittest.TestResult):
    """One "ok - " / "not ok - " line per test, as tests/run-all.sh counts them."""

    @staticmethod
    def name(test):
        return "python: " + getattr(test, "_testMethodName", str(test))

    def addSuccess(self, test):
        super().addSuccess(test)
        print("ok - " + self.name(test), flush=True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print("ok - %s # skip %s" % (self.name(test), reason), flush=True)

    def _not_ok(self, test, err):
        print("not ok - " + self.name(test))
        text = "".join(traceback.format_exception(*err))
        print(re.sub(r"(?m)^", "    ", text.rstrip()), flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._not_ok(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._not_ok(test, err)


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = LineResult()
    suite.run(result)
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
