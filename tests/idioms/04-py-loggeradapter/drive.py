import recorder
recorder.setup("src")
from rpc.conn import Connection
for c, (peer, n) in enumerate([("10.0.0.1", 100), ("10.0.0.2", 0), ("h3", 5)]):
    recorder.case(c)
    k = Connection(40 + c, peer)
    k.open(); k.handshake(3); k.recv(n); k.close()
recorder.write()
