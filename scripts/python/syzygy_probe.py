#!/usr/bin/env python3
"""An independent Syzygy reader for the tests: python-chess's prober.

Reads FENs, one per line, on stdin; prints for each `FEN<TAB>WDL<TAB>DTZ`,
WDL and DTZ as python-chess's probe_wdl and probe_dtz give them (WDL -2..2,
with the 50-move rule; DTZ in plies, maybe off by one where the tables
round it). Usage: syzygy_probe.py TABLE_DIR < fens.txt
Needs python-chess (pip install chess).
"""
import sys

import chess
import chess.syzygy


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: syzygy_probe.py TABLE_DIR < fens", file=sys.stderr)
        return 2
    with chess.syzygy.open_tablebase(sys.argv[1]) as tb:
        for line in sys.stdin:
            fen = line.strip()
            if not fen:
                continue
            board = chess.Board(fen)
            print(f"{fen}\t{tb.probe_wdl(board)}\t{tb.probe_dtz(board)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
