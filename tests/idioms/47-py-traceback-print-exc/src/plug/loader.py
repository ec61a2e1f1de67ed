import sys
import traceback


def _import(name):
    if name.startswith("broken"):
        raise ImportError(f"No module named {name!r}")
    return name


def load_plugins(names):
    loaded = []
    for n in names:
        try:
            loaded.append(_import(n))
        except ImportError:
            print(f"Failed to load plugin {n}:", file=sys.stderr)
            traceback.print_exc()
    print("Loaded %d plugins" % len(loaded))
    sys.stdout.write("plugins: %s\n" % ", ".join(loaded))
