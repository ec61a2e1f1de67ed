import recorder
recorder.setup("src")
from pay.charge import charge, verify, refund
for c, (cd, am) in enumerate([("1234", 900.0), ("5678", 5.0), ("9999", 12.0)]):
    recorder.case(c)
    verify(cd)
    charge(cd, am)
    refund(am)
recorder.write()
