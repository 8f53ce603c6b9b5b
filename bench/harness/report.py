"""The results table: one row per measurement, with what it is compared with, the ratio and the target."""

import sys


class Report:
    """The rows of the results table; a failed case becomes a row that says why."""

    def __init__(self, smoke):
        self.smoke = smoke
        self.rows = []
        self.failures = []

    def add(self, case, mediad, other, ratio, target=None):
        """`target` is (text, met: bool); smoke runs assert no timing and show none."""
        if self.smoke or target is None:
            target_text, verdict = (target[0] if target else "—"), "—"
        else:
            target_text, verdict = target[0], ("met" if target[1] else "**missed**")
        self.rows.append((case, mediad, other, ratio, target_text, verdict))
        print(f"  {case}: {mediad} | {other} | {ratio} | {target_text} {verdict}", flush=True)

    def fail(self, case, error):
        self.failures.append(case)
        self.rows.append((case, "**failed**", str(error).replace("|", "/").replace("\n", " ")[:300], "", "", ""))
        print(f"  {case}: FAILED: {error}", file=sys.stderr, flush=True)

    def markdown(self):
        lines = ["| case | mediad | compared with | ratio | target | |", "| --- | --- | --- | --- | --- | --- |"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)


def seconds(value):
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"


def ratio(value):
    return f"{value:.2f}×"


def at_most(value, limit):
    return (f"≤ {limit:g}×", value <= limit)


def at_least(value, limit):
    return (f"≥ {limit:g}×", value >= limit)
