#!/usr/bin/env python3
"""Times python-chess's Syzygy prober on random positions of one material.

Places the material's pieces on random squares (a fixed seed, so every run
probes the same positions), keeps the legal positions (python-chess's
Board.is_valid: kings apart, the side not to move not in check, no pawn on
its first or last rank), and probes WDL and DTZ of each, as a user reading
a table one position at a time would. Prints one JSON line: the material,
the positions probed, the seconds the probes took (placement excluded), and
the wins, draws and losses among them.

Usage: probe_random.py TABLE_DIR MATERIAL COUNT [SEED]
Needs python-chess (pip install chess).
"""
import json
import random
import sys
import time

import chess
import chess.syzygy


def pieces_of(material: str) -> list:
    white, black = material.split("v")
    out = []
    for side, color in ((white, chess.WHITE), (black, chess.BLACK)):
        for letter in side:
            out.append(chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), color))
    return out


def random_positions(material: str, count: int, seed: int) -> list:
    rng = random.Random(seed)
    pieces = pieces_of(material)
    boards = []
    while len(boards) < count:
        board = chess.Board(None)
        for piece, square in zip(pieces, rng.sample(chess.SQUARES, len(pieces))):
            board.set_piece_at(square, piece)
        board.turn = rng.choice((chess.WHITE, chess.BLACK))
        if board.is_valid():
            boards.append(board)
    return boards


def main() -> int:
    if len(sys.argv) not in (4, 5):
        print("usage: probe_random.py TABLE_DIR MATERIAL COUNT [SEED]", file=sys.stderr)
        return 2
    tables, material, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    boards = random_positions(material, count, seed)
    wdl = {1: 0, 0: 0, -1: 0}
    with chess.syzygy.open_tablebase(tables) as tb:
        started = time.perf_counter()
        for board in boards:
            w = tb.probe_wdl(board)
            tb.probe_dtz(board)
            wdl[(w > 0) - (w < 0)] += 1
        seconds = time.perf_counter() - started
    print(json.dumps({
        "material": material,
        "positions": len(boards),
        "seconds": round(seconds, 3),
        "wins": wdl[1],
        "draws": wdl[0],
        "losses": wdl[-1],
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
