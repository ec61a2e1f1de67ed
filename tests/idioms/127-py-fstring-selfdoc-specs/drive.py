import recorder
recorder.setup("src")
from chessclock.arbiter import Arbiter, Board
for c, (rnd, pairs, games) in enumerate([
    (1, [("Ann", "Bob")], {1: [12.5, 30.0, 8.25]}),
    (2, [("Cy", "Dee"), ("Eve", "Fay")], {1: [100.0, 200.0, 150.0], 2: [290.0, 10.0, 20.0]}),
    (3, [("Gus", "Hal"), ("Ivy", "Jo"), ("Kim", "Lu")], {2: [5.0, 299.0, 4.0, 25.5]}),
    (4, [("Mo", "Ned")], {1: [310.0]}),
]):
    recorder.case(c)
    a = Arbiter(rnd, [Board(i + 1, w, b) for i, (w, b) in enumerate(pairs)], precision=c % 3)
    for n, times in games.items():
        a.play(n, times)
    a.report()
recorder.write()
