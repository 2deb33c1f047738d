"""A scripted upstream that misbehaves on purpose, one way per path prefix:
/nonsse   answers a streaming request with a JSON body
/malformed sends an SSE event whose data is not JSON
/badbytes sends an SSE event whose data is not JSON, nor UTF-8
/cut      sends a few tokens, then closes the connection mid-body
/ok       streams properly (for transport tests such as TLS)
/ratelimit answers 429 with Retry-After: 0.3 to every other request, streams properly otherwise
/stall    reads the request and never answers
/drip     streams one token every 0.2 s, 20 in all
/embed    answers an embeddings request with JSON
/short    answers with a JSON body cut short of its Content-Length, then closes the connection
/lf       answers with lines that end in LF alone, keeping the connection open
/binary   answers 502 with an HTML page that is not UTF-8
/flood    streams tokens as fast as it can until the connection breaks, then notes ("flood ended", t)
/endless  streams a token, then an event of 128 MiB that has no end until the body's
/http10   answers as an HTTP/1.0 server does: a stream with neither length nor chunks, ended by
          closing the connection
/strict   refuses a request naming ignore_eos with 400, as OpenAI's API does; streams properly otherwise
/echo     streams properly, keeping each request it was sent (method, path, headers, body) in requests
/tools    answers with a tool call alone: streamed (its name, then its arguments in pieces, with usage),
          or whole when the request does not ask for a stream
/tokens   counts prompts as a tokenizer with a chat template would (a token per three letters of a
          word, 4 a message, 11 a request; for a model whose name ends in "-wide", a token per two
          letters and 30 a request) and answers with that usage, streamed or whole
/toolarge answers 413 as soon as it has read the request's head and closes, the body unread (the
          kernel then resets the connection under the sender's write)
Every prefix also serves <prefix>/v1/models so the benchmark's preflight passes, and answers
<prefix>/v1/responses with 404, as a server without the Responses API does, and (but /embed and
/binary) <prefix>/v1/embeddings with 404 too."""
import http.server
import json
import socket
import ssl
import threading
import time

CHUNK = 'data: {"choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}\n\n'


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/echo/"):
            self.server.requests.append(("GET", self.path, self.headers.items(), None))
        self.send_json(200, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode())

    def do_POST(self):
        mode = self.path.split("/")[1]
        self.server.arrivals.append((mode, time.monotonic()))
        if mode == "toolarge":
            self.send_json(413, b'{"error":{"message":"the body is larger than this server takes",'
                                b'"type":"invalid_request_error","code":"body_too_large"}}', {"Connection": "close"})
            self.close_connection = True
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if mode == "echo":
            self.server.requests.append(("POST", self.path, self.headers.items(), json.loads(body)))
        if self.path.endswith("/responses"):
            self.send_json(404, b'{"detail":"Not Found"}')
            return
        if self.path.endswith("/embeddings") and mode not in ("embed", "binary"):
            self.send_json(404, b'{"detail":"Not Found"}')
            return
        if mode == "strict" and b'"ignore_eos"' in body:
            self.send_json(400, b'{"error":{"message":"Unrecognized request argument supplied: ignore_eos",'
                                b'"type":"invalid_request_error","param":null,"code":null}}')
            return
        if mode in ("strict", "echo"):
            mode = "ok"
        if mode == "stall":
            time.sleep(5)
            self.close_connection = True
            return
        if mode == "ratelimit" and len([m for m, _ in self.server.arrivals if m == mode]) % 2 == 1:
            self.send_json(429, b'{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limited"}}',
                           {"Retry-After": "0.3"})
            return
        if mode == "ratelimit":
            mode = "ok"
        if mode == "embed":
            self.send_json(200, b'{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],'
                                b'"model":"fake","usage":{"prompt_tokens":3,"total_tokens":3}}')
            return
        if mode == "short":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"choices":[{"message":')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if mode == "lf":
            self.wfile.write(b'HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: 2\n\n{}')
            return
        if mode == "binary":
            body = b"\xff\xfe<html>bad gateway</html>"
            self.send_response(502)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if mode == "http10":
            events = [CHUNK, CHUNK, "data: [DONE]\n\n"]
            self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            for event in events:
                self.wfile.write(event.encode())
                self.wfile.flush()
            self.close_connection = True
            return
        if mode == "tools" and not json.loads(body or b"{}").get("stream"):
            self.send_json(200, json.dumps({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
                    "name": "get_weather", "arguments": '{"city": "Paris"}'}}]}}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 12}}).encode())
            return
        if mode == "tokens":
            request = json.loads(body)
            texts = [m["content"] for m in request.get("messages", [])] or [request.get("prompt", "")]
            wide = str(request.get("model", "")).endswith("-wide")
            letters, framing = (2, 30) if wide else (3, 11)
            prompt = framing + sum(4 + sum((len(word) + letters - 1) // letters for word in text.split())
                                   for text in texts)
            tokens = request.get("max_tokens", 1)
            usage = {"prompt_tokens": prompt, "completion_tokens": tokens}
            if not request.get("stream"):
                self.send_json(200, json.dumps({"choices": [{"index": 0, "finish_reason": "length", "message": {
                    "role": "assistant", "content": " tok" * tokens}}], "usage": usage}).encode())
                return
            mode = "ok"
        else:
            usage = None
        if mode == "nonsse":
            self.send_json(200, b'{"choices":[{"message":{"content":"whole"}}]}')
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [CHUNK, CHUNK]
        if mode == "tools":
            call = '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,%s}]},"finish_reason":null}]}'
            events = ["data: " + call % '"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}'
                      + "\n\n"]
            events += ["data: " + call % ('"function":{"arguments":%s}' % json.dumps(piece)) + "\n\n"
                       for piece in ('{"city":', ' "Paris"', "}")]
            events.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n')
            events.append('data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12}}\n\n')
            events.append("data: [DONE]\n\n")
        if mode == "malformed":
            events.append("data: {not json at all\n\n")
        if mode == "badbytes":
            events.append("data: {\udcff\udcfe\n\n")  # the bytes 0xff 0xfe, through surrogateescape
        if usage is not None:
            events = [CHUNK] * usage["completion_tokens"]
            events.append('data: {"choices":[],"usage":%s}\n\n' % json.dumps(usage))
        if mode in ("malformed", "ok"):
            events.append("data: [DONE]\n\n")
        for event in events:
            data = event.encode("utf-8", "surrogateescape")
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        if mode == "drip":
            for _ in range(20):
                time.sleep(0.2)
                data = CHUNK.encode()
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                except OSError:
                    return
        if mode == "flood":
            data = CHUNK.encode() * 400
            try:
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            except OSError:
                self.server.arrivals.append(("flood ended", time.monotonic()))
                return
        if mode == "endless":
            try:
                self.wfile.write(b"6\r\ndata: \r\n")
                line = b"x" * (1 << 20)
                for _ in range(128):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            except OSError:
                return  # the gateway gave up on it
        if mode == "cut":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")


class FakeUpstream:
    """Plain HTTP, or HTTPS when given a certificate and key (PEM files)."""

    def __init__(self, cert=None, key=None):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.arrivals = []  # (mode, time.monotonic()) per POST
        self.server.requests = []  # /echo's: (method, path, headers, body)
        scheme = "http"
        if cert:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = "%s://127.0.0.1:%d" % (scheme, self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
