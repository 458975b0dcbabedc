#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a command in a pseudo-terminal of a given width, resize it while the
command writes, and check its output as a terminal would show it.

    ptyterm.py [--cols N] [--resize N]... [--after K] [--reflow] [--rows-out FILE] -- COMMAND...

The terminal starts COLS wide. Each --resize happens once the command has
written K more lines (segments started by a carriage return) since the last
resize, in the order given. The output is read as a terminal reads it:
"\\r" goes back to the first column, "\\n" to the next row, "\\033[K" clears
to the end of the row, "\\033[NA" moves N rows up, "\\033[J" clears to the
end of the screen, a character written past the last column wraps to the
next row. Narrowing keeps what fits, as a terminal that does not reflow;
with --reflow a row wider than the new width wraps onto more rows, the
cursor moving with its character, as most terminals do.

Checks, each a message on stderr and exit status 1 when broken:
  - every segment written after the command saw a resize fits the width in
    effect; the one segment in flight when the terminal was resized may still
    have the old width (the command had not read the new one yet);
  - every resize happened (the command wrote enough lines);
  - the command exited with status 0.
The screen at the end, one row a line without trailing blanks and empty
rows at the end dropped, goes to --rows-out (or stdout).
"""
import argparse
import fcntl
import os
import pty
import select
import struct
import sys
import termios


def set_size(fd, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))


class Screen:
    """The few controls a progress line uses, on a screen without a height."""

    def __init__(self, cols, reflow=False):
        self.cols = cols
        self.reflow = reflow
        self.rows = [[]]
        self.row = 0
        self.col = 0

    def resize(self, cols):
        if not self.reflow or cols >= self.cols:
            self.cols = cols
            self.rows = [r[:cols] for r in self.rows]
            self.col = min(self.col, cols)
            return
        rows, where = [], None
        for i, r in enumerate(self.rows):
            chunks = [r[k:k + cols] for k in range(0, len(r), cols)] or [[]]
            if i == self.row:
                # the cursor past a full last chunk stays there (its wrap pending)
                k = min(self.col // cols, len(chunks) - 1) if self.col else 0
                where = (len(rows) + k, self.col - k * cols)
            rows.extend(chunks)
        self.cols = cols
        self.rows = rows
        if where:
            self.row, self.col = where

    def up(self, n):
        self.row = max(0, self.row - n)

    def clear_below(self):
        self.clear_to_end()
        del self.rows[self.row + 1:]

    def _line(self):
        while len(self.rows) <= self.row:
            self.rows.append([])
        return self.rows[self.row]

    def put(self, ch):
        if self.col >= self.cols:  # the pending wrap of the last column
            self.row += 1
            self.col = 0
        line = self._line()
        while len(line) < self.col:
            line.append(" ")
        if self.col < len(line):
            line[self.col] = ch
        else:
            line.append(ch)
        self.col += 1

    def carriage_return(self):
        self.col = 0

    def newline(self):
        self.row += 1
        self.col = 0
        self._line()

    def clear_to_end(self):
        line = self._line()
        del line[self.col:]

    def text(self):
        rows = ["".join(r).rstrip() for r in self.rows]
        while rows and not rows[-1]:
            rows.pop()
        return rows


class Checker:
    """Feeds the screen, splitting the stream into segments (from a carriage
    return or a newline to the next) and measuring each one's width."""

    def __init__(self, cols, reflow=False):
        self.screen = Screen(cols, reflow)
        self.segments = 0
        self.width = 0  # printable characters of the segment being written
        self.grace = False  # the segment in flight at a resize may be older
        self.errors = []
        self.esc = ""

    def resize(self, cols):
        self.screen.resize(cols)
        self.grace = True

    def _end_segment(self):
        if self.width:
            limit = self.screen.cols
            if self.width > limit and not self.grace:
                self.errors.append("a line of %d characters on a terminal %d wide"
                                   % (self.width, limit))
            self.segments += 1
            self.grace = False
        self.width = 0

    def feed(self, data):
        for ch in data:
            if self.esc:
                self.esc += ch
                if len(self.esc) > 2 and ch.isalpha():
                    if self.esc == "\033[K":
                        self.screen.clear_to_end()
                    elif self.esc == "\033[J":
                        self.screen.clear_below()
                    elif ch == "A" and self.esc[2:-1].isdigit():
                        self.screen.up(int(self.esc[2:-1]))
                    self.esc = ""
                continue
            if ch == "\033":
                self.esc = ch
            elif ch == "\r":
                self._end_segment()
                self.screen.carriage_return()
            elif ch == "\n":
                self._end_segment()
                self.screen.newline()
            elif ch >= " ":
                self.width += 1
                self.screen.put(ch)

    def finish(self):
        self._end_segment()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", type=int, default=80)
    ap.add_argument("--resize", type=int, action="append", default=[])
    ap.add_argument("--after", type=int, default=3)
    ap.add_argument("--reflow", action="store_true")
    ap.add_argument("--rows-out")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")
    pid, master = pty.fork()
    if pid == 0:
        set_size(sys.stdin.fileno(), a.cols)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    check = Checker(a.cols, a.reflow)
    resizes = list(a.resize)
    mark = 0
    while True:
        r, _, _ = select.select([master], [], [])
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the command and its children are gone
            data = b""
        if not data:
            break
        check.feed(data.decode("utf-8", "replace"))
        if resizes and check.segments - mark >= a.after:
            cols = resizes.pop(0)
            set_size(master, cols)  # the kernel sends SIGWINCH
            check.resize(cols)
            mark = check.segments
    check.finish()
    _, status = os.waitpid(pid, 0)
    rows = "\n".join(check.screen.text())
    if a.rows_out:
        with open(a.rows_out, "w") as f:
            f.write(rows + ("\n" if rows else ""))
    else:
        print(rows)
    if resizes:
        check.errors.append("the command ended before the resizes to %s" % resizes)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        check.errors.append("exit status %d" % code)
    for e in check.errors[:10]:
        print("ptyterm: " + e, file=sys.stderr)
    return 1 if check.errors else 0


if __name__ == "__main__":
    sys.exit(main())
