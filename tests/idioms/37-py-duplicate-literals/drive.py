import recorder
recorder.setup("src")
from etl.steps import pipeline
for c in range(3):
    recorder.case(c)
    pipeline("s3://in/%d" % c, 10 * c, "pg://out/%d" % c)
recorder.write()
