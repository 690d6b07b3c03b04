#!/usr/bin/env python3
"""List every summary group of docs/validation.md whose median |error| is over a threshold.

    validation-misses.py docs/validation.md [THRESHOLD] [--see REGEX=HEADING]...
        (THRESHOLD default 0.35; rewrites the file)

Reads each "| group | rows | median_abs_error | p90_abs_error |" table with the section and
subsection it sits in, and writes the groups over THRESHOLD as a table before section 1, between
the markers <!-- misses:begin --> and <!-- misses:end --> (added when absent). Left out: section 1
(the datasheet roofline, a baseline of what calculators without a fit give) and a table whose
heading calls it a rejected reading (not the model's prediction). `--see REGEX=HEADING` adds
"; see HEADING" to the section of each group whose name matches REGEX (a later subsection that
explains it); a HEADING the file does not have is an error. Exits 1 when the file has no section
1 or a --see is malformed or names no heading.
"""
import re
import sys

BEGIN, END = "<!-- misses:begin -->", "<!-- misses:end -->"


def main(argv):
    see = []
    while "--see" in argv:
        i = argv.index("--see")
        if i + 1 >= len(argv) or "=" not in argv[i + 1]:
            sys.exit("--see: expected REGEX=HEADING")
        pattern, heading_text = argv[i + 1].split("=", 1)
        see.append((re.compile(pattern), heading_text))
        del argv[i : i + 2]
    path = argv[0]
    limit = float(argv[1]) if len(argv) > 1 else 0.35
    text = open(path, encoding="utf-8").read()
    for _, heading_text in see:
        if not re.search(r"^#+ " + re.escape(heading_text) + r"\s*$", text, re.M):
            sys.exit(f"{path}: --see: no heading '{heading_text}'")
    if BEGIN in text:
        a, b = text.index(BEGIN), text.index(END) + len(END)
        text = text[:a] + text[b:].lstrip("\n")
    lines = text.split("\n")
    section = subsection = heading = ""
    in_table = False
    misses, seen = [], set()
    for line in lines:
        if line.startswith("## "):
            section, subsection, heading = line[3:].strip(), "", ""
        elif line.startswith("### "):
            heading = line[4:].strip()
            if not heading.startswith("summary of"):
                subsection = heading
        elif line.startswith("#### "):
            subsection = line[5:].strip()
        if line.startswith("| group | rows | median_abs_error"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            in_table = False
        if not in_table or line.startswith("|---"):
            continue
        if section.startswith("1.") or "rejected" in heading:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 4:
            continue
        try:
            median = float(cells[2])
        except ValueError:
            continue
        key = (section, subsection, cells[0], cells[1], cells[2])
        if median > limit and key not in seen:
            seen.add(key)
            misses.append((cells[0], cells[1], median, section, subsection))
    first = next((i for i, l in enumerate(lines) if l.startswith("## 1.")), None)
    if first is None:
        sys.exit(f"{path}: no section '## 1.'")
    block = [BEGIN, "## Where the model misses", "",
             f"Every summary group below whose median |error| is over {limit:.0%} (section 1, the "
             "datasheet baseline, and rejected readings left out), with the section that explains it:",
             "", "| group | rows | median_abs_error | section |", "|---|---|---|---|"]
    for g, rows, med, sec, sub in misses:
        where = sec + (f" / {sub}" if sub else "")
        for pattern, heading_text in see:
            if pattern.search(g):
                where += f"; see {heading_text}"
        block.append(f"| {g} | {rows} | {med:.3g} | {where} |")
    if not misses:
        block.append("| (none) | | | |")
    block += ["", END, ""]
    lines[first:first] = block
    open(path, "w", encoding="utf-8").write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
