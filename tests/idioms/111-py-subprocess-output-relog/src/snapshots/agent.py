"""The snapshot agent, run by the scheduler as a child process:
python3 agent.py VOLUME FILES MB [--verify]"""
import sys

QUOTA_MB = 500


def main(argv):
    volume, files, mb = argv[0], int(argv[1]), float(argv[2])
    print(f"snapshot of {volume} started")
    if mb > QUOTA_MB:
        sys.exit(f"{volume}: {mb:.1f} MB exceed the {QUOTA_MB} MB quota")
    if files == 0:
        print(f"warning: {volume} is empty", file=sys.stderr)
    print(f"copied {files} files ({mb:.1f} MB)")
    if "--verify" in argv:
        print("checksums verified")


if __name__ == "__main__":
    main(sys.argv[1:])
