#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Table by table: a guide's guide.md against the facts of a vendor guide.

usage: guide_tables.py TABLES GUIDE.md BOARD [--measured=T1;T2] [--todo-measured=T3;T4]
                       [--todo-rows=REGEX] [--own-command=T5;T6]

TABLES (tests/data/guide/*.tables) lists, per table of the vendor's guide,
its title, its columns (name | unit) and its rows, in order. For every
table this checks that GUIDE.md has a table of that title at the same place,
with the same columns in the same order and the same units (the vendor's
spelling read through UNITS: "Mbits/sec" is Mbit/s). A table named in
--measured must hold the vendor's rows, in the vendor's order (a list
table's rows as "name (unit)"); any other table must hold them or say
"not measured: why". --todo-measured names tables whose rows are expected
to be missing for a known reason (printed as TAP TODO: a pass is reported
as an unexpected pass); rows matching --todo-rows are checked in a TODO line
of their own. --own-command names tables whose key is the vendor's command
line ("Command Used"): the guide shows the command that measured the row
instead, so those rows must be as many and each an "embperf run KERNEL ..."
line. Prints TAP; exits 1 when a check fails.
"""

import re
import sys

# The vendor's unit spellings, as the library's units.
UNITS = {
    "bits/sec": "bit/s", "Mbits/sec": "Mbit/s", "Mbytes/sec": "MB/s", "mb/s": "MB/s",
    "mbs": "MB/s", "microsec": "us", "nanosec": "ns", "mips": "MIPS",
    "KBytes/Sec": "kB/s",
    # lmbench's column name for lat_fs's count, TI's unit for it; os.fs's unit
    "num_files": "files",
}


def load_facts(path):
    """[(title, [(name, unit)], [row])] from a .tables file."""
    tables = []
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, rest = line[0], line[2:]
        if kind == "T":
            tables.append((rest, [], []))
        elif kind == "C":
            name, _, unit = rest.partition("|")
            tables[-1][1].append((name.strip(), unit.strip()))
        elif kind == "R":
            tables[-1][2].append(rest.strip())
    return tables


def md_cells(line):
    """The cells of a markdown table line, '\\|' kept as '|'."""
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def load_guide(path):
    """[(title, header, [cells])] from guide.md: every '## ' section's first table."""
    tables, title, header, rows = [], None, None, []
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("## "):
            if title is not None:
                tables.append((title, header, rows))
            title, header, rows = line[3:], None, []
        elif title is not None and line.startswith("|"):
            if header is None:
                header = md_cells(line)
            elif not line.startswith("|---"):
                rows.append(md_cells(line))
    if title is not None:
        tables.append((title, header, rows))
    return tables


def expected_header(columns, board):
    out = []
    for name, unit in columns:
        if name == "BOARD":
            out.append(board)
        else:
            unit = UNITS.get(unit, unit)
            out.append("%s (%s)" % (name, unit) if unit else name)
    return out


def expected_row(row, list_table):
    """A list table's "name | unit" as "name (unit)"; a key row as its cells joined."""
    if list_table:
        name, _, unit = row.partition("|")
        unit = UNITS.get(unit.strip(), unit.strip())
        return "%s (%s)" % (name.strip(), unit) if unit else name.strip()
    return " | ".join(part.strip() for part in row.split("|"))


def guide_rows(rows, keys):
    """The rows of a guide table as the facts write them (its first @keys
    cells), and its not-measured notes."""
    measured, notes = [], []
    for cells in rows:
        if cells and cells[0].startswith("not measured"):
            notes.append(cells[0])
        elif cells:
            measured.append(" | ".join(cells[:keys]))
    return measured, notes


# The TODO directive of the checks that --todo-measured and --todo-rows name:
# printed after "# TODO" for a reader (test_guide.sh matches "# TODO" only).
PENDING = "pending the suite fixes that measure these rows as the vendor's guide does"


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def check(self, ok, name, detail="", todo=None):
        self.n += 1
        directive = " # TODO %s" % todo if todo else ""
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, name, directive))
        if not ok:
            for line in detail.splitlines():
                print("# " + line)
            if not todo:
                self.failed += 1


def main(argv):
    opts = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in argv[4:] if "=" in a}
    measured = set(filter(None, opts.get("--measured", "").split(";")))
    todo_measured = set(filter(None, opts.get("--todo-measured", "").split(";")))
    todo_rows = re.compile(opts["--todo-rows"]) if opts.get("--todo-rows") else None
    own_command = set(filter(None, opts.get("--own-command", "").split(";")))
    facts, guide, board = load_facts(argv[1]), load_guide(argv[2]), argv[3]
    tap = Tap()
    tap.check(len(guide) >= len(facts),
              "the guide has the vendor's %d tables (it has %d)" % (len(facts), len(guide)))
    for index, (title, columns, rows) in enumerate(facts):
        got = guide[index] if index < len(guide) else ("", None, [])
        tap.check(got[0] == title, "table %d is '%s'" % (index + 1, title), "got '%s'" % got[0])
        want_header = expected_header(columns, board)
        tap.check(got[1] == want_header, "%s: the vendor's columns and units" % title,
                  "want %s\ngot  %s" % (want_header, got[1]))
        if title == "Evaluation Modules" or got[1] is None:
            continue
        list_table = len(columns) == 2 and columns[1][0] == "BOARD"
        want = [expected_row(r, list_table) for r in rows]
        keys = 1 if list_table or not rows else rows[0].count("|") + 1
        have, notes = guide_rows(got[2], keys)
        if todo_rows:
            pending = [w for w in want if todo_rows.search(w)]
            want = [w for w in want if not todo_rows.search(w)]
            tap.check(all(p in have for p in pending),
                      "%s: rows %s" % (title, ", ".join(pending)),
                      "missing: %s" % [p for p in pending if p not in have],
                      todo=PENDING) if pending else None
            have = [h for h in have if not todo_rows.search(h)]
        same = [h.lower() for h in have] == [w.lower() for w in want]
        if title in own_command:
            same = len(have) == len(want) and all(
                re.match(r"embperf run [a-z]+\.[a-z.]+( [a-z_]+=\S+)+$", h) for h in have)
        if title in measured or title in todo_measured:
            tap.check(same, "%s: the vendor's %d rows in the vendor's order" % (title, len(want)),
                      "want %s\ngot  %s\nnotes %s" % (want, have, notes),
                      todo=PENDING
                      if title in todo_measured else None)
        if title not in measured:
            tap.check(same or (not have and notes),
                      "%s: the vendor's rows, or 'not measured: why'" % title,
                      "rows %s\nnotes %s" % (have, notes))
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
