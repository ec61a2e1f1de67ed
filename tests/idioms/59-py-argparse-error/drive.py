import recorder
recorder.setup("src")
from stockctl.cli import main
# argparse prints its usage and errors on stderr and exits: each case runs until the exit
for c, argv in enumerate([["A100", "--qty", "3"], ["B200", "--qty", "-2"], ["C-300"], ["D400", "--qty", "250", "--warehouse", "south"], ["E500", "--warehouse", "east"], ["F600", "--qty", "ten"]]):
    recorder.case(c)
    try:
        main(argv)
    except SystemExit:
        pass
recorder.write()
