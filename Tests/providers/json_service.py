"""What the test services (http_provider.py, ../clients/client_service.py) share: a JSON request
handler that answers GET /health, writes JSON answers and logs nothing. The starter service that
`ringside init` writes and examples/python-service stay whole on purpose: teams copy them."""
import http.server
import json


class JSONHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def request_json(self):
        return json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")

    def do_GET(self):
        self.answer(200 if self.path == "/health" else 404, {"ok": self.path == "/health"})
