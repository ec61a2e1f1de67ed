from .errors import CustomsError, WeightError

EMBARGOED = {"ivory", "mercury"}
MAX_KG = 28000


def check_line(n, line):
    problems = []
    code, goods, kg = line
    if kg <= 0:
        problems.append(WeightError(f"{code}: weight {kg} kg is not positive"))
    elif kg > MAX_KG:
        problems.append(WeightError(f"{code}: {kg} kg over the {MAX_KG} kg limit"))
    if goods in EMBARGOED:
        e = CustomsError(f"{code}: {goods} may not be shipped")
        e.add_note("see embargo list 2026/4")
        problems.append(e)
    if not code.isalnum():
        problems.append(CustomsError(f"bad container code {code!r}"))
    for p in problems:
        p.add_note(f"manifest line {n}")
    return problems


def validate(manifest_id, lines):
    problems = []
    for n, line in enumerate(lines, 1):
        problems.extend(check_line(n, line))
    if problems:
        raise ExceptionGroup(f"manifest {manifest_id} has {len(problems)} problem(s)", problems)
