#!/usr/bin/env python3
"""Generate chr.s (the labcart's CHR-ROM tiles as ca65 .byte data).

The generated chr.s is committed; build.sh only needs ca65/ld65.  Run
`python3 src/labcart/gen_chr.py > src/labcart/chr.s` after editing.

Tile map (pattern table 0, used by background and sprites):
  $00 blank            $01 wall          $02 floor
  $10-$13 puyo, body value 1 (TL TR BL BR)
  $14-$17 puyo, body value 2
  $18-$1B nuisance (body value 1)
  $1C-$1F Carbuncle (body value 2, gem value 1)
  $20-$5F ASCII font (value 3): space ! - . : > 0-9 A-Z
  $60-$6F Big Puyo, 32x32 (4x4 tiles, row-major), body value 2
"""
import math

tiles = [[[0] * 8 for _ in range(8)] for _ in range(256)]


def put16(base, img):
    # img: 16x16 values; split into TL TR BL BR tiles at base..base+3
    for t in range(4):
        ox, oy = (t % 2) * 8, (t // 2) * 8
        for y in range(8):
            for x in range(8):
                tiles[base + t][y][x] = img[oy + y][ox + x]


def puyo(body, face="eyes"):
    img = [[0] * 16 for _ in range(16)]
    for y in range(16):
        for x in range(16):
            dx, dy = x - 7.5, y - 8.0
            if dx * dx / 7.4 ** 2 + dy * dy / 7.0 ** 2 <= 1.0:
                img[y][x] = body
    # shine
    for (x, y) in [(4, 3), (5, 3), (3, 4)]:
        img[y][x] = 3
    if face == "eyes":
        for ex in (4, 10):
            for y in range(6, 10):
                img[y][ex] = 3
                img[y][ex + 1] = 3
            img[8][ex + 1] = 0
            img[9][ex + 1] = 0
    elif face == "nuisance":
        for ex in (4, 10):
            for y in range(6, 9):
                for x in range(ex, ex + 2):
                    img[y][x] = 3
            img[7][ex] = 0
        for x in range(5, 11):
            img[12][x] = 3
    return img


def carbuncle():
    img = [[0] * 16 for _ in range(16)]
    for y in range(16):
        for x in range(16):
            dx, dy = x - 7.5, y - 9.5
            if dx * dx / 7.0 ** 2 + dy * dy / 6.0 ** 2 <= 1.0:
                img[y][x] = 2
    # ears
    for y in range(0, 5):
        for x in range(1 + y // 2, 4):
            img[y][x] = 2
        for x in range(12, 15 - y // 2):
            img[y][x] = 2
    # gem on forehead
    for (x, y) in [(7, 5), (8, 5), (7, 6), (8, 6)]:
        img[y][x] = 1
    # eyes
    for ex in (4, 10):
        for y in range(8, 11):
            img[y][ex] = 3
            img[y][ex + 1] = 3
        img[10][ex + 1] = 0
    # mouth
    for x in (6, 7, 8, 9):
        img[13][x] = 1
    return img


def big():
    img = [[0] * 32 for _ in range(32)]
    for y in range(32):
        for x in range(32):
            dx, dy = x - 15.5, y - 16.0
            if dx * dx / 15.2 ** 2 + dy * dy / 14.8 ** 2 <= 1.0:
                img[y][x] = 2
    for (x, y) in [(7, 5), (8, 5), (9, 5), (6, 6), (7, 6), (5, 7), (6, 7), (5, 8)]:
        img[y][x] = 3
    for ex in (8, 20):
        for y in range(11, 19):
            for x in range(ex, ex + 4):
                img[y][x] = 3
        for y in range(15, 19):
            for x in range(ex + 2, ex + 4):
                img[y][x] = 0
    for x in range(12, 20):
        img[24][x] = 3
    return img


# wall: vertical brick strip in value 3
wall = [
    "33333303",
    "30000003",
    "30000003",
    "03333333",
    "33333303",
    "30000003",
    "30000003",
    "03333333",
]
floor = [
    "33333333",
    "30003000",
    "30003000",
    "33333333",
    "00300030",
    "00300030",
    "33333333",
    "00000000",
]
for i, pat in ((1, wall), (2, floor)):
    for y in range(8):
        tiles[i][y] = [int(c) for c in pat[y]]

put16(0x10, puyo(1))
put16(0x14, puyo(2))
put16(0x18, puyo(1, "nuisance"))
put16(0x1C, carbuncle())
b = big()
for ty in range(4):
    for tx in range(4):
        t = 0x60 + ty * 4 + tx
        for y in range(8):
            for x in range(8):
                tiles[t][y][x] = b[ty * 8 + y][tx * 8 + x]

# 5x7 font, value 3
FONT = {
    "!": ["..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."],
    "-": [".....", ".....", ".....", "#####", ".....", ".....", "....."],
    ".": [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."],
    ":": [".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."],
    ">": ["#....", ".#...", "..#..", "...#.", "..#..", ".#...", "#...."],
    "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
    "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
    "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
    "3": ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],
    "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
    "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
    "6": ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
    "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
    "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
    "9": [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
    "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
    "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
    "D": ["###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."],
    "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
    "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
    "G": [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"],
    "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "I": [".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."],
    "J": ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."],
    "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
    "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
    "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
    "N": ["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"],
    "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
    "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
    "Q": [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"],
    "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
    "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
    "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
    "U": ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
    "V": ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
    "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."],
    "X": ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
    "Y": ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
    "Z": ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"],
}
for ch, rows in FONT.items():
    t = ord(ch)
    assert 0x21 <= t <= 0x5F
    for y in range(7):
        for x in range(5):
            tiles[t][y][x + 1] = 3 if rows[y][x] == "#" else 0


def encode(tile):
    lo = [sum(((tile[y][x] & 1) << (7 - x)) for x in range(8)) for y in range(8)]
    hi = [sum((((tile[y][x] >> 1) & 1) << (7 - x)) for x in range(8)) for y in range(8)]
    return lo + hi


out = ["; generated by gen_chr.py -- do not edit by hand", '.segment "CHARS"']
for i in range(256):
    data = encode(tiles[i])
    out.append("  .byte " + ",".join("$%02X" % v for v in data) + " ; tile $%02X" % i)
out.append("  .res 4096, $00 ; pattern table 1 (unused)")
print("\n".join(out))
