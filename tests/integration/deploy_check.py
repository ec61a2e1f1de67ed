#!/usr/bin/env python3
"""Checks deploy/ against pmrag itself (run by deploy_check.sh).

  deploy_check.py PMRAG TOPDIR WORKDIR

- Every pmrag configuration under deploy/ (deploy/*/pmrag*.yaml, and the
  pmrag.yaml of the Kubernetes ConfigMap) loads with `pmrag config`; the
  values the other files depend on are read back with `pmrag config --get`,
  so that they are the values pmrag sees.
- The Dockerfile: two stages (debian:12 build, debian:12-slim runtime), a
  non-root USER, the build stage installs deps.sh's -dev packages and
  fetches the grammars with deps.sh, the runtime packages cover every
  shared library `ldd PMRAG` lists (sonames to packages with dpkg -S, and
  the packages' own dependencies with dpkg-query), ports, volume and
  health check agree with the image's pmrag.yaml.
- compose.yaml and collector/otelcol.yaml (at the defaults of its
  environment variables, as compose runs it): the Collector, built from
  deploy/collector, writes otlp_proto spans and logs to the topics pmrag
  reads, to the brokers pmrag reads from; its otlp_http and otlp_grpc
  exporters point at pmrag's two OTLP ports; ports, volumes and paths agree.
- OTLP/gRPC beside OTLP/HTTP: every configuration that listens for one
  listens for the other, on the same address; the Dockerfile exposes,
  compose exposes, the pod declares and the Services forward both.
- deploy/k8s: probes on /livez and /readyz of the API port, container
  ports equal to the listen ports, the state volume at state.dir,
  selectors, the ConfigMap mounted where --config points.
- The systemd unit: the hardening it promises, and systemd-analyze verify
  (when systemd-analyze exists).
- Live: pmrag serve with deploy/compose/pmrag.yaml against `pmrag
  kafka-mock` (brokers and listen addresses overridden): /livez, /readyz,
  the Dockerfile's HEALTHCHECK command, an OTLP/HTTP request and a Kafka
  message (kcat) each giving predictions, the OTLP/gRPC listener answering
  an HTTP/2 connection preface with its SETTINGS, SIGTERM giving exit 0.
"""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import yaml

PMRAG, TOP, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
DEPLOY = os.path.join(TOP, "deploy")
FAILS = []


def ok(name):
    print("ok   %s" % name)


def fail(name, why=""):
    FAILS.append(name)
    print("FAIL %s" % name)
    for line in str(why).strip().splitlines()[:12]:
        print("    " + line)


def skip(name, why):
    print("skip %s: %s" % (name, why))


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        fail(name, why)
    return cond


def rel(path):
    return os.path.relpath(path, TOP)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def load_yaml(path, name):
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        fail(name, e)
        return None


def port_of(listen):
    """'0.0.0.0:4318' -> 4318; '[::]:4318' -> 4318; '' -> None."""
    if not listen:
        return None
    try:
        return int(listen.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None


def host_of(listen):
    return listen.rsplit(":", 1)[0].strip("[]") if listen else ""


def csv_set(s):
    return {x.strip() for x in (s or "").split(",") if x.strip()}


# ---------------------------------------------------------------------------
# pmrag configurations
# ---------------------------------------------------------------------------
KEYS = ["otlp.listen", "otlp.grpc_listen", "api.listen", "state.dir", "kafka.brokers", "kafka.embedded",
        "kafka.group", "kafka.input_topics", "kafka.logs_topics", "kafka.input_encoding",
        "kafka.output_topic"]


def pmrag_config(path, name, origin=None):
    """Loads a file with pmrag's own loader; returns {key: value} or None.
    origin (file, first line) says where an extracted file came from, so
    that errors name that file and line."""
    r = run([PMRAG, "config", "--config", path])
    if r.returncode != 0:
        why = r.stderr
        if origin:
            why = re.sub(re.escape(path) + r":(\d+):",
                         lambda m: "%s:%d:" % (origin[0], origin[1] + int(m.group(1)) - 1), why)
        fail("%s loads with pmrag config" % name, why)
        return None
    ok("%s loads with pmrag config" % name)
    vals = {}
    for k in KEYS:
        g = run([PMRAG, "config", "--config", path, "--get", k])
        if g.returncode != 0:
            fail("%s: pmrag config --get %s" % (name, k), g.stderr)
            return None
        vals[k] = g.stdout.strip()
    return vals


def k8s_objects():
    kdir = os.path.join(DEPLOY, "k8s")
    kust = load_yaml(os.path.join(kdir, "kustomization.yaml"), "k8s: kustomization.yaml parses")
    if not kust:
        return []
    objs = []
    for res in kust.get("resources") or []:
        path = os.path.join(kdir, res)
        if not os.path.isfile(path):
            fail("k8s: resource %s exists" % res)
            continue
        try:
            with open(path) as f:
                for d in yaml.safe_load_all(f):
                    if d:
                        d["_file"] = res
                        objs.append(d)
        except yaml.YAMLError as e:
            fail("k8s: %s parses" % res, e)
    return objs


def check_configs(objs):
    configs = {}
    for sub in sorted(os.listdir(DEPLOY)):
        d = os.path.join(DEPLOY, sub)
        if sub == "k8s" or not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            if re.fullmatch(r"pmrag.*\.ya?ml", fn):
                configs["%s/%s" % (sub, fn)] = os.path.join(d, fn)
    origins = {}
    for o in objs:
        if o.get("kind") == "ConfigMap":
            for key, text in (o.get("data") or {}).items():
                if re.fullmatch(r"pmrag.*\.ya?ml", key):
                    out = os.path.join(WORK, "k8s-%s-%s" % (o["metadata"]["name"], key))
                    with open(out, "w") as f:
                        f.write(text)
                    name = "k8s/%s[%s]" % (o["_file"], key)
                    configs[name] = out
                    # The block's first line: the one after "key: |".
                    src = os.path.join("deploy", "k8s", o["_file"])
                    lines = open(os.path.join(TOP, src)).read().splitlines()
                    at = next((i for i, l in enumerate(lines)
                               if re.match(r"\s*%s:\s*\|" % re.escape(key), l)), None)
                    if at is not None:
                        origins[name] = (src, at + 2)
    want = {"docker/pmrag.yaml", "compose/pmrag.yaml", "systemd/pmrag.yaml"}
    check("pmrag configurations found: docker, compose, systemd, k8s ConfigMap",
          want <= set(configs) and any(n.startswith("k8s/") for n in configs),
          "found: %s" % ", ".join(sorted(configs)))
    vals = {}
    for name, path in sorted(configs.items()):
        v = pmrag_config(path, name, origins.get(name))
        if v is not None:
            vals[name] = v
    # The defaults stay on loopback; containers bind every interface.
    for k in ("otlp.listen", "otlp.grpc_listen", "api.listen"):
        g = run([PMRAG, "config", "--get", k])
        check("default %s is loopback" % k, g.stdout.strip().startswith("127.0.0.1:"),
              g.stdout + g.stderr)
    for name, v in vals.items():
        if name.startswith(("docker/", "compose/", "k8s/")):
            for k in ("otlp.listen", "otlp.grpc_listen", "api.listen"):
                check("%s: %s binds every interface in a container" % (name, k),
                      host_of(v[k]) in ("0.0.0.0", "::"), v[k])
        # An application's SDK exports over gRPC (4317) by default: where
        # OTLP/HTTP is taken from other hosts, so is OTLP/gRPC.
        http, grpc = v["otlp.listen"], v["otlp.grpc_listen"]
        check("%s: OTLP/gRPC listens where OTLP/HTTP does (%s, %s)" % (name, grpc, http),
              bool(http) == bool(grpc) and host_of(http) == host_of(grpc)
              and (not grpc or port_of(grpc) not in (port_of(http), port_of(v["api.listen"]))),
              "otlp.listen %r otlp.grpc_listen %r" % (http, grpc))
        if name.startswith(("compose/", "k8s/", "systemd/")):
            topics, logs = csv_set(v["kafka.input_topics"]), csv_set(v["kafka.logs_topics"])
            check("%s: a real Kafka (brokers set, embedded off)" % name,
                  v["kafka.brokers"] != "" and v["kafka.embedded"] == "false",
                  "brokers %r embedded %r" % (v["kafka.brokers"], v["kafka.embedded"]))
            check("%s: reads otlp_spans and otlp_logs (logs topic otlp_logs)" % name,
                  {"otlp_spans", "otlp_logs"} <= topics and logs == {"otlp_logs"},
                  "input_topics %s logs_topics %s" % (sorted(topics), sorted(logs)))
            check("%s: input encoding otlp_proto or auto" % name,
                  v["kafka.input_encoding"] in ("otlp_proto", "auto"), v["kafka.input_encoding"])
    return vals


# ---------------------------------------------------------------------------
# Dockerfile
# ---------------------------------------------------------------------------
def dockerfile_instructions(path):
    """[(KEYWORD, text)] with continuation lines joined, comments dropped."""
    out, cur = [], ""
    with open(path) as f:
        for line in f:
            s = line.rstrip("\n")
            if s.lstrip().startswith("#"):
                continue
            if s.endswith("\\"):
                cur += s[:-1] + " "
                continue
            cur += s
            if cur.strip():
                kw, _, rest = cur.strip().partition(" ")
                out.append((kw.upper(), rest.strip()))
            cur = ""
    return out


def apt_packages(run_text):
    pkgs = []
    for seg in run_text.split("&&"):
        toks = shlex.split(seg)
        if "apt-get" in toks and "install" in toks:
            pkgs += [t for t in toks[toks.index("install") + 1:] if not t.startswith("-")]
    return pkgs


def deps_sh_packages():
    text = open(os.path.join(DEPLOY, "deps.sh")).read()
    m = re.search(r"^packages=\((.*?)^\)", text, re.S | re.M)
    if not m:
        return []
    body = "\n".join(l.split("#", 1)[0] for l in m.group(1).splitlines())
    return body.split()


def dpkg_owners(paths):
    """{path: [packages]} for the paths dpkg knows, trying each path as
    given, resolved, and with or without /usr (merged /usr), in one call."""
    cands = {}
    for path in paths:
        c = [path, os.path.realpath(path)]
        for p in list(c):
            if p.startswith("/lib"):
                c.append("/usr" + p)
            elif p.startswith("/usr/lib"):
                c.append(p[4:])
        cands[path] = c
    r = run(["dpkg", "-S"] + sorted({p for c in cands.values() for p in c}))
    owner = {}
    for line in r.stdout.splitlines():
        pkgs, _, p = line.rpartition(": ")
        if pkgs and not line.startswith("diversion"):
            owner[p] = [o.strip().split(":")[0] for o in pkgs.split(",")]
    return {path: next((owner[p] for p in c if p in owner), None) for path, c in cands.items()}


def installed_dependencies():
    """{package: set of packages it depends on}, {virtual: providers}, from dpkg."""
    r = run(["dpkg-query", "-W", "-f", "${Package}\t${Depends}, ${Pre-Depends}\t${Provides}\n"])
    deps, provides = {}, {}
    for line in r.stdout.splitlines():
        pkg, dep, prov = (line.split("\t") + ["", ""])[:3]
        alts = set()
        for clause in dep.split(","):
            for alt in clause.split("|"):
                name = re.sub(r"\(.*?\)|:any|:\w+$", "", alt).strip()
                if name:
                    alts.add(name)
        deps[pkg] = alts
        for p in prov.split(","):
            p = re.sub(r"\(.*?\)", "", p).strip()
            if p:
                provides.setdefault(p, set()).add(pkg)
    return deps, provides


def closure(roots, deps, provides):
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for d in deps.get(p, ()):
            todo.append(d)
            todo.extend(provides.get(d, ()))
    return seen


def check_dockerfile(vals, live):
    path = os.path.join(DEPLOY, "docker", "Dockerfile")
    if not check("docker: Dockerfile exists", os.path.isfile(path)):
        return
    ins = dockerfile_instructions(path)
    stages = []
    for kw, rest in ins:
        if kw == "FROM":
            stages.append({"from": rest, "ins": []})
        elif stages:
            stages[-1]["ins"].append((kw, rest))
    froms = [s["from"] for s in stages]
    if not check("docker: two stages, debian:12 AS build then debian:12-slim",
                 len(stages) == 2 and re.fullmatch(r"debian:12\s+(?i:as)\s+build", froms[0])
                 and froms[1].split()[0] == "debian:12-slim", "FROM lines: %s" % froms):
        return
    build, runtime = stages
    users = [r for k, r in runtime["ins"] if k == "USER"]
    user = users[-1].split(":")[0] if users else "root"
    check("docker: the runtime stage runs as a non-root USER",
          user not in ("root", "0", ""), "USER %s" % (users[-1] if users else "(none)"))
    check("docker: the runtime stage copies pmrag from the build stage",
          any(k == "COPY" and "--from=build" in r and "pmrag" in r for k, r in runtime["ins"]))

    # The build stage: deps.sh's -dev packages (not the sanitizer runtime),
    # the generator and the build tools; the grammars as deps.sh fetches them.
    bpk = set(sum((apt_packages(r) for k, r in build["ins"] if k == "RUN"), []))
    dev = {p for p in deps_sh_packages() if p.endswith("-dev") and not p.startswith("libclang-rt")}
    need = dev | {"protobuf-c-compiler", "cmake", "pkg-config", "build-essential"}
    check("docker: the build stage installs deps.sh's -dev packages and tools",
          dev and need <= bpk, "missing: %s" % sorted(need - bpk))
    check("docker: the build stage fetches the grammars with deploy/deps.sh --grammars",
          any(k == "RUN" and "deploy/deps.sh --grammars" in r for k, r in build["ins"]))
    check("docker: the build is RelWithDebInfo",
          any(k == "RUN" and "CMAKE_BUILD_TYPE=RelWithDebInfo" in r for k, r in build["ins"]))

    # The runtime stage: libraries only (no -dev), covering ldd's list.
    rpk = sum((apt_packages(r) for k, r in runtime["ins"] if k == "RUN"), [])
    check("docker: the runtime stage installs no -dev package or compiler",
          rpk and not [p for p in rpk if p.endswith("-dev") or p in ("build-essential", "gcc")],
          "runtime packages: %s" % rpk)
    if shutil.which("apt-cache"):
        names = sorted(set(rpk) | bpk | {"libc6"})
        r = run(["apt-cache", "show", "--no-all-versions"] + names)
        found = set(re.findall(r"^Package: (\S+)", r.stdout, re.M))
        if "libc6" in found:
            bad = [p for p in names if p not in found]
            check("docker: every package named exists in this Debian's archive", not bad,
                  "unknown: %s" % bad)
        else:
            skip("docker: package names", "apt-cache has no package lists here")
    else:
        skip("docker: package names", "no apt-cache here")
    check_ldd_coverage(set(rpk))

    # Ports, volume, health check, entrypoint against the image's config.
    v = vals.get("docker/pmrag.yaml")
    if not v:
        return
    api, otlp = port_of(v["api.listen"]), port_of(v["otlp.listen"])
    grpc = port_of(v["otlp.grpc_listen"])
    exposed = {int(p.split("/")[0]) for k, r in runtime["ins"] if k == "EXPOSE" for p in r.split()}
    check("docker: EXPOSE equals the config's OTLP/gRPC, OTLP/HTTP and API ports (%s, %s, %s)"
          % (grpc, otlp, api), exposed == {grpc, otlp, api}, "EXPOSE %s" % sorted(exposed))
    vols = set()
    for k, r in runtime["ins"]:
        if k == "VOLUME":
            vols |= set(json.loads(r)) if r.startswith("[") else set(r.split())
    check("docker: VOLUME is state.dir (%s)" % v["state.dir"], v["state.dir"] in vols,
          "VOLUME %s" % sorted(vols))
    ep = [json.loads(r) for k, r in runtime["ins"] if k == "ENTRYPOINT"]
    cmd = [json.loads(r) for k, r in runtime["ins"] if k == "CMD"]
    check("docker: ENTRYPOINT is pmrag serve", ep and ep[-1] == ["pmrag", "serve"], ep)
    copies = {}
    for k, r in runtime["ins"]:
        if k == "COPY" and "--from" not in r:
            src, dst = r.split()[-2:]
            copies[dst] = src
    conf = cmd[-1][cmd[-1].index("--config") + 1] if cmd and "--config" in cmd[-1] else None
    check("docker: CMD --config is where deploy/docker/pmrag.yaml is copied",
          conf and copies.get(conf) == "deploy/docker/pmrag.yaml",
          "CMD %s, COPY %s" % (cmd, copies))
    hc = [r for k, r in runtime["ins"] if k == "HEALTHCHECK"]
    hcmd = None
    if hc and " CMD " in " " + hc[-1]:
        spec = hc[-1][hc[-1].index("CMD") + 3:].strip()
        hcmd = json.loads(spec) if spec.startswith("[") else ["/bin/sh", "-c", spec]
    check("docker: HEALTHCHECK asks /livez on the API port (%s)" % api,
          hcmd and "/livez" in " ".join(hcmd) and "/%d" % api in " ".join(hcmd), hc)
    if hcmd:
        live["healthcheck"] = (hcmd, api)


def check_ldd_coverage(runtime):
    name = "docker: the runtime packages cover every library `ldd pmrag` lists"
    if not shutil.which("dpkg") or not shutil.which("ldd"):
        skip(name, "no dpkg or ldd here")
        return
    r = run(["ldd", PMRAG])
    if r.returncode != 0:
        fail(name, r.stderr)
        return
    libs = []
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(\S+)", line) or re.match(r"\s*(/\S+)\s+\(", line)
        if m:
            libs.append((m.group(1), m.group(m.lastindex)))
    if any(re.match(r"lib(a|ub|t|l)san\.so", so) for so, _ in libs):
        # make asan's binary links the sanitizers' runtimes (and what they
        # need), which the image's RelWithDebInfo build does not.
        skip(name, "a sanitizer build")
        return
    needed = set()
    if shutil.which("objdump"):
        d = run(["objdump", "-p", PMRAG])
        needed = set(re.findall(r"NEEDED\s+(\S+)", d.stdout))
    deps, provides = installed_dependencies()
    # The runtime packages' own dependencies, as this Debian (the image's
    # release) declares them; libc6 is in every Debian image.
    covered = closure(runtime | {"libc6"}, deps, provides)
    problems, table = [], []
    owned = dpkg_owners([path for _, path in libs])
    for soname, path in libs:
        owners = owned.get(path)
        if not owners:
            problems.append("%s (%s): no package owns it" % (soname, path))
            continue
        # A library pmrag links directly needs its package named; one that
        # comes through another library may come as a dependency.
        direct = soname in needed
        pool = runtime | {"libc6"} if direct else covered
        good = any(o in pool for o in owners)
        table.append("%-26s %-18s %s%s" % (soname, ",".join(owners),
                                            "direct" if direct else "through a dependency",
                                            "" if good else "   <- NOT COVERED"))
        if not good:
            problems.append("%s: package %s is %s" % (
                soname, ",".join(owners), "not in the runtime list" if direct
                else "neither in the runtime list nor a dependency of it"))
    if check(name + " (%d libraries)" % len(libs), libs and not problems,
             "\n".join(problems + table)):
        for t in table:
            print("       " + t)
    unknown = sorted(p for p in runtime if p not in deps)
    if unknown:
        print("       note: not installed here (their dependencies were not followed): %s"
              % ", ".join(unknown))


# ---------------------------------------------------------------------------
# compose.yaml, otelcol.yaml
# ---------------------------------------------------------------------------
def compose_var(s):
    """Expands ${VAR:-default} (and ${VAR-default}) to its default."""
    return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}", r"\1", s)


def container_ports(specs):
    out = set()
    for s in specs or []:
        s = str(s["target"] if isinstance(s, dict) else s).split("/")[0]
        out.add(int(s.rsplit(":", 1)[-1]))
    return out


def mounts(svc):
    """[(source, target, read_only)] of a compose service."""
    out = []
    for m in svc.get("volumes") or []:
        if isinstance(m, dict):
            out.append((m.get("source"), m.get("target"), bool(m.get("read_only"))))
            continue
        parts = compose_var(m).split(":")
        out.append((parts[0], parts[1], len(parts) > 2 and "ro" in parts[2].split(",")))
    return out


def flag(args, name):
    for i, a in enumerate(args or []):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


ENV_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def collector_defaults(node):
    """The Collector configuration as it is with its ${env:VAR:-default}
    references at their defaults: a value that is one reference is the
    default parsed as YAML (as the Collector does), one inside a string is
    replaced in it."""
    if isinstance(node, dict):
        return {k: collector_defaults(x) for k, x in node.items()}
    if isinstance(node, list):
        return [collector_defaults(x) for x in node]
    if isinstance(node, str):
        m = ENV_REF.fullmatch(node)
        if m:
            return yaml.safe_load(m.group(2) or "")
        return ENV_REF.sub(lambda m: m.group(2) or "", node)
    return node


def check_compose(vals):
    cdir = os.path.join(DEPLOY, "compose")
    coldir = os.path.join(DEPLOY, "collector")
    comp = load_yaml(os.path.join(cdir, "compose.yaml"), "compose: compose.yaml parses")
    col = load_yaml(os.path.join(coldir, "otelcol.yaml"), "compose: collector/otelcol.yaml parses")
    col = collector_defaults(col) if col else col
    v = vals.get("compose/pmrag.yaml")
    if not comp or not col or not v:
        fail("compose: compose.yaml, collector/otelcol.yaml and pmrag.yaml all load")
        return
    svcs = comp.get("services") or {}
    if not check("compose: services kafka, otelcol and pmrag",
                 {"kafka", "otelcol", "pmrag"} <= set(svcs), sorted(svcs)):
        return
    kafka, otel, pm = svcs["kafka"], svcs["otelcol"], svcs["pmrag"]
    kenv = {k: str(x) for k, x in (kafka.get("environment") or {}).items()}
    check("compose: Kafka is apache/kafka in KRaft mode, no ZooKeeper",
          str(kafka.get("image", "")).startswith("apache/kafka:")
          and {"broker", "controller"} <= csv_set(kenv.get("KAFKA_PROCESS_ROLES"))
          and not any("zookeeper" in n for n in svcs), kafka.get("image"))
    # The Collector is the one the `collector` tests build and run: from
    # deploy/collector (its Dockerfile builds manifest.yaml), with
    # deploy/collector/otelcol.yaml, at the manifest's version.
    bctx = (otel.get("build") or {}).get("context", "") if isinstance(otel.get("build"), dict) \
        else otel.get("build") or ""
    man = load_yaml(os.path.join(coldir, "manifest.yaml"), "compose: collector/manifest.yaml parses")
    mver = str(((man or {}).get("dist") or {}).get("version", ""))
    check("compose: the Collector is built from deploy/collector, tagged %s" % mver,
          bctx and os.path.normpath(os.path.join(cdir, bctx)) == coldir
          and str(otel.get("image", "")).endswith(":" + mver),
          "build %r image %r" % (otel.get("build"), otel.get("image")))
    dock = open(os.path.join(coldir, "Dockerfile")).read() if os.path.exists(
        os.path.join(coldir, "Dockerfile")) else ""
    check("compose: deploy/collector/Dockerfile builds manifest.yaml with builder v%s and go.sum"
          % mver, "cmd/builder@v%s" % mver in dock and "go.sum" in dock
          and "manifest.yaml" in dock, "Dockerfile: %d bytes" % len(dock))
    cargs = otel.get("command") or []
    cpath = flag(cargs, "--config")
    cm = [s for s, t, _ in mounts(otel) if t == cpath]
    check("compose: otelcol runs with ../collector/otelcol.yaml (--config %s)" % cpath,
          cm and os.path.normpath(os.path.join(cdir, cm[0])) == os.path.join(coldir, "otelcol.yaml"),
          "mounts %s" % mounts(otel))

    # Receivers: OTLP gRPC and HTTP, published.
    prot = ((col.get("receivers") or {}).get("otlp") or {}).get("protocols") or {}
    rports = {port_of((prot.get(p) or {}).get("endpoint", "")) for p in ("grpc", "http")}
    check("compose: the Collector receives OTLP gRPC and HTTP on 0.0.0.0",
          set(prot) >= {"grpc", "http"} and all(host_of((prot[p] or {}).get("endpoint", ""))
                                                 == "0.0.0.0" for p in ("grpc", "http")), prot)
    check("compose: the Collector's receiver ports are published (%s)" % sorted(rports, key=str),
          None not in rports and rports <= container_ports(otel.get("ports")),
          "ports %s" % otel.get("ports"))

    # The exporter writes what pmrag reads.
    exp = (col.get("exporters") or {}).get("kafka") or {}
    tr, lg = exp.get("traces") or {}, exp.get("logs") or {}
    topics, logs = csv_set(v["kafka.input_topics"]), csv_set(v["kafka.logs_topics"])
    check("compose: spans go to otlp_spans, which pmrag reads as spans",
          tr.get("topic") == "otlp_spans" and "otlp_spans" in topics and "otlp_spans" not in logs,
          "exporter traces.topic %r; pmrag input %s logs %s" % (tr.get("topic"), topics, logs))
    check("compose: logs go to otlp_logs, which pmrag reads as logs",
          lg.get("topic") == "otlp_logs" and "otlp_logs" in logs,
          "exporter logs.topic %r; pmrag logs %s" % (lg.get("topic"), logs))
    check("compose: encoding otlp_proto for both, which pmrag decodes (%s)"
          % v["kafka.input_encoding"],
          tr.get("encoding") == lg.get("encoding") == "otlp_proto"
          and v["kafka.input_encoding"] in ("otlp_proto", "auto"),
          "traces %r logs %r" % (tr.get("encoding"), lg.get("encoding")))
    check("compose: no deprecated top-level topic/encoding on the exporter",
          "topic" not in exp and "encoding" not in exp)
    check("compose: spans keyed by trace id (partition_traces_by_id)",
          exp.get("partition_traces_by_id") is True)
    check("compose: at most one log partitioning option",
          not (exp.get("partition_logs_by_trace_id") and
               exp.get("partition_logs_by_resource_attributes")))
    pipes = (col.get("service") or {}).get("pipelines") or {}
    check("compose: traces and logs pipelines from otlp to kafka",
          all("otlp" in (pipes.get(p) or {}).get("receivers", []) and
              "kafka" in (pipes.get(p) or {}).get("exporters", []) for p in ("traces", "logs")),
          pipes)
    defined = set(col.get("processors") or {})
    used = {x for p in pipes.values() for x in (p or {}).get("processors", [])}
    check("compose: every processor a pipeline uses is defined", used <= defined,
          "undefined: %s" % sorted(used - defined))
    # The exporters straight to pmrag (OTELCOL_EXPORTERS=[otlp_http] or
    # [otlp_grpc]) reach its receivers: the pmrag service, at the ports
    # pmrag.yaml listens on.
    exps = col.get("exporters") or {}
    for ename, key, scheme in (("otlp_http", "otlp.listen", "http://"),
                               ("otlp_grpc", "otlp.grpc_listen", "")):
        ep = str((exps.get(ename) or {}).get("endpoint", ""))
        want = "%spmrag:%s" % (scheme, port_of(v[key]))
        check("compose: the Collector's %s exporter sends to %s (%s)" % (ename, want, key),
              ep == want, "endpoint %r" % ep)

    # Brokers: the same list on both sides, each an advertised listener of
    # the kafka service.
    ebrokers = exp.get("brokers") or []
    ebrokers = set(ebrokers if isinstance(ebrokers, list) else csv_set(ebrokers))
    pbrokers = csv_set(v["kafka.brokers"])
    adv = set()
    for l in csv_set(kenv.get("KAFKA_ADVERTISED_LISTENERS")):
        m = re.match(r"\w+://([^:]*):(\d+)", l)
        if m:
            adv.add("%s:%s" % m.groups())
    check("compose: pmrag and the Collector use the same brokers (%s)" % sorted(pbrokers),
          pbrokers and pbrokers == ebrokers, "pmrag %s, Collector %s" % (pbrokers, ebrokers))
    check("compose: those brokers are the kafka service's advertised listeners",
          pbrokers and all(b.split(":")[0] == "kafka" and b in adv for b in pbrokers),
          "advertised %s" % sorted(adv))
    init = svcs.get("kafka-init") or {}
    itext = " ".join(map(str, init.get("command") or []))
    want = topics | {v["kafka.output_topic"]}
    check("compose: kafka-init creates %s" % sorted(want),
          all(re.search(r"\b%s\b" % re.escape(t), itext) for t in want), itext[:200])

    # pmrag: its config, state, graph; its ports.
    args = pm.get("command") or []
    pmounts = mounts(pm)
    conf = flag(args, "--config")
    src = [s for s, t, _ in pmounts if t == conf]
    check("compose: pmrag runs with ./pmrag.yaml (--config %s)" % conf,
          src and os.path.normpath(os.path.join(cdir, src[0])) == os.path.join(cdir, "pmrag.yaml"),
          "mounts %s" % pmounts)
    check("compose: pmrag's state.dir (%s) is a volume" % v["state.dir"],
          any(t == v["state.dir"] and not ro for s, t, ro in pmounts), "mounts %s" % pmounts)
    graph = flag(args, "--graph")
    gvol = [s for s, t, _ in pmounts if graph and graph.startswith(t.rstrip("/") + "/")]
    idx = svcs.get("pmrag-index") or {}
    iargs = idx.get("command") or []
    check("compose: pmrag-index writes the graph pmrag reads (%s), into the same volume" % graph,
          graph and flag(iargs, "-o") == graph and gvol
          and any(s == gvol[0] for s, t, _ in mounts(idx)),
          "pmrag --graph %s from %s; pmrag-index -o %s mounts %s"
          % (graph, gvol, flag(iargs, "-o"), mounts(idx)))
    exposed = container_ports(pm.get("ports")) | container_ports(pm.get("expose"))
    api, otlp = port_of(v["api.listen"]), port_of(v["otlp.listen"])
    grpc = port_of(v["otlp.grpc_listen"])
    check("compose: pmrag's API, OTLP/HTTP and OTLP/gRPC ports (%s, %s, %s) are published or "
          "exposed" % (api, otlp, grpc), {api, otlp, grpc} <= exposed,
          "ports/expose %s" % sorted(exposed))
    check("compose: pmrag has a stop grace period for the drain", "stop_grace_period" in pm)

    # Paths on the host side exist; images are built from the Dockerfile.
    for name, svc in svcs.items():
        for s, t, _ in mounts(svc):
            if s and (s.startswith(".") or s.startswith("/")):
                check("compose: %s mounts %s, which exists" % (name, s),
                      os.path.exists(os.path.join(cdir, s)))
        b = svc.get("build")
        if b:
            ctx = os.path.normpath(os.path.join(cdir, b.get("context", ".")))
            check("compose: %s builds %s" % (name, os.path.relpath(os.path.join(ctx, b.get("dockerfile", "Dockerfile")), TOP)),
                  os.path.isfile(os.path.join(ctx, b.get("dockerfile", "Dockerfile"))))


# ---------------------------------------------------------------------------
# Kubernetes
# ---------------------------------------------------------------------------
def labels_match(selector, labels):
    return bool(selector) and all(labels.get(k) == x for k, x in selector.items())


def check_k8s(objs, vals):
    by_kind = {}
    for o in objs:
        by_kind.setdefault(o.get("kind"), []).append(o)
    api_versions = {"ConfigMap": "v1", "StatefulSet": "apps/v1", "Service": "v1",
                    "PodDisruptionBudget": "policy/v1"}
    for kind, av in api_versions.items():
        check("k8s: a %s (%s)" % (kind, av),
              by_kind.get(kind) and all(o.get("apiVersion") == av for o in by_kind[kind]))
    if not by_kind.get("StatefulSet") or not by_kind.get("ConfigMap"):
        return
    cfgname = [n for n in vals if n.startswith("k8s/")]
    if not cfgname:
        return
    v = vals[cfgname[0]]
    api, otlp = port_of(v["api.listen"]), port_of(v["otlp.listen"])
    grpc = port_of(v["otlp.grpc_listen"])
    sts = by_kind["StatefulSet"][0]
    spec = sts.get("spec") or {}
    tmpl = spec.get("template") or {}
    plabels = (tmpl.get("metadata") or {}).get("labels") or {}
    pod = tmpl.get("spec") or {}
    c = (pod.get("containers") or [{}])[0]
    cports = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
    check("k8s: container ports equal the config's listen ports (OTLP/HTTP %s, OTLP/gRPC %s, "
          "API %s)" % (otlp, grpc, api), set(cports.values()) == {api, otlp, grpc}, cports)

    def resolve(port):
        return cports.get(port) if isinstance(port, str) else port

    for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/readyz"),
                        ("startupProbe", "/livez")):
        p = c.get(probe)
        if p is None and probe == "startupProbe":
            continue
        g = (p or {}).get("httpGet") or {}
        check("k8s: %s is GET %s on the API port" % (probe, path),
              g.get("path") == path and resolve(g.get("port")) == api, g)
    ann = (tmpl.get("metadata") or {}).get("annotations") or {}
    check("k8s: prometheus.io annotations scrape /metrics on the API port",
          ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/path") == "/metrics"
          and str(ann.get("prometheus.io/port")) == str(api), ann)
    res = c.get("resources") or {}
    check("k8s: resources: requests and a memory limit",
          (res.get("requests") or {}).get("memory") and (res.get("limits") or {}).get("memory"),
          res)
    psc, csc = pod.get("securityContext") or {}, c.get("securityContext") or {}
    check("k8s: runAsNonRoot, a non-zero runAsUser, readOnlyRootFilesystem, no escalation",
          psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) != 0
          and csc.get("readOnlyRootFilesystem") is True
          and csc.get("allowPrivilegeEscalation") is False, {"pod": psc, "container": csc})
    check("k8s: terminationGracePeriodSeconds leaves time for the drain (>= 60)",
          pod.get("terminationGracePeriodSeconds", 30) >= 60,
          pod.get("terminationGracePeriodSeconds"))

    # Volumes: the state claim at state.dir, the ConfigMap where --config is.
    vm = {m.get("name"): m.get("mountPath") for m in c.get("volumeMounts") or []}
    claims = [t["metadata"]["name"] for t in spec.get("volumeClaimTemplates") or []]
    check("k8s: a volumeClaimTemplate mounted at state.dir (%s)" % v["state.dir"],
          any(vm.get(n) == v["state.dir"] for n in claims), "claims %s mounts %s" % (claims, vm))
    conf = flag(c.get("args") or [], "--config") or ""
    cms = {o["metadata"]["name"]: o for o in by_kind["ConfigMap"]}
    src = None
    for vol in pod.get("volumes") or []:
        if vm.get(vol.get("name")) == os.path.dirname(conf) and vol.get("configMap"):
            src = vol["configMap"].get("name")
    check("k8s: --config %s is the ConfigMap's pmrag.yaml, mounted" % conf,
          src in cms and os.path.basename(conf) in (cms[src].get("data") or {}),
          "volume from ConfigMap %r; mounts %s" % (src, vm))

    # Services and the PDB select the pods; ports resolve.
    svcs = by_kind.get("Service", [])
    headless = [s for s in svcs if (s.get("spec") or {}).get("clusterIP") == "None"]
    check("k8s: serviceName is a headless Service",
          any(s["metadata"]["name"] == spec.get("serviceName") for s in headless),
          spec.get("serviceName"))
    check("k8s: the StatefulSet selector matches its pods",
          labels_match((spec.get("selector") or {}).get("matchLabels"), plabels))
    for s in svcs:
        ss = s.get("spec") or {}
        tports = [resolve(p.get("targetPort", p.get("port"))) for p in ss.get("ports") or []]
        check("k8s: Service %s selects the pods, its target ports exist" % s["metadata"]["name"],
              labels_match(ss.get("selector"), plabels)
              and all(t in (api, otlp, grpc) for t in tports), "targets %s" % tports)
    for what, port in (("OTLP/HTTP", otlp), ("OTLP/gRPC", grpc)):
        check("k8s: a Service forwards %s to its port (%s)" % (what, port),
              any(resolve(p.get("targetPort")) == port for s in svcs
                  for p in (s.get("spec") or {}).get("ports") or []
                  if (s.get("spec") or {}).get("clusterIP") != "None"))
    for pdb in by_kind.get("PodDisruptionBudget", []):
        check("k8s: PodDisruptionBudget %s selects the pods" % pdb["metadata"]["name"],
              labels_match(((pdb.get("spec") or {}).get("selector") or {}).get("matchLabels"),
                           plabels))

    if shutil.which("kubectl"):
        r = run(["kubectl", "kustomize", os.path.join(DEPLOY, "k8s")], timeout=60)
        check("k8s: kubectl kustomize builds deploy/k8s", r.returncode == 0, r.stderr)
    else:
        skip("k8s: kubectl kustomize", "no kubectl here")


# ---------------------------------------------------------------------------
# systemd
# ---------------------------------------------------------------------------
def unit_file(path):
    sect, out = None, {}
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s[0] in "#;":
                continue
            if s.startswith("["):
                sect = s.strip("[]")
                continue
            k, _, x = s.partition("=")
            out.setdefault((sect, k.strip()), []).append(x.strip())
    return out


def check_systemd(vals):
    path = os.path.join(DEPLOY, "systemd", "pmrag.service")
    if not check("systemd: pmrag.service exists", os.path.isfile(path)):
        return
    u = unit_file(path)

    def get(k):
        return u.get(("Service", k), [])

    want = {"DynamicUser": "yes", "StateDirectory": "pmrag", "ProtectSystem": "strict",
            "ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes",
            "CapabilityBoundingSet": "", "Restart": "on-failure", "KillSignal": "SIGTERM"}
    for k, x in want.items():
        check("systemd: %s=%s" % (k, x), get(k) and get(k)[-1] == x, get(k))
    fams = set(" ".join(get("RestrictAddressFamilies")).split())
    check("systemd: RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
          fams == {"AF_INET", "AF_INET6", "AF_UNIX"}, fams)
    check("systemd: SystemCallFilter=@system-service",
          any(x.split()[0] == "@system-service" for x in get("SystemCallFilter")),
          get("SystemCallFilter"))
    check("systemd: LimitNOFILE and TimeoutStopSec are set",
          get("LimitNOFILE") and get("TimeoutStopSec"))
    check("systemd: ExecReload sends SIGHUP to the main process",
          any(re.search(r"kill -HUP \$MAINPID", x) for x in get("ExecReload")), get("ExecReload"))
    start = shlex.split(get("ExecStart")[-1]) if get("ExecStart") else []
    check("systemd: ExecStart is pmrag serve",
          len(start) > 1 and os.path.basename(start[0]) == "pmrag" and start[1] == "serve", start)
    conf = flag(start, "--config") or ""
    creds = dict(x.split(":", 1) for x in get("LoadCredential"))
    if conf.startswith("%d/"):
        check("systemd: --config %s is LoadCredential=%s:/etc/pmrag/pmrag.yaml"
              % (conf, conf[3:]), creds.get(conf[3:]) == "/etc/pmrag/pmrag.yaml", creds)
    else:
        check("systemd: --config is /etc/pmrag/pmrag.yaml", conf == "/etc/pmrag/pmrag.yaml", conf)
    v = vals.get("systemd/pmrag.yaml")
    if v and get("StateDirectory"):
        check("systemd: state.dir is the StateDirectory (/var/lib/%s)" % get("StateDirectory")[-1],
              v["state.dir"] == "/var/lib/" + get("StateDirectory")[-1], v["state.dir"])

    sa = shutil.which("systemd-analyze")
    if not sa:
        skip("systemd: systemd-analyze verify", "no systemd-analyze here")
        return
    # verify wants the binary to exist: point ExecStart at the one tested.
    tmp = os.path.join(WORK, "pmrag.service")
    with open(path) as f, open(tmp, "w") as g:
        g.write(f.read().replace("/usr/bin/pmrag", os.path.abspath(PMRAG)))
    r = run([sa, "verify", "--man=no", tmp], timeout=60)
    said = (r.stdout + r.stderr).replace(tmp, rel(path))
    ours = [l for l in said.splitlines() if "pmrag" in l]
    check("systemd: systemd-analyze verify pmrag.service", r.returncode == 0 and not ours, said)
    r = run([sa, "security", "--offline=true", tmp], timeout=60)
    m = re.search(r"exposure level for pmrag.service: ([0-9.]+)", r.stdout + r.stderr)
    if m:
        check("systemd: systemd-analyze security exposure %s <= 2.0" % m.group(1),
              float(m.group(1)) <= 2.0)
    else:
        skip("systemd: systemd-analyze security", "no --offline in this systemd")


# ---------------------------------------------------------------------------
# Live
# ---------------------------------------------------------------------------
def wait_file(path, proc, secs):
    end = time.time() + secs
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return json.load(f)
        if proc.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return None, str(e)


def metric(api, name):
    st, body = http_status("http://%s/metrics" % api)
    total = 0.0
    for line in body.splitlines() if st == 200 else []:
        if line.startswith(name):
            total += float(line.rsplit(" ", 1)[1])
    return total


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def h2_settings(listen):
    """Opens a plain-text HTTP/2 connection (as a gRPC client without TLS
    does: the preface, then an empty SETTINGS frame) and reads the first
    frame back: True when it is the server's SETTINGS, else what was wrong."""
    if not listen:
        return "no otlp_grpc in the ready file"
    try:
        with socket.create_connection((host_of(listen), port_of(listen)), timeout=5) as c:
            c.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
            head = b""
            while len(head) < 9:
                got = c.recv(9 - len(head))
                if not got:
                    return "closed after %d bytes" % len(head)
                head += got
    except OSError as e:
        return str(e)
    # A frame header: 24-bit length, type (4: SETTINGS), flags, stream 0.
    if head[3] == 4 and head[4] & 1 == 0 and head[5:9] == bytes(4):
        return True
    return "first frame: type %d flags %d stream %s" % (head[3], head[4], head[5:9].hex())


def check_live(vals, live):
    v = vals.get("compose/pmrag.yaml")
    if not v:
        skip("live", "deploy/compose/pmrag.yaml did not load")
        return
    repo = os.path.join(WORK, "repo")
    os.makedirs(repo, exist_ok=True)
    with open(os.path.join(repo, "shop.py"), "w") as f:
        f.write('import logging\n\nlog = logging.getLogger(__name__)\n\n\n'
                'def login(user):\n    log.info("user %s logged in", user)\n\n\n'
                'def browse(user):\n    log.info("user %s browsing catalog", user)\n')
    graph = os.path.join(WORK, "app.graph")
    r = run([PMRAG, "index", repo, "-o", graph, "-q"])
    if not check("live: pmrag index", r.returncode == 0, r.stderr):
        return
    topics = sorted(csv_set(v["kafka.input_topics"]) | {v["kafka.output_topic"]})
    procs = []
    try:
        kready = os.path.join(WORK, "kafka.json")
        margs = [PMRAG, "kafka-mock", "--ready-file", kready]
        for t in topics:
            margs += ["--topic", t]
        km = subprocess.Popen(margs, stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(WORK, "kafka.err"), "w"))
        procs.append(km)
        kr = wait_file(kready, km, 30)
        if not check("live: pmrag kafka-mock is up", kr,
                     open(os.path.join(WORK, "kafka.err")).read()):
            return
        brokers = kr["kafka_bootstrap"]
        ready = os.path.join(WORK, "serve.json")
        serr = os.path.join(WORK, "serve.err")
        sv = subprocess.Popen(
            [PMRAG, "serve", "--config", os.path.join(DEPLOY, "compose", "pmrag.yaml"),
             "--set", "kafka.brokers=" + brokers,
             "--set", "state.dir=" + os.path.join(WORK, "state"),
             "--set", "otlp.listen=127.0.0.1:0", "--set", "api.listen=127.0.0.1:0",
             "--set", "otlp.grpc_listen=127.0.0.1:0",
             "--graph", graph, "--ready-file", ready],
            stdout=subprocess.DEVNULL, stderr=open(serr, "w"))
        procs.append(sv)
        sr = wait_file(ready, sv, 60)
        if not check("live: pmrag serve with deploy/compose/pmrag.yaml is ready", sr,
                     open(serr).read()):
            return
        api, otlp = sr["api"], sr["otlp_http"]
        st, _ = http_status("http://%s/livez" % api)
        check("live: GET /livez is 200", st == 200, st)
        st, body = http_status("http://%s/readyz" % api)
        check("live: GET /readyz is 200 (partitions assigned)", st == 200, "%s %s" % (st, body))
        if "healthcheck" in live:
            hcmd, port = live["healthcheck"]
            apiport = api.rsplit(":", 1)[1]
            cmd = [a.replace("/%d" % port, "/" + apiport) for a in hcmd]
            r = run(cmd, timeout=10)
            check("live: the Dockerfile's HEALTHCHECK passes against pmrag", r.returncode == 0,
                  r.stderr)
            dead = [a.replace("/%d" % port, "/%d" % free_port()) for a in hcmd]
            r = run(dead, timeout=10)
            check("live: ...and fails with nothing listening", r.returncode != 0)
        # OTLP/HTTP (JSON logs) and Kafka (an OTLP protobuf span request).
        body = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
            {"timeUnixNano": "1700000000000000000", "body": {"stringValue": "user 7 logged in"},
             "attributes": [{"key": "case.id", "value": {"stringValue": "live-1"}}]},
            {"timeUnixNano": "1700000001000000000",
             "body": {"stringValue": "user 7 browsing catalog"},
             "attributes": [{"key": "case.id", "value": {"stringValue": "live-1"}}]}]}]}]}
        req = urllib.request.Request("http://%s/v1/logs" % otlp, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                st = resp.status
        except (urllib.error.HTTPError, OSError) as e:
            st = getattr(e, "code", str(e))
        check("live: OTLP/HTTP logs are accepted (200)", st == 200, st)
        got = h2_settings(sr.get("otlp_grpc", ""))
        check("live: the OTLP/gRPC listener answers an HTTP/2 preface with SETTINGS",
              got is True, got)
        if shutil.which("kcat"):
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import serve_tool
            msg = serve_tool.trace_request(
                "live-2", ["user 8 logged in", "user 8 browsing catalog"], 1700000000000000000)
            spans = sorted(csv_set(v["kafka.input_topics"]) - csv_set(v["kafka.logs_topics"]))[0]
            # From a file: kcat sends a file as one message (stdin would be
            # split at newlines).
            mfile = os.path.join(WORK, "spans.bin")
            with open(mfile, "wb") as f:
                f.write(msg)
            r = subprocess.run(["kcat", "-b", brokers, "-P", "-t", spans, "-k", "live-2", mfile],
                               capture_output=True, timeout=30)
            check("live: kcat produces an OTLP protobuf span request to %s" % spans,
                  r.returncode == 0, r.stderr.decode())
            want = 4
        else:
            skip("live: Kafka input", "no kcat here")
            want = 2
        end = time.time() + 20
        while time.time() < end and metric(api, "pmrag_predictions_out_total") < want:
            time.sleep(0.1)
        got = metric(api, "pmrag_predictions_out_total")
        check("live: %d events in, %d predictions out" % (want, got), got == want,
              open(serr).read()[-2000:])
        sv.send_signal(signal.SIGTERM)
        try:
            rc = sv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = "still running after 30 s"
        check("live: SIGTERM drains and exits 0", rc == 0,
              "exit %s\n%s" % (rc, open(serr).read()[-1500:]))
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def main():
    objs = k8s_objects()
    vals = check_configs(objs)
    live = {}
    check_dockerfile(vals, live)
    dign = os.path.join(TOP, ".dockerignore")
    text = open(dign).read().split() if os.path.isfile(dign) else []
    check("docker: .dockerignore keeps .git, build trees and .deps out",
          ".git" in text and any(t.lstrip("/").startswith("build") for t in text)
          and any(t.lstrip("/") == ".deps" for t in text), text)
    check_compose(vals)
    check_k8s(objs, vals)
    check_systemd(vals)
    check_live(vals, live)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all deploy checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
