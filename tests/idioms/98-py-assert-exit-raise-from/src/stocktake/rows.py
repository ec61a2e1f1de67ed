import json


class StocktakeError(Exception):
    """A file that cannot be imported."""


def check_row(n, row):
    assert row.get("sku"), f"row {n} has no SKU"
    assert row["qty"] >= 0, f"row {n}: negative count {row['qty']} for {row['sku']}"
    return row


def check_name(name):
    assert name.endswith(".json"), f"{name}: only JSON exports are supported"


def parse(name, text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise StocktakeError(f"{name} is not valid JSON") from e


def load_counts(name, text):
    data = parse(name, text)
    try:
        return data["counts"]
    except KeyError as e:
        raise StocktakeError(f"{name} has no counts section") from e
