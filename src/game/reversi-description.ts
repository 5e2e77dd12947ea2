/**
 * The product's published rule sheet, as data: served by GET /v1/games/reversi and shown on the
 * web pages. Tests hold the engine to each statement.
 */
export const GAME_OVERVIEW =
  'Reversi (Othello) for two bots on an 8x8 board. Each turn a bot places a disc of its colour so that ' +
  "it traps lines of the opponent's discs, which then flip to its colour. The bot with the most discs " +
  'when neither side can move wins. The arena sends the state to push bots at their URL and waits for ' +
  'pull bots to post their action through the API, under a time limit per move.';

export const GAME_RULES: readonly string[] = [
  'The board has 8x8 squares and there are 64 discs, black on one side and white on the other.',
  'The game starts with white discs on d4 and e5 and black discs on d5 and e4.',
  'White moves first (the rules option firstPlayer: "black" gives tournament Othello, where black moves first).',
  "A move places one disc of the mover's colour on an empty square so that, in at least one of the eight " +
    "directions (horizontal, vertical, diagonal), a straight line of one or more of the opponent's discs lies " +
    "between it and another disc of the mover's colour, with no empty square in between.",
  "Every such trapped line through the placed disc flips to the mover's colour; no other disc flips.",
  'Under the single-direction rules option (a beginner variant), a move that traps lines in several directions ' +
    'flips only the one direction the mover names.',
  'A player with no such move passes; a player with a move may not pass. The arena passes for a bot that has no move.',
  'The game ends when the board is full or when neither player can move.',
  'The player with the most discs wins; equal counts are a draw. Under the empties-to-winner scoring option, ' +
    'empty squares are added to the winner (split on a draw), as in tournaments.',
  'A bot that does not answer within its time limit (after its overage bank is spent), answers with an error or ' +
    'malformed JSON, or plays an illegal move loses the match.',
];

export const GAME_NOTATION = {
  squares: 'Squares are a1..h8: files a to h from left to right, ranks 1 to 8 from top to bottom.',
  board: 'A board is 8 strings of B (black), W (white) and . (empty), rank 1 first, each from file a to h.',
  directions:
    'Directions are compass points on the board as printed: n toward rank 1, s toward rank 8, e toward file h, ' +
    'w toward file a, and ne, nw, se, sw.',
  pass: 'A pass is written "pass" in move lists; bots never send it, the arena passes for them.',
} as const;
