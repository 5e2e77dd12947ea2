#!/usr/bin/env python3
"""A Reversi Arena push bot: an HTTP server the arena calls on each of its turns.

    python3 push_bot.py --port 8000 --secret whsec_...

The arena sends `POST <your url>` with the game state (`BotState`) as JSON, signed with the Standard
Webhooks scheme; this server checks the signature and answers 200 with `{"action": "<square>"}`
(plus `"colour"` in the solo game, whose state says `"game": "solo"`). A call that does not verify
gets 401. That one call is the whole protocol: matches, solo games and `POST /v1/bots/me/check` all
send it, there is no separate ping, and the end of a match is not announced (the arena passes for you
when you have no move; it never asks). Python 3.9+, standard library only. Your strategy goes in
strategy.py.
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import signal
import socket
import sys
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Mapping, Optional

sys.dont_write_bytecode = True  # no __pycache__ beside your files for strategy.py's sake
from strategy import choose_move  # noqa: E402  (after the line above, on purpose)

# Standard Webhooks libraries refuse calls signed more than five minutes from the local clock.
TOLERANCE_SECONDS = 5 * 60
# A BotState is a few kilobytes; anything much bigger is not the arena.
MAX_BODY_BYTES = 1024 * 1024


def decode_secret(secret: str) -> bytes:
    """The HMAC key of a `whsec_...` secret: the base64 after the prefix. Raises ValueError."""
    if not secret.startswith("whsec_"):
        raise ValueError("the secret must start with whsec_ (the webhookSecret the arena gave your bot)")
    try:
        key = base64.b64decode(secret[len("whsec_"):], validate=True)
    except binascii.Error as error:
        raise ValueError(f"the secret after whsec_ is not base64 ({error})") from None
    if not key:
        raise ValueError("the secret after whsec_ is empty")
    return key


def verify(key: bytes, headers: Mapping[str, str], body: bytes, now: Optional[float] = None) -> Optional[str]:
    """Checks a call's Standard Webhooks signature. Returns None when it verifies, else why not.

    The signed content is `<webhook-id>.<webhook-timestamp>.<body>` with the body byte for byte;
    `webhook-signature` holds one or more space-separated `v1,<base64 HMAC-SHA256>`.
    """
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        return "missing webhook-id, webhook-timestamp or webhook-signature"
    if not (timestamp.isascii() and timestamp.isdigit()):
        return "webhook-timestamp is not a number"
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        return "webhook-timestamp is too far from this machine's clock (check its time)"
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    for candidate in signatures.split():
        version, _, value = candidate.partition(",")
        # compare_digest takes as long whatever the bytes: no timing hint at the right signature.
        if version == "v1" and hmac.compare_digest(expected, value.encode()):
            return None
    return "the signature does not verify (is --secret this bot's webhookSecret?)"


class BotHandler(BaseHTTPRequestHandler):
    """Answers the arena's POSTs; every other method gets 405."""

    protocol_version = "HTTP/1.1"  # keep-alive: the arena reuses its connection between turns
    # The headers and the body go out in two writes: with Nagle's algorithm on, the body would wait
    # for the arena's delayed ACK, some 40 ms of every move's time.
    disable_nagle_algorithm = True
    timeout = 60  # an idle kept-alive connection is dropped after this long
    key = b""  # set by main()

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length")
        if length is None or not (length.isascii() and length.isdigit()):
            return self.reply(411, {"error": "send a Content-Length"}, close=True)
        if int(length) > MAX_BODY_BYTES:
            return self.reply(413, {"error": "body too large"}, close=True)
        body = self.rfile.read(int(length))
        headers = {name.lower(): value for name, value in self.headers.items()}
        problem = verify(self.key, headers, body)
        if problem is not None:
            self.log_message("refused a call: %s", problem)
            return self.reply(401, {"error": problem})
        try:
            state = json.loads(body)
        except ValueError:
            return self.reply(400, {"error": "the body is not JSON"})
        if not isinstance(state, dict) or not isinstance(state.get("legalMoves"), list):
            return self.reply(400, {"error": "not a BotState"})
        if not state["legalMoves"]:
            return self.reply(400, {"error": "no legal move in this state"})
        try:
            action = choose_move(state)
        except Exception:  # a bug in the strategy: 500 (the arena records a bot-error), and keep serving
            self.log_error("the strategy failed:\n%s", traceback.format_exc())
            return self.reply(500, {"error": "the bot failed to choose a move"})
        self.log_message("%s ply %s: %s", state.get("matchId"), state.get("ply"), json.dumps(action))
        self.reply(200, action)

    def not_allowed(self) -> None:
        self.reply(405, {"error": "the arena POSTs the state here"}, extra={"Allow": "POST"})

    do_GET = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = not_allowed

    def do_HEAD(self) -> None:
        self.send_response(405)
        self.send_header("Allow", "POST")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def reply(
        self, status: int, body: Dict[str, Any], close: bool = False, extra: Optional[Dict[str, str]] = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        if close:  # the body was not read (or the request is broken): the connection cannot be reused
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        pass  # do_POST logs each move; errors are logged where they happen


def stop(signum: int, frame: Any) -> None:
    """Ctrl-C, and SIGTERM (docker stop, kill) alike, even where a shell started the bot ignoring SIGINT."""
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description="A Reversi Arena push bot (Standard Webhooks verified).")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (0: any free one)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every one)")
    parser.add_argument(
        "--secret",
        default=os.environ.get("WEBHOOK_SECRET"),
        help="the bot's webhookSecret (whsec_...); or set WEBHOOK_SECRET",
    )
    args = parser.parse_args()
    if not args.secret:
        parser.error("--secret whsec_... is required: the webhookSecret the arena showed at registration")
    try:
        BotHandler.key = decode_secret(args.secret)
    except ValueError as error:
        parser.error(str(error))

    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        daemon_threads = True

    try:
        server = Server((args.host, args.port), BotHandler)
    except OSError as error:
        print(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        return 1
    host, port = server.server_address[0], server.server_address[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"push bot listening at http://{shown}:{port}/ (verifying signatures)", flush=True)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
