#!/usr/bin/env python3
"""A complete kalah bot in Python 3, standard library only (docs/PROTOCOL.md).

On a server:          python3 bot.py HOST:PORT NAME TOKEN [GAMES [wait]]
  (with "wait" it takes tournament games as bot:NAME instead of queueing)
Run by the referee:   kalah match --a 'exec:python3 examples/bot.py' --b greedy
It plays a move whose last seed lands in its store (a free move) when it
has one, else its rightmost house with seeds. It says what it is doing on
standard error: connected, waiting, playing whom, each result.
"""
import socket
import sys


def choose(position):
    houses, _stores, side = position.split()[:3]
    south, north = houses.split("/")
    mine = [int(x) for x in (south if side == "S" else north).split(",")]
    n = len(mine)
    for i in range(n - 1, -1, -1):  # house i+1, counted from the mover's left
        if mine[i] == n - i:  # its last seed lands in the store
            return i + 1
    return max(i + 1 for i in range(n) if mine[i] > 0)


def say(text):
    """Tell the person running the bot what is happening (stderr: stdout may
    be the protocol)."""
    print("bot: " + text, file=sys.stderr, flush=True)


def main():
    if len(sys.argv) > 1:  # over TCP: log in and join the queue
        host, port = sys.argv[1].rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
        inp = sock.makefile("r", encoding="utf-8", newline="\n")
        out = sock.makefile("w", encoding="utf-8", newline="\n")
        games = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        join = sys.argv[5] if len(sys.argv) > 5 else "queue"  # or "wait"
    else:  # over stdin and stdout, run by a referee: no login
        inp, out, games, join = sys.stdin, sys.stdout, 1, None

    def send(text):
        out.write(text + "\n")
        out.flush()

    def ask():
        if join == "queue":
            say("in the queue, waiting for an opponent")
        else:
            say("waiting for tournament games as bot:" + sys.argv[2])
        send(join)

    if len(sys.argv) > 1:
        say("connected to %s, logging in as %s" % (sys.argv[1], sys.argv[2]))
        send("login %s %s" % (sys.argv[2], sys.argv[3]))
        ask()
    side, won, drawn, lost = "S", 0, 0, 0
    for line in inp:
        words = line.split()
        if not words:
            continue
        if words[0] == "go":  # go <per-move ms> <remaining ms> <position>
            send("move %d" % choose(" ".join(words[3:])))
        elif words[0] == "ping":
            send("pong")
        elif words[0] == "start":  # start <game> <side> <opponent> <rules>
            side = words[2]
            say("game %s: playing %s as %s" % (words[1], words[3], side))
        elif words[0] == "error":
            if words[1] in ("auth", "rate", "busy"):
                sys.exit("bot: server said: " + line.strip())
            say("server said: " + line.strip())
        elif words[0] == "end":  # end <result> <termination> <south>-<north>
            south, north = (int(x) for x in words[3].split("-"))
            mine, theirs = (south, north) if side == "S" else (north, south)
            if mine > theirs:
                won, verdict = won + 1, "won"
            elif mine < theirs:
                lost, verdict = lost + 1, "lost"
            else:
                drawn, verdict = drawn + 1, "drew"
            say("%s %d-%d (%s); so far won %d, drew %d, lost %d" % (verdict, mine, theirs, words[2], won, drawn, lost))
            games -= 1
            if games == 0:
                break
            if join == "queue":  # a waiting bot goes on waiting by itself
                ask()
    say("done")


main()
