#!/usr/bin/python3
"""Event log of pip (Debian python3-pip), run in-process on a local, offline
package universe.

    /usr/bin/python3 gen_pip.py --out .deps/logs/pip.csv.gz [--cases 1500] [--seed 1]

A case is one pip command line (``pip._internal.cli.main.main(argv)``):
install / download / wheel / uninstall / list / show / freeze / check / hash /
cache / config / inspect / index / debug / help, with random options, against
a generated find-links directory of wheels and sdists and a file:// "simple"
index (hashes, yanked files, Requires-Python), including failure paths:
missing or conflicting requirements, resolver backtracking, incompatible
tags, bad wheel names, corrupt or inconsistent wheels, hash mismatches, the
PEP 668 externally-managed refusal, unknown commands.  Set-up work of a case
(pre-installing an environment, seeding a cache) runs with logging capture
off.  Everything runs under a temporary HOME, so nothing outside the temp
directory is written; sdist builds run in pip's own subprocesses.

pip logs a lot through two helpers, ``VerboseLogger.verbose`` and
``write_output``; those records are attributed to the calling line and
marked code.wrapped=1 (see _capture.py).
"""
import argparse
import base64
import contextlib
import hashlib
import io
import os
import random
import shutil
import sys
import tarfile
import tempfile
import time
import zipfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import pip  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":  # the directory to index (run.sh)
    print(os.path.dirname(os.path.realpath(pip.__file__)))
    sys.exit(0)
from pip._internal.cli.main import main as pip_main  # noqa: E402

WRAPPERS = {
    ("pip/_internal/utils/_log.py", "verbose"),
    ("pip/_internal/utils/misc.py", "write_output"),
}


# ---------------------------------------------------------------------------
# the package universe
# ---------------------------------------------------------------------------
def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(d, name, ver, deps=(), requires_python=None, extras=None, tag="py3-none-any",
               meta_name=None, corrupt=False, filename=None, scripts=False, record=True):
    fn = filename or "%s-%s-%s.whl" % (name.replace("-", "_"), ver, tag)
    path = os.path.join(d, fn)
    if corrupt:
        with open(path, "wb") as fh:
            fh.write(b"PK\x03\x04 this is not really a zip file" * 3)
        return path
    mod = name.replace("-", "_")
    di = "%s-%s.dist-info" % (mod, ver)
    meta = ["Metadata-Version: 2.1", "Name: %s" % (meta_name or name), "Version: %s" % ver,
            "Summary: fake package %s" % name]
    if requires_python:
        meta.append("Requires-Python: %s" % requires_python)
    for e, edeps in (extras or {}).items():
        meta.append("Provides-Extra: %s" % e)
        for x in edeps:
            meta.append('Requires-Dist: %s ; extra == "%s"' % (x, e))
    for x in deps:
        meta.append("Requires-Dist: %s" % x)
    files = {
        "%s/__init__.py" % mod: "__version__ = %r\n" % ver,
        "%s/core.py" % mod: "def main():\n    return 0\n",
        "%s/METADATA" % di: "\n".join(meta) + "\n\n%s is a fake package.\n" % name,
        "%s/WHEEL" % di: "Wheel-Version: 1.0\nGenerator: gen_pip\nRoot-Is-Purelib: true\nTag: %s\n" % tag,
    }
    if scripts:
        files["%s/entry_points.txt" % di] = "[console_scripts]\n%s-cli = %s.core:main\n" % (mod, mod)
    rec = []
    for k, v in files.items():
        b = v.encode()
        rec.append("%s,%s,%d" % (k, _record_hash(b), len(b)))
    rec.append("%s/RECORD,," % di)
    if record:
        files["%s/RECORD" % di] = "\n".join(rec) + "\n"
    with zipfile.ZipFile(path, "w") as z:
        for k, v in files.items():
            z.writestr(k, v)
    return path


def make_sdist(d, name, ver, deps=(), broken=False, pyproject=False):
    base = "%s-%s" % (name, ver)
    bio = io.BytesIO()
    files = {
        "PKG-INFO": "Metadata-Version: 1.0\nName: %s\nVersion: %s\n" % (name, ver),
        "%s.py" % name.replace("-", "_"): "X = 1\n",
        "setup.py": ("raise SystemExit('this sdist is broken on purpose')\n" if broken else
                     "from setuptools import setup\nsetup(name=%r, version=%r, py_modules=[%r], install_requires=%r)\n"
                     % (name, ver, name.replace("-", "_"), list(deps))),
    }
    if pyproject:
        files["pyproject.toml"] = ('[build-system]\nrequires = ["setuptools>=40.8.0"]\n'
                                   'build-backend = "setuptools.build_meta"\n')
    with tarfile.open(fileobj=bio, mode="w:gz") as tf:
        for k, v in files.items():
            b = v.encode()
            ti = tarfile.TarInfo("%s/%s" % (base, k))
            ti.size = len(b)
            ti.mtime = 1700000000
            tf.addfile(ti, io.BytesIO(b))
    path = os.path.join(d, base + ".tar.gz")
    with open(path, "wb") as fh:
        fh.write(bio.getvalue())
    return path


UNIVERSE = [
    # name, version, deps, kwargs
    ("alpha", "1.0", [], {}),
    ("alpha", "1.1", [], {}),
    ("alpha", "2.0", [], {"requires_python": ">=3.12"}),
    ("beta", "1.0", ["alpha<2"], {}),
    ("beta", "2.0", ["alpha>=1.1"], {"scripts": True}),
    ("gamma", "0.1", ["beta", "delta>=1"], {}),
    ("epsilon", "1.0", ['legacy-thing ; python_version < "3"'], {"extras": {"fast": ["zeta>=1.5"], "all": ["zeta", "alpha"]}}),
    ("zeta", "1.0", [], {}),
    ("zeta", "1.5", [], {}),
    ("eta", "0.9", ["beta==1.0"], {}),
    ("eta", "1.0", ["beta==1.0", "alpha>=2"], {}),
    ("eta", "1.1", ["beta==2.0", "zeta<1"], {}),
    ("kappa", "1.0", [], {"tag": "cp27-cp27mu-linux_x86_64"}),
    ("kappa", "0.5", [], {}),
    ("nu", "1.0", [], {"meta_name": "not-nu"}),
    ("xi", "1.0", [], {"corrupt": True}),
    ("omicron", "1.0", [], {}),
    ("omicron", "2.0b1", [], {}),
    ("sigma", "1.0", ["alpha[nonexistent]>=1.0", "zeta"], {}),
    ("upsilon", "1.0", ["phi==1.0"], {}),
    ("phi", "1.0", ["upsilon==2.0"], {}),
    ("upsilon", "2.0", ["phi==2.0"], {}),
    ("chi", "2.0", ["alpha"], {"record": False}),
    ("chi", "3.0", ["alpha"], {}),
    ("psi", "1.0", ["chi", "epsilon[fast]", "omicron>=1"], {"scripts": True}),
]
EXTRA = {("alpha", "2.0"), ("zeta", "1.5")}
THETA_VERSIONS = ["1.%d" % i for i in range(8)]
IOTA_VERSIONS = ["1.0", "1.3"]

GOOD_REQS = ["alpha", "alpha==1.0", "alpha>=1.1", "alpha<1.1", "beta", "beta<2", "beta==2.0",
             "epsilon", "epsilon[fast]", "epsilon[all]", "zeta", "zeta~=1.0", "eta", "theta", "kappa",
             "omicron", "omicron>=2.0b1", "sigma", "chi", "psi", "Alpha", "ZETA",
             "alpha; python_version < '3'", "epsilon[unknown]"]
BAD_REQS = ["alpha==2.0", "gamma", "eta>=1.0", "theta>=1.5", "kappa>=1.0", "nu", "xi", "upsilon", "mu", "chi==2.0",
            "delta", "nosuchpkg", "alpha>>1", "beta[", "zeta==9.9"]
REQS = GOOD_REQS + BAD_REQS
SDIST_REQS = ["pi", "rho", "mu", "tau"]


def build_universe(root):
    wheels = os.path.join(root, "wheels")
    os.makedirs(wheels)
    extra = os.path.join(root, "extra")  # a second find-links dir, used now and then
    os.makedirs(extra)
    for name, ver, deps, kw in UNIVERSE:
        make_wheel(extra if (name, ver) in EXTRA else wheels, name, ver, deps, **kw)
    for v in THETA_VERSIONS:
        make_wheel(wheels, "theta", v, ["iota==%s" % v.replace("1.", "1.", 1)])
    for v in IOTA_VERSIONS:
        make_wheel(wheels, "iota", v)
    # invalid names / odd files that the finder must skip
    make_wheel(wheels, "lam", "1.0", filename="lam-not-a-wheel.whl")
    with open(os.path.join(wheels, "README.txt"), "w") as fh:
        fh.write("not a distribution\n")
    make_sdist(wheels, "pi", "1.0")
    make_sdist(wheels, "rho", "0.3", deps=["pi"])
    make_sdist(wheels, "mu", "1.0", broken=True)
    make_sdist(wheels, "tau", "1.0", pyproject=True)
    make_sdist(wheels, "alpha", "0.9")
    # file:// simple index over the same files
    simple = os.path.join(root, "simple")
    os.makedirs(simple)
    projects = {}
    for fn in sorted(os.listdir(wheels)) + sorted(os.listdir(extra)):
        if fn.endswith(".whl") and "-" in fn and fn.count("-") >= 4:
            projects.setdefault(fn.split("-")[0].replace("_", "-"), []).append(fn)
        elif fn.endswith(".tar.gz"):
            projects.setdefault(fn.rsplit("-", 1)[0], []).append(fn)
    with open(os.path.join(simple, "index.html"), "w") as fh:
        fh.write("<html><body>\n" + "".join('<a href="%s/">%s</a>\n' % (p, p) for p in sorted(projects))
                 + "</body></html>\n")
    for p, fns in projects.items():
        os.makedirs(os.path.join(simple, p))
        lines = []
        for fn in fns:
            d = extra if os.path.exists(os.path.join(extra, fn)) else wheels
            with open(os.path.join(d, fn), "rb") as f:
                h = hashlib.sha256(f.read()).hexdigest()
            if fn.startswith("zeta-1.0"):
                h = "0" * 64  # wrong hash on purpose
            attrs = ""
            if fn.startswith("alpha-2.0"):
                attrs = ' data-requires-python="&gt;=3.12"'
            if fn.startswith("beta-2.0") or fn.startswith("omicron-2.0b1"):
                attrs += ' data-yanked="broken release"'
            lines.append('<a href="../../%s/%s#sha256=%s"%s>%s</a><br/>' % (os.path.basename(d), fn, h, attrs, fn))
        with open(os.path.join(simple, p, "index.html"), "w") as fh:
            fh.write("<html><body>\n%s\n</body></html>\n" % "\n".join(lines))
    # the system's setuptools wheel, so that isolated sdist builds can work offline
    st = os.path.join(root, "buildtools")
    os.makedirs(st)
    for fn in os.listdir("/usr/share/python-wheels"):
        if fn.startswith(("setuptools-", "wheel-")):
            shutil.copy(os.path.join("/usr/share/python-wheels", fn), st)
    return wheels, extra, simple, st


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
class Gen:
    def __init__(self, rng, root, log):
        self.rng, self.root, self.log = rng, root, log
        self.wheels, self.extra, self.simple, self.buildtools = build_universe(root)
        self.index_url = "file://" + self.simple
        self.n = 0
        self.envs = []

    def tmp(self, what):
        self.n += 1
        p = os.path.join(self.root, "work", "%s-%d" % (what, self.n))
        os.makedirs(p)
        return p

    def run(self, argv, capture=True):
        saved = self.log.case_id
        if not capture:
            self.log.case_id = None
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    return pip_main(argv)
                except SystemExit as e:  # option parsing errors exit
                    return e.code
        finally:
            self.log.case_id = saved

    # --- helpers -------------------------------------------------------------
    def verbosity(self):
        return self.rng.choice([[], [], ["-v"], ["-v"], ["-vv"], ["-vvv"], ["-q"]])

    def common(self):
        r = self.rng
        a = ["--disable-pip-version-check"] if r.random() < 0.97 else []
        a += self.verbosity()
        if r.random() < 0.5:
            a += ["--cache-dir", self.cache_dir()]
        elif r.random() < 0.2:
            a += ["--no-cache-dir"]
        if r.random() < 0.05:
            a += ["--log", os.path.join(self.tmp("log"), "pip.log")]
        if r.random() < 0.05:
            a += ["--no-color", "--progress-bar", "off"]
        return a

    def cache_dir(self):
        if self.rng.random() < 0.5:
            return os.path.join(self.root, "sharedcache")
        return self.tmp("cache")

    def source(self):
        r = self.rng
        k = r.random()
        if k < 0.4:
            return ["--no-index", "-f", self.wheels] + (["-f", self.extra] if r.random() < 0.15 else [])
        if k < 0.85:
            return ["-i", self.index_url]
        if k < 0.95:
            return ["-i", self.index_url, "-f", self.wheels] + (["-f", self.buildtools] if r.random() < 0.3 else [])
        return ["--no-index"]

    def reqs(self, lo=1, hi=3):
        r = self.rng
        out = []
        for _ in range(r.randint(lo, hi)):
            q = r.choice(BAD_REQS if r.random() < 0.15 else GOOD_REQS)
            if q not in out:
                out.append(q)
        if r.random() < 0.06:  # needs an sdist build (pip runs setuptools in a subprocess)
            out.append(r.choice(SDIST_REQS))
        return out

    def req_file(self, reqs):
        r = self.rng
        d = self.tmp("req")
        p = os.path.join(d, "requirements.txt")
        lines = ["# generated requirements"]
        if r.random() < 0.3:
            lines.append("--no-index")
            lines.append("--find-links %s" % self.wheels)
        for q in reqs:
            if r.random() < 0.2:
                with open(os.path.join(self.wheels, "alpha-1.0-py3-none-any.whl"), "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
                q = "%s --hash=sha256:%s" % (q, h if r.random() < 0.5 else "1" * 64)
            lines.append(q)
        if r.random() < 0.1:
            lines.append("-r nested-missing.txt")
        if r.random() < 0.1:
            lines.append("--this-option-does-not-exist")
        with open(p, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        return p

    def constraints(self):
        d = self.tmp("con")
        p = os.path.join(d, "constraints.txt")
        with open(p, "w") as fh:
            fh.write("\n".join(self.rng.sample(["alpha<1.1", "zeta==1.0", "beta!=2.0", "theta<1.3",
                                                "omicron<2", "alpha==1.1"], 2)) + "\n")
        return p

    def install_opts(self):
        r = self.rng
        o = []
        for opt, p in [("--no-deps", 0.1), ("--pre", 0.1), ("--only-binary=:all:", 0.15),
                       ("--prefer-binary", 0.1), ("--ignore-requires-python", 0.05),
                       ("--no-build-isolation", 0.3), ("--use-deprecated=legacy-resolver", 0.1),
                       ("--use-pep517", 0.05), ("--no-binary=:all:", 0.02), ("--require-hashes", 0.03)]:
            if r.random() < p:
                o.append(opt)
        if r.random() < 0.08:
            o += ["-c", self.constraints()]
        return o

    def make_env(self, packages, extra=True):
        """Install packages into a fresh target dir with capture off; add broken dists."""
        env = self.tmp("env")
        self.run(["install", "--disable-pip-version-check", "-q", "--no-index", "-f", self.wheels,
                  "--target", env, "--no-cache-dir"] + packages, capture=False)
        if extra:
            # a dist-info without RECORD, one with a missing requirement, an egg-info
            di = os.path.join(env, "orphan-0.1.dist-info")
            os.makedirs(di)
            with open(os.path.join(di, "METADATA"), "w") as fh:
                fh.write("Metadata-Version: 2.1\nName: orphan\nVersion: 0.1\nRequires-Dist: missing-dep>=2\n"
                         "Requires-Dist: alpha>=5\n")
            with open(os.path.join(di, "INSTALLER"), "w") as fh:
                fh.write("conda\n")
            eg = os.path.join(env, "oldstyle-0.5-py3.11.egg-info")
            os.makedirs(eg)
            with open(os.path.join(eg, "PKG-INFO"), "w") as fh:
                fh.write("Metadata-Version: 1.0\nName: oldstyle\nVersion: 0.5\n")
        return env

    def env(self):
        if len(self.envs) < 6:
            pk = self.rng.sample(["alpha==1.0", "beta==1.0", "zeta", "omicron", "psi", "epsilon[fast]",
                                  "kappa", "theta==1.3", "chi"], 4)
            self.envs.append(self.make_env(pk))
        return self.rng.choice(self.envs)

    @contextlib.contextmanager
    def on_path(self, env):
        sys.path.insert(0, env)
        try:
            yield
        finally:
            try:
                sys.path.remove(env)
            except ValueError:
                pass

    # --- commands --------------------------------------------------------------
    def c_install(self):
        r = self.rng
        argv = ["install"] + self.common() + self.install_opts()
        k = r.random()
        if k < 0.85:
            t = self.tmp("target")
            if r.random() < 0.2:  # pre-populated target: "already exists" / --upgrade replacement
                self.run(["install", "-q", "--disable-pip-version-check", "--no-index", "-f", self.wheels,
                          "--target", t, "--no-deps", "alpha==1.0", "zeta==1.0"], capture=False)
                if r.random() < 0.6:
                    argv.append("--upgrade")
                    if r.random() < 0.3:
                        argv.append("--upgrade-strategy=eager")
            argv += ["--target", t]
        elif k < 0.90:
            argv += ["--prefix", self.tmp("prefix")]
        elif k < 0.93:
            argv += ["--dry-run", "--report", os.path.join(self.tmp("rep"), "report.json")]
        elif k < 0.97:
            pass  # PEP 668: externally managed
        else:
            argv += ["--break-system-packages", "--dry-run"]
        if r.random() < 0.2:
            argv += ["--dry-run"]
        if r.random() < 0.2:
            argv += ["--force-reinstall"]
        if r.random() < 0.7:
            argv += ["--no-compile"]  # byte-compiling dominates run time otherwise
        argv += self.source()
        k = r.random()
        if k < 0.12:
            argv += ["-r", self.req_file(self.reqs(1, 3))]
        elif k < 0.18:
            fn = r.choice(sorted(os.listdir(self.wheels)))
            argv.append(os.path.join(self.wheels, fn) if r.random() < 0.8 else "file://" + os.path.join(self.wheels, fn))
        elif k < 0.21:
            argv.append("alpha @ file://%s/alpha-1.1-py3-none-any.whl" % self.wheels)
        elif k < 0.23:
            argv.append(os.path.join(self.root, "does-not-exist.whl"))
        else:
            argv += self.reqs()
        return argv

    def c_download(self):
        r = self.rng
        d = self.tmp("dl")
        if r.random() < 0.2:
            shutil.copy(os.path.join(self.wheels, "alpha-1.1-py3-none-any.whl"), d)
        argv = ["download"] + self.common() + ["-d", d] + self.source()
        if r.random() < 0.2:
            argv += ["--only-binary=:all:", "--platform", r.choice(["manylinux2014_x86_64", "win_amd64", "any"]),
                     "--python-version", r.choice(["3.8", "3.11", "2.7"])]
            if r.random() < 0.5:
                argv += ["--abi", r.choice(["cp38", "none"]), "--implementation", r.choice(["cp", "py"])]
        argv += [o for o in self.install_opts() if o != "--use-pep517"]
        argv += self.reqs()
        return argv

    def c_wheel(self):
        r = self.rng
        argv = ["wheel"] + self.common() + ["-w", self.tmp("wh")] + self.source()
        if r.random() < 0.5:
            argv += ["--no-build-isolation"]
        elif r.random() < 0.5:
            argv += ["-f", self.buildtools]
        if r.random() < 0.2:
            argv += ["--no-deps"]
        reqs = self.reqs(1, 2)
        if r.random() < 0.25:
            reqs.append(r.choice(SDIST_REQS))
        else:
            reqs = [q for q in reqs if q not in SDIST_REQS] or ["alpha"]
        return argv + reqs

    def c_uninstall(self):
        r = self.rng
        src = self.env()
        env = self.tmp("uenv")
        shutil.rmtree(env)
        shutil.copytree(src, env, symlinks=True)
        argv = ["uninstall"] + self.common()
        if r.random() < 0.9:
            argv.append("-y")
        if r.random() < 0.9:
            argv.append("--break-system-packages")
        names = r.sample(["alpha", "beta", "zeta", "omicron", "psi", "epsilon", "kappa", "theta", "chi",
                          "orphan", "oldstyle", "nosuchpkg", "iota"], r.randint(1, 3))
        if r.random() < 0.1:
            argv += ["-r", self.req_file(names)]
        else:
            argv += names
        return argv, env

    def c_list(self):
        r = self.rng
        argv = ["list"] + self.common()
        if r.random() < 0.8:
            argv += ["--path", self.env()]
        k = r.random()
        if k < 0.3:
            argv += ["--outdated"] + self.source()
        elif k < 0.4:
            argv += ["--uptodate"] + self.source()
        if r.random() < 0.5:
            argv += ["--format", r.choice(["columns", "freeze", "json"])]
        if r.random() < 0.2:
            argv += ["--not-required"]
        if r.random() < 0.1:
            argv += ["--pre"]
        if r.random() < 0.1:
            argv += ["--exclude", "alpha"]
        return argv

    def c_show(self):
        r = self.rng
        argv = ["show"] + self.common()
        if r.random() < 0.3:
            argv.append("-f")
        names = r.sample(["alpha", "beta", "zeta", "psi", "orphan", "oldstyle", "nosuchpkg", "requests",
                          "urllib3", "pip", "chardet", "idna"], r.randint(1, 3))
        return argv + names, self.env()

    def c_freeze(self):
        r = self.rng
        argv = ["freeze"] + self.common() + ["--path", self.env()]
        if r.random() < 0.4:
            argv += ["-r", self.req_file(self.reqs(1, 4))]
        if r.random() < 0.2:
            argv += ["--all"]
        if r.random() < 0.1:
            argv += ["--exclude", "zeta"]
        return argv

    def c_check(self):
        return ["check"] + self.common(), self.env()

    def c_misc(self):
        r = self.rng
        k = r.random()
        c = self.common()
        if k < 0.12:
            return ["hash"] + c + ["-a", r.choice(["sha256", "sha384", "sha512"])] + \
                [os.path.join(self.wheels, f) for f in r.sample(sorted(os.listdir(self.wheels)), 2)]
        if k < 0.40:
            cache = os.path.join(self.root, "sharedcache")
            sub = r.choice([["dir"], ["info"], ["list"], ["list", "--format=abspath"], ["list", "alpha"],
                            ["remove", "pi"], ["remove", "nothing-here"], ["purge"], ["bogus"], []])
            if sub and sub[0] == "purge":
                cache = self.tmp("pcache")
                self.run(["wheel", "-q", "--disable-pip-version-check", "--no-index", "-f", self.wheels,
                          "--no-build-isolation", "--cache-dir", cache, "-w", self.tmp("w"), "pi"], capture=False)
            c = [x for x in c if x not in ("--no-cache-dir",)]
            if "--cache-dir" in c:
                i = c.index("--cache-dir")
                del c[i:i + 2]
            return ["cache"] + c + ["--cache-dir", cache] + sub
        if k < 0.62:
            sub = r.choice([["list"], ["debug"], ["get", "global.index-url"], ["get", "install.no-index"],
                            ["set", "global.timeout", str(r.randint(5, 60))], ["set", "install.no-compile", "true"],
                            ["unset", "global.timeout"], ["unset", "global.nothing"], ["set", "badkey", "1"],
                            ["edit"], []])
            if r.random() < 0.3:
                sub = sub[:1] + ["--user"] + sub[1:]
            return ["config"] + c + sub
        if k < 0.72:
            a = ["inspect"] + c
            if r.random() < 0.7:
                a += ["--path", self.env()]
            return a
        if k < 0.82:
            return ["index"] + c + ["versions", r.choice(["alpha", "theta", "omicron", "nosuchpkg", "kappa"])] + \
                (["--pre"] if r.random() < 0.3 else []) + self.source()
        if k < 0.87:
            return ["debug"] + [x for x in c if not x.startswith("-v")]
        if k < 0.93:
            return [r.choice(["instal", "uninstal", "frezze", "lst", "wheels"])] + c
        return ["help", r.choice(["install", "list", "nothing"])]

    def run_case(self):
        r = self.rng
        k = r.random()
        env = None
        if k < 0.36:
            argv = self.c_install()
        elif k < 0.48:
            argv = self.c_download()
        elif k < 0.55:
            argv = self.c_wheel()
        elif k < 0.63:
            argv, env = self.c_uninstall()
        elif k < 0.71:
            argv = self.c_list()
        elif k < 0.77:
            argv, env = self.c_show()
        elif k < 0.81:
            argv = self.c_freeze()
        elif k < 0.84:
            argv, env = self.c_check()
        else:
            argv = self.c_misc()
        # The default environment pip sees is sys.path: the stdlib only (pip is
        # imported already), plus Debian's dist-packages in some show/check cases.
        saved = list(sys.path)
        sys.path[:] = [p for p in sys.path if "-packages" not in p]
        if argv[0] in ("show", "check", "inspect") and r.random() < 0.3:
            sys.path.extend(p for p in saved if "-packages" in p)
        try:
            if env:
                with self.on_path(env):
                    self.run(argv)
            else:
                self.run(argv)
        finally:
            sys.path[:] = saved
        # keep the temp tree small
        work = os.path.join(self.root, "work")
        keep = set(self.envs)
        for d in os.listdir(work):
            p = os.path.join(work, d)
            if p not in keep:
                shutil.rmtree(p, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    root = tempfile.mkdtemp(prefix="gen_pip_")
    old_env = dict(os.environ)
    old_cwd = os.getcwd()
    try:
        home = os.path.join(root, "home")
        os.makedirs(home)
        os.environ.update({"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "PIP_NO_INPUT": "1",
                           # pip computes its default cache dir at import time: override it
                           "PIP_CACHE_DIR": os.path.join(home, ".cache", "pip"),
                           "PIP_CONFIG_FILE": os.devnull, "EDITOR": "true", "VISUAL": "true",
                           "PYTHONDONTWRITEBYTECODE": "1"})
        for k in list(os.environ):
            if k.startswith("PIP_") and k not in ("PIP_NO_INPUT", "PIP_CONFIG_FILE", "PIP_RESOLVER_DEBUG", "PIP_CACHE_DIR"):
                del os.environ[k]
        os.makedirs(os.path.join(root, "work"))
        os.chdir(root)
        log = _capture.EventLog(pip, a.out, wrappers=WRAPPERS)
        g = Gen(rng, root, log)
        t0 = time.time()
        for i in range(a.cases):
            # a user config file now and then (options from config, env overrides)
            if rng.random() < 0.1:
                os.environ["PIP_CONFIG_FILE"] = rng.choice([os.devnull, os.path.join(home, "pip-extra.conf")])
                with open(os.path.join(home, "pip-extra.conf"), "w") as fh:
                    fh.write("[global]\ntimeout = 30\n[install]\nno-compile = true\n")
            # pip's resolver debugging reporter, now and then
            if rng.random() < 0.06:
                os.environ["PIP_RESOLVER_DEBUG"] = "1"
            else:
                os.environ.pop("PIP_RESOLVER_DEBUG", None)
            log.case_id = "pip-%05d" % i
            try:
                g.rng = random.Random("%d-%d" % (a.seed, i))  # per-case stream: timing-dependent
                # outcomes of one case do not shift the choices of later cases
                g.run_case()
            finally:
                log.end_case()
        log.finish()
        print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
