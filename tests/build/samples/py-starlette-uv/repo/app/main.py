"""A Starlette service answering GET / (uvicorn serves it)."""
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route


async def hello(request):
    return PlainTextResponse("hello from starlette\n")


app = Starlette(routes=[Route("/", hello)])
