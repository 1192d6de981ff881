"""A FastAPI service answering GET / (uvicorn serves it)."""
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

app = FastAPI()


@app.get("/", response_class=PlainTextResponse)
def hello() -> str:
    return "hello from fastapi\n"
