#!/usr/bin/env python3
"""A Reversi Arena pull bot: follows its event stream and posts a move on each of its turns.

    python3 pull_bot.py --arena http://127.0.0.1:3000 --token rvb_...

It opens `GET /v1/bots/me/events` (Server-Sent Events) with the bot's token and, for each `yourTurn`
event (whose data is the match state), posts `{"action": ..., "ply": ...}` to
`POST /v1/matches/<id>/actions` (plus `"colour"` in the solo game). It plays every match it is given,
Reversi or solo, until stopped (Ctrl-C); while it listens, matchmaking may pair the bot for rated
games. A dropped stream is reopened with `Last-Event-ID`, so no turn is missed. The arena never asks
for a pass. Python 3.9+, standard library only. Your strategy goes in strategy.py.
"""

import argparse
import http.client
import json
import os
import random
import signal
import sys
import time
import traceback
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, Optional, Set, Tuple

sys.dont_write_bytecode = True  # no __pycache__ beside your files for strategy.py's sake
from strategy import choose_move, first_legal  # noqa: E402  (after the line above, on purpose)

# The arena sends a keep-alive comment after 15 s of silence: a minute without a byte is a dead stream.
READ_TIMEOUT_SECONDS = 60
REQUEST_TIMEOUT_SECONDS = 10
BACKOFF_MAX_SECONDS = 30
# A stream open this long (or that brought an event) worked: the backoff starts over.
HEALTHY_STREAM_SECONDS = 60
# How often one action is posted again after a network error, a 429 or a 5xx, before the stream is
# reopened (which delivers the turn again if the arena still waits for it).
POST_ATTEMPTS = 3


class TokenRefused(Exception):
    """The arena refused the token (401): no retry will help."""


class StreamDropped(Exception):
    """The stream or a post failed in a way a reconnect may fix."""


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", flush=True)


class Arena:
    """The few API calls a pull bot makes, with its token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def request(
        self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None
    ) -> urllib.request.Request:
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        return urllib.request.Request(self.base + path, data=data, method=method, headers=all_headers)

    def call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Tuple[int, Any, Any]:
        """Status, headers and parsed JSON body (None if not JSON) of one call; 4xx and 5xx included."""
        try:
            request = self.request(method, path, body)
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as res:
                return res.status, res.headers, parse_json(res.read())
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers, parse_json(error.read())

    def me(self) -> Dict[str, Any]:
        status, _, body = self.call("GET", "/v1/bots/me")
        if status in (401, 403):
            raise TokenRefused(problem_text(status, body))
        if status != 200:
            raise StreamDropped(f"GET /v1/bots/me answered {problem_text(status, body)}")
        return body

    def events(self, last_event_id: Optional[str]) -> Any:
        """Opens the event stream; raises urllib's HTTPError for an error status."""
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        request = self.request("GET", "/v1/bots/me/events", headers=headers)
        return urllib.request.urlopen(request, timeout=READ_TIMEOUT_SECONDS)


def parse_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def problem_text(status: int, body: Any) -> str:
    """`409 matches/over: The match is over.` from a problem+json answer."""
    if isinstance(body, dict) and body.get("code"):
        return f"{status} {body['code']}: {body.get('detail') or body.get('title', '')}"
    return str(status)


def retry_after(headers: Any, default: float) -> float:
    """The seconds a 429's Retry-After asks for (a number of seconds, as the arena sends it)."""
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else default
    except ValueError:
        return default


def read_events(stream: Any) -> Iterator[Tuple[str, str, Optional[str], Optional[int]]]:
    """Server-Sent Events from a response, line by line: (event, data, id, retry in ms) per event.

    `id` is the last id the stream has set (it carries over events without one, as in EventSource).
    Comments (keep-alives) and blocks without data (the stream's opening `retry:`) come as event ""
    with no id.
    """
    event, data, last_id, retry = "", [], None, None
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield event or "message", "\n".join(data), last_id, retry
            elif retry is not None:
                yield "", "", None, retry
            event, data, retry = "", [], None
            continue
        if line.startswith(":"):
            yield "", "", None, None  # a comment: the arena's keep-alive, a sign of life
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id" and "\0" not in value:
            last_id = value
        elif field == "retry" and value.isdigit():
            retry = int(value)


class PullBot:
    def __init__(self, arena: Arena, verbose: bool) -> None:
        self.arena = arena
        self.verbose = verbose
        self.last_event_id: Optional[str] = None
        self.reconnect_seconds = 2.0  # until the stream's `retry:` says otherwise
        self.failures = 0  # in a row: how long the next reconnect waits
        self.solo_games: Set[str] = set()  # solo games under way, for the line their end logs

    def run(self) -> None:
        """Plays until interrupted. Raises TokenRefused when the arena refuses the token."""
        while True:
            opened = time.monotonic()
            try:
                with self.arena.events(self.last_event_id) as stream:
                    closing_pause = self.follow(stream, opened)
                if closing_pause is not None:
                    pause = closing_pause  # the arena restarts: not a failure
                else:
                    # The stream ended (cut, or the arena let it go): back after the stream's `retry`,
                    # or longer if streams keep ending.
                    self.failures += 1
                    pause = max(self.reconnect_seconds, backoff(self.failures))
                    log(f"event stream ended; reconnecting in {pause:.1f} s")
            except urllib.error.HTTPError as error:
                with error:
                    body = parse_json(error.read())
                if error.code in (401, 403):
                    raise TokenRefused(problem_text(error.code, body)) from None
                self.failures += 1
                pause = backoff(self.failures)
                if error.code == 429:  # streams/too-many: this bot's other streams are still open
                    pause = retry_after(error.headers, pause)
                log(f"event stream refused ({problem_text(error.code, body)}); retrying in {pause:.1f} s")
            except (OSError, http.client.HTTPException, StreamDropped, ValueError) as error:
                # Refused and reset connections, timeouts, urllib's URLError, a cut chunked body, bad JSON.
                self.failures += 1
                pause = backoff(self.failures)
                log(f"event stream lost ({describe(error)}); reconnecting in {pause:.1f} s")
            time.sleep(pause)

    def follow(self, stream: Any, opened: float) -> Optional[float]:
        """Handles the events of one connection. Returns the pause `arenaClosing` asks for, if it came."""
        closing_pause = None
        for event, data, event_id, retry in read_events(stream):
            if retry is not None:
                self.reconnect_seconds = retry / 1000
            if event or time.monotonic() - opened > HEALTHY_STREAM_SECONDS:
                self.failures = 0  # a stream that works: the next failure waits the shortest again
            if event == "yourTurn":
                self.play(json.loads(data))
            elif event == "matchStarted":
                started = json.loads(data)
                black, white = started["black"]["name"], started["white"]["name"]
                layout = started.get("rules", {}).get("layout")
                if layout is not None:  # the solo game: the bot sits on both sides
                    self.solo_games.add(started["matchId"])
                    log(f"{started['matchId']}: {black} plays a solo game on layout {layout}")
                else:
                    log(f"{started['matchId']}: {black} (black) against {white} (white)")
            elif event == "matchFinished":
                finished = json.loads(data)
                log(finished_line(finished, finished["matchId"] in self.solo_games))
                self.solo_games.discard(finished["matchId"])
            elif event == "arenaClosing":
                # A restart or a deploy, not an error: the stream ends next; come back after this pause.
                closing_pause = json.loads(data).get("reconnectAfterMs", 2000) / 1000
                log(f"the arena is closing; reconnecting in {closing_pause:.1f} s")
            # Only now that the event is handled: if posting failed, the reconnect gets the turn again.
            if event_id is not None:
                self.last_event_id = event_id
        return closing_pause

    def play(self, state: Dict[str, Any]) -> None:
        """Posts a move for one `yourTurn`: the strategy's, or the first legal one if that was refused.

        Turns are played one at a time, as they come: a strategy that thinks long delays the turns of
        the bot's other matches (hand them to a thread pool if it plays many at once).
        """
        if state.get("toMove") != state.get("you") or not state.get("legalMoves"):
            return  # an old turn, already played: the match moved on
        match_id, ply = state["matchId"], state["ply"]
        if state.get("game") == "solo":
            self.solo_games.add(match_id)  # its matchStarted came before this stream, if it came at all
        try:
            action = choose_move(state)
        except Exception:  # a bug in the strategy: say where, and play on rather than lose on time
            failure = traceback.format_exc()
            log(f"{match_id} ply {ply}: the strategy failed, playing the first legal move:\n{failure}")
            action = first_legal(state) or {"action": state["legalMoves"][0]}
        status, body = self.post(match_id, {**action, "ply": ply})
        if status == 422:
            # The strategy's move is illegal: say so, and play a legal one while the clock runs.
            log(f"{match_id} ply {ply}: {json.dumps(action)} refused ({problem_text(status, body)})")
            action = first_legal(state) or action
            status, body = self.post(match_id, {**action, "ply": ply})
        if status == 200:
            if self.verbose:
                log(f"{match_id} ply {ply}: {json.dumps(action)}")
        elif status == 401:
            raise TokenRefused(problem_text(status, body))
        else:
            # 409: not this bot's turn any more, or the match is over (e.g. a turn told twice).
            log(f"{match_id} ply {ply}: {json.dumps(action)} not played ({problem_text(status, body)})")

    def post(self, match_id: str, action: Dict[str, Any]) -> Tuple[int, Any]:
        """Posts an action; retries a network error, a 429 or a 5xx (posting the same ply is harmless)."""
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                status, headers, body = self.arena.call("POST", f"/v1/matches/{match_id}/actions", action)
            except (OSError, http.client.HTTPException) as error:
                if attempt == POST_ATTEMPTS:
                    raise StreamDropped(f"posting to {match_id} failed: {describe(error)}") from None
                time.sleep(0.2 * attempt)
                continue
            if status == 429 or status >= 500:
                if attempt == POST_ATTEMPTS:
                    raise StreamDropped(f"posting to {match_id} answered {problem_text(status, body)}")
                time.sleep(retry_after(headers, 0.2 * attempt) if status == 429 else 0.2 * attempt)
                continue
            return status, body
        raise AssertionError("unreachable")


def backoff(failures: int) -> float:
    """1 s, 2 s, 4 s... up to 30 s, with jitter so many bots do not come back at the same instant."""
    return min(BACKOFF_MAX_SECONDS, 2 ** (failures - 1)) * random.uniform(0.8, 1.2)


def describe(error: BaseException) -> str:
    reason = getattr(error, "reason", None)  # urllib's URLError wraps the socket's error
    return str(reason or error) or type(error).__name__


def finished_line(finished: Dict[str, Any], solo: bool = False) -> str:
    result = finished.get("result")
    if not result:
        return f"{finished['matchId']}: aborted"
    if solo:  # the score is black's count; white's is always 0
        return f"{finished['matchId']}: scored {result['discs']['black']} ({result['reason']})"
    winner = f"{result['winner']} wins" if result.get("winner") else "no winner"
    discs = result["discs"]
    return f"{finished['matchId']}: {winner}, {discs['black']}-{discs['white']} ({result['reason']})"


def stop(signum: int, frame: Any) -> None:
    """SIGTERM (docker stop, kill) ends the bot as Ctrl-C does."""
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description="A Reversi Arena pull bot (plays from its event stream).")
    parser.add_argument("--arena", default="http://127.0.0.1:3000", help="the arena's base URL")
    parser.add_argument(
        "--token", default=os.environ.get("ARENA_TOKEN"), help="the bot's token (rvb_...); or set ARENA_TOKEN"
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="print every move played")
    args = parser.parse_args()
    if not args.token:
        parser.error("--token rvb_... is required: the token the arena showed at registration")
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    arena = Arena(args.arena, args.token)
    try:
        me = arena.me()
        log(f"pull bot playing as {me['name']} ({me['id']}) through {arena.base}")
        PullBot(arena, args.verbose).run()
    except KeyboardInterrupt:
        log("stopped")
        return 0
    except TokenRefused as error:
        print(f"{arena.base}: the arena refused the token ({error})", file=sys.stderr)
        return 1
    except (OSError, StreamDropped) as error:
        print(f"cannot reach the arena at {arena.base} ({describe(error)})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
