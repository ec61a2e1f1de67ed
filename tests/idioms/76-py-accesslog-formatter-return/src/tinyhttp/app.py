from .handler import Handler, Response


def index(req):
    return Response(200, b"<h1>shop</h1>", elapsed_ms=12)


def cart(req):
    if req.agent.startswith("bot"):
        raise PermissionError("bots may not open carts")
    return Response(200, b'{"items": []}', elapsed_ms=40)


def report(req):
    return Response(200, b"x" * 2048, elapsed_ms=1800)


def make_handler():
    return Handler({"/": index, "/cart": cart, "/reports/daily": report})
