"""Answers GET / with the version of psycopg2 it imported: a C extension built against libpq from source."""
import os
from http.server import BaseHTTPRequestHandler, HTTPServer

import psycopg2


class Version(BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"psycopg2 {psycopg2.__version__.split()[0]}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


HTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8000"))), Version).serve_forever()
