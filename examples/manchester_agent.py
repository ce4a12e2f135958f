#!/usr/bin/env python3
"""A Manchester COMP34120 Kalah agent in Python 3, standard library only
(docs/protocols/manchester.md): the engine's messages on stdin, its moves
on stdout, lines ending in a bare LF.

  kalah match --rules manchester --a 'mk:python3 examples/manchester_agent.py' --b greedy

It plays its rightmost house with seeds; it never swaps.
"""
import sys


def main():
    side = "South"
    for line in sys.stdin:
        fields = line.rstrip("\n").split(";")
        if fields[0] == "START":
            side = fields[1]
            if side == "South":  # South moves first
                move(None, side)
        elif fields[0] == "CHANGE":
            if fields[3] == "YOU":
                move(fields[2], side)
        elif fields[0] == "END":
            return


def move(state, side):
    if state is None:  # the start: every house holds seeds
        print("MOVE;7", flush=True)
        return
    # The state: North's 7 houses, North's store, South's 7 houses, South's store.
    board = [int(x) for x in state.split(",")]
    n = (len(board) - 2) // 2
    houses = board[:n] if side == "North" else board[n + 1:2 * n + 1]
    best = max(i + 1 for i in range(n) if houses[i] > 0)
    print("MOVE;%d" % best, flush=True)


main()
