import recorder
recorder.setup("src", skip=["reject"])
from payments.charge import charge, refund
for c, (cu, cd, am) in enumerate([("c1", "41111", 20.0), ("c2", "55550", 30.0), ("c3", "42424", 900.0), ("c4", "37373", 7.5)]):
    recorder.case(c)
    charge(cu, cd, am, "EUR")
    if c == 3:
        refund(cu, am, "EUR")
recorder.write()
