"""The move chooser shared by push_bot.py and pull_bot.py: the one place to put your own strategy.

A state is the arena's `BotState` as a dict (see GET /v1/games/reversi or the arena's /protocol page):
  board       8 strings of "B", "W", "." : rank 1 first, files a-h left to right ("d3" is board[2][3])
  you         "black" or "white"
  legalMoves  the squares you may play, e.g. ["c4", "d3", "e6", "f5"] (never empty on your turn)
  rules       {"captureRule": "all" | "single-direction", ...}
  ply, history, timeLimitMs, remainingOverageMs, opponent, ...
An action is {"action": "<square>"}, plus {"direction": "n" | "ne" | ... | "nw"} under the
"single-direction" capture rule when the move traps lines in several directions.
"""

from typing import Any, Dict, List, Optional

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
    moves = state.get("legalMoves") or []
    return action_for(state, moves[0]) if moves else None


# ==================================================================================================
# YOUR STRATEGY GOES HERE. Replace the body of choose_move with your own (search, an opening book,
# a network...). It gets the state and returns an action built from one of state["legalMoves"];
# action_for() adds the direction the "single-direction" rule may need. Mind state["timeLimitMs"]:
# it includes the network, and running over spends state["remainingOverageMs"], then loses the match.
# ==================================================================================================
def choose_move(state: Dict[str, Any]) -> Dict[str, str]:
    """A simple heuristic: a corner if any, never an X-square if avoidable, then the most flips.

    Ties go to the first move in legalMoves order (a1, b1, ... h8), so the answer is deterministic:
    the same state always gets the same action, which makes a retried post harmless.
    """
    moves: List[str] = state["legalMoves"]
    best = max(moves, key=lambda sq: (sq in CORNERS, sq not in X_SQUARES, flips(state, sq)))
    return action_for(state, best)
