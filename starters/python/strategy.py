"""The move chooser shared by push_bot.py and pull_bot.py: the one place to put your own strategy.

A state is the arena's `BotState` as a dict (see GET /v1/games/reversi or the arena's /protocol page):
  board       8 strings of "B", "W", "." : rank 1 first, files a-h left to right ("d3" is board[2][3])
  you         "black" or "white"
  legalMoves  the squares you may play, e.g. ["c4", "d3", "e6", "f5"] (never empty on your turn)
  rules       {"captureRule": "all" | "single-direction", ...}
  ply, history, timeLimitMs, remainingOverageMs, opponent, ...
An action is {"action": "<square>"}, plus {"direction": "n" | "ne" | ... | "nw"} under the
"single-direction" capture rule when the move traps lines in several directions.

The solo game (state["game"] == "solo", rules on the arena's /protocol page) sends the same state with:
  you           always "black"; opponent is your own bot (it sits on both sides)
  board         also "?" a face-down token, "b" / "w" / "o" a turned black, white or blank token
  tokens        the tokens on the board: {"square", "hidden": True} or {"square", "hidden": False,
                "colour": "black" | "white" | "blank", "value": 0..10}
  captured      the tokens captured so far, [{"colour", "value"}]; score: your score so far
  legalActions  every legal placement with its colour, [{"action": "d3", "colour": "white"}, ...]
  rules         {"scoring": "tokens" | "points", "layout": ...}
and its action names the colour of the disc placed: {"action": "d3", "colour": "white"}.
"""

from typing import Any, Dict, List, Optional, Tuple

# A direction as the arena names it -> (row step, file step); "n" is toward rank 1, "e" toward file h.
DIRECTIONS = {
    "n": (-1, 0),
    "ne": (-1, 1),
    "e": (0, 1),
    "se": (1, 1),
    "s": (1, 0),
    "sw": (1, -1),
    "w": (0, -1),
    "nw": (-1, -1),
}
# The solo game's sides: a token is trapped between two discs touching it by a side, never diagonally.
SIDES = ((-1, 0), (0, 1), (1, 0), (0, -1))
CORNERS = {"a1", "h1", "a8", "h8"}
# The squares diagonally next to a corner: taking one often hands the corner to the opponent.
X_SQUARES = {"b2", "g2", "b7", "g7"}


def flips_by_direction(state: Dict[str, Any], square: str) -> Dict[str, int]:
    """How many discs `square` flips in each direction it traps a line in (empty if none or unreadable)."""
    board: List[str] = state.get("board") or []
    if len(board) != 8 or any(not isinstance(row, str) or len(row) != 8 for row in board):
        return {}
    me = "B" if state.get("you") == "black" else "W"
    them = "W" if me == "B" else "B"
    row, col = int(square[1]) - 1, ord(square[0]) - ord("a")
    found: Dict[str, int] = {}
    for name, (dr, dc) in DIRECTIONS.items():
        r, c, count = row + dr, col + dc, 0
        while 0 <= r < 8 and 0 <= c < 8 and board[r][c] == them:
            r, c, count = r + dr, c + dc, count + 1
        if count > 0 and 0 <= r < 8 and 0 <= c < 8 and board[r][c] == me:
            found[name] = count
    return found


def action_for(state: Dict[str, Any], square: str) -> Dict[str, str]:
    """The action playing `square`: under "single-direction" capture, along its longest line."""
    action = {"action": square}
    if (state.get("rules") or {}).get("captureRule") == "single-direction":
        lines = flips_by_direction(state, square)
        if lines:
            # max() keeps the first of equals, so ties go to n, ne, e, ... in that order.
            action["direction"] = max(lines, key=lambda name: lines[name])
    return action


def flips(state: Dict[str, Any], square: str) -> int:
    """The discs `square` flips under the state's capture rule."""
    lines = flips_by_direction(state, square)
    if (state.get("rules") or {}).get("captureRule") == "single-direction":
        return max(lines.values(), default=0)
    return sum(lines.values())


def first_legal(state: Dict[str, Any]) -> Optional[Dict[str, str]]:
    """The first legal move as an action (a fallback), or None when there is none."""
    if state.get("game") == "solo":
        actions = state.get("legalActions") or []
        return {"action": actions[0]["action"], "colour": actions[0]["colour"]} if actions else None
    moves = state.get("legalMoves") or []
    return action_for(state, moves[0]) if moves else None


def inside(row: int, col: int) -> bool:
    return 0 <= row < 8 and 0 <= col < 8


def solo_effect(state: Dict[str, Any], square: str, colour: str) -> Tuple[int, int]:
    """What a `colour` disc on `square` does in the solo game: (what it scores now, tokens it turns).

    It scores the turned tokens it captures: 1 each, or their values under "points" scoring. Only what
    the state shows is used, and that is enough: a token can be captured only once an earlier move has
    turned it face up, so what the face-down tokens hide never matters here.
    """
    board = [list(row) for row in state["board"]]
    disc = "B" if colour == "black" else "W"
    other = "W" if disc == "B" else "B"
    row, col = int(square[1]) - 1, ord(square[0]) - ord("a")
    board[row][col] = disc
    # The placed disc, then the discs it flips (a token breaks a line, as an empty square does).
    changed = [(row, col)]
    for dr, dc in DIRECTIONS.values():
        line, r, c = [], row + dr, col + dc
        while inside(r, c) and board[r][c] == other:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and inside(r, c) and board[r][c] == disc:
            changed += line
    for r, c in changed:
        board[r][c] = disc
    captured, turned = set(), set()
    for r, c in changed:  # every disc the move placed or flipped turns and traps tokens by its sides
        for dr, dc in SIDES:
            tr, tc = r + dr, c + dc
            if not inside(tr, tc):
                continue
            if board[tr][tc] == "?":
                turned.add((tr, tc))
            # Captured: a turned token not of the disc's colour (a blank is of neither) with a disc of
            # that colour on its far side.
            elif board[tr][tc] in ("b", "w", "o") and board[tr][tc] != disc.lower():
                if inside(tr + dr, tc + dc) and board[tr + dr][tc + dc] == disc:
                    captured.add(f"{'abcdefgh'[tc]}{tr + 1}")
    if (state.get("rules") or {}).get("scoring") == "points":
        values = {token["square"]: token.get("value", 0) for token in state.get("tokens") or []}
        return sum(values.get(name, 0) for name in captured), len(turned)
    return len(captured), len(turned)


# ==================================================================================================
# YOUR STRATEGY GOES HERE. Replace the body of choose_move with your own (search, an opening book,
# a network...). It gets the state and returns an action built from one of state["legalMoves"];
# action_for() adds the direction the "single-direction" rule may need. In the solo game it returns
# one of state["legalActions"], with its colour. Mind state["timeLimitMs"]: it includes the network,
# and running over spends state["remainingOverageMs"], then loses the match.
# ==================================================================================================
def choose_move(state: Dict[str, Any]) -> Dict[str, str]:
    """Reversi: a simple heuristic, a corner if any, never an X-square if avoidable, then the most flips.
    The solo game: choose_solo_action's.

    Ties go to the first move in legalMoves order (a1, b1, ... h8), so the answer is deterministic:
    the same state always gets the same action, which makes a retried post harmless.
    """
    if state.get("game") == "solo":
        return choose_solo_action(state)
    moves: List[str] = state["legalMoves"]
    best = max(moves, key=lambda sq: (sq in CORNERS, sq not in X_SQUARES, flips(state, sq)))
    return action_for(state, best)


def choose_solo_action(state: Dict[str, Any]) -> Dict[str, str]:
    """The solo game: the placement that scores most now, then the one that turns the most face-down
    tokens (more to capture later). Ties go to the first of state["legalActions"] (max keeps it).
    """
    best = max(state["legalActions"], key=lambda a: solo_effect(state, a["action"], a["colour"]))
    return {"action": best["action"], "colour": best["colour"]}
