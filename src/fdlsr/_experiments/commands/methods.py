"""``fdlsr methods``: every method with its settings and grid."""

from ..registry import METHODS


def main(args):
    """``fdlsr methods``: one paragraph per method of the registry."""
    for m in METHODS.values():
        print(f"{m.name} ({m.family}): {m.summary}")
        if m.rule:
            print(f"    decides:  {m.rule}")
        if m.params:
            print("    settings: " + ", ".join(f"{k}={v}" for k, v in m.params.items()))
        if m.grid:
            print(
                "    cv grid:  " + "; ".join(f"{k} in {v}" for k, v in m.grid.items())
            )
        if m.rules:
            print(f"    cv rules: {', '.join(m.rules)} (with --cv-rules)")
    return 0
