#!/usr/bin/env python3
"""A small reference bot for puyobot's bot protocol (docs/bot-protocol.md), standard library only.

Greedy: it tries every placement of the current piece, resolves the field, and prefers placements that
pop, then ones that touch puyos of the same colour, keeping the stacks low and the spawn column clear.
It suggests all its placements, best first, so the front end can fall back to the next one it reaches.
"""
import json
import sys

WIDTH, HEIGHT = 6, 14
DX = {"up": 0, "right": 1, "down": 0, "left": -1}
rules = {}
state = {}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def drop(cols, x, cell):
    """Puts `cell` on top of column x (0-based); False when the column is full."""
    if len(cols[x]) >= HEIGHT:
        return False
    cols[x].append(cell)
    return True


def place(cols, piece, x, orientation):
    """The columns (bottom first) after the piece lands; None when it does not fit."""
    cols = [list(c) for c in cols]
    x -= 1
    if piece in ("BIG", "CAR"):
        return None  # items: not scored by this bot; the front end falls back to its other moves
    cx = x + DX[orientation]
    if not (0 <= x < WIDTH and 0 <= cx < WIDTH):
        return None
    pivot, child = piece[0], piece[1]
    first, second = ((cx, child), (x, pivot)) if orientation == "down" else ((x, pivot), (cx, child))
    drop(cols, *first)
    drop(cols, *second)
    return cols


def resolve(cols):
    """Pops groups of `pop_size` until none is left; returns (columns, puyos popped)."""
    size = rules.get("pop_size", 4)
    popped = 0
    while True:
        seen, gone = set(), set()
        for x in range(WIDTH):
            for y in range(min(len(cols[x]), HEIGHT - 1)):
                if (x, y) in seen or cols[x][y] in ".O":
                    continue
                group, todo = [], [(x, y)]
                seen.add((x, y))
                while todo:
                    cx, cy = todo.pop()
                    group.append((cx, cy))
                    for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                        if 0 <= nx < WIDTH and 0 <= ny < min(len(cols[nx]), HEIGHT - 1) and (nx, ny) not in seen \
                                and cols[nx][ny] == cols[x][y]:
                            seen.add((nx, ny))
                            todo.append((nx, ny))
                if len(group) >= size:
                    gone.update(group)
        if not gone:
            return cols, popped
        popped += len(gone)
        cols = [[c for y, c in enumerate(col) if (x, y) not in gone] for x, col in enumerate(cols)]


def touching(cols, piece):
    """Same-colour neighbours of the top puyos: a rough measure of building groups."""
    score = 0
    for x in range(WIDTH):
        if not cols[x]:
            continue
        y = len(cols[x]) - 1
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y - 1)):
            if 0 <= nx < WIDTH and 0 <= ny < len(cols[nx]) and cols[nx][ny] == cols[x][y]:
                score += 1
    return score


def value(cols, piece, x, orientation):
    after = place(cols, piece, x, orientation)
    if after is None:
        return None
    after, popped = resolve(after)
    heights = [len(c) for c in after]
    spawn = rules.get("spawn", {}).get("x", 3) - 1
    return 10 * popped + touching(after, piece) - max(heights) - 4 * heights[spawn]


def columns(rows):
    """Field rows (hidden row first) as columns (bottom first)."""
    return [[rows[y][x] for y in range(HEIGHT - 1, -1, -1) if rows[y][x] != "."] for x in range(WIDTH)]


def suggest():
    cols, piece = state["cols"], state["current"]
    scored = []
    for x in range(1, WIDTH + 1):
        for orientation in ("up", "right", "down", "left"):
            v = value(cols, piece, x, orientation)
            if v is not None:
                scored.append((v, x, orientation))
    scored.sort(key=lambda t: -t[0])
    moves = [{"x": x, "orientation": o} for _, x, o in scored]
    if not moves:  # an item: every column, the front end keeps the ones it can reach
        moves = [{"x": x, "orientation": "up"} for x in (1, 2, 4, 5, 6, 3)]
    send({"type": "suggestion", "moves": moves})


def main():
    send({"type": "info", "name": "simple.py", "version": "1", "author": "puyobot examples", "protocol": 1})
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "rules":
            if message.get("version") != 1:
                send({"type": "error", "message": "only protocol version 1 is supported"})
                return
            rules.clear()
            rules.update(message)
            send({"type": "ready"})
        elif kind == "start":
            state.update(cols=columns(message["field"]), current=message["current"], next=message["next"])
        elif kind == "suggest":
            suggest()
        elif kind == "play":
            m = message["move"]
            after = place(state["cols"], state["current"], m["x"], m["orientation"])
            if after is not None:
                state["cols"] = resolve(after)[0]
            state["current"], state["next"] = state["next"], None
        elif kind == "new_piece":
            state["next"] = message["piece"]
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
