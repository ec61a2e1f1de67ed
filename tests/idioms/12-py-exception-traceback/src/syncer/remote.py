def fetch_manifest(url):
    if url.endswith(".bad"):
        raise ValueError("malformed manifest at " + url)
    if url.startswith("ftp"):
        raise KeyError(url)
    return {"files": 3}
