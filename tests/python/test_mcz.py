"""The Python module mcz (python/mcz) against generated collections and bin/mcs.

tests/cli/test_python.sh runs it with MCZ_BIN (the programs), MCZ_LIBRARY (the built library)
and PYTHONPATH set; each test prints "ok - python: NAME" or "not ok - python: NAME".
"""

import os
import pathlib
import re
import shutil
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
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))


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
        self.assertEqual(info["jit_ee_guid"], "28808a0e-5dc5-48bd-a7eb-27def284eff0")
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
        e = self.assertError(None, mcz.open, missing)
        self.assertIn("none.mcz", str(e))

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
        junk = self.damaged("junk.mch", b"this is not a method context\n" * 100)
        with mcz.open(junk) as c:
            self.assertError("corrupt input", len, c)

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
