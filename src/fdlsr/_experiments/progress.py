"""Progress of long commands on stderr: a bar on a terminal, lines in a log."""

import sys
import time


class Progress:
    """The progress of ``fdlsr run``'s runs, from the scheduler's events
    (:class:`.scheduler.ProgressEvent`): a progress bar on a terminal (tqdm);
    elsewhere (a log file, a pipe) one line on stderr when the runs start and one
    per method and k finished (with the time expected to be left). With several
    workers, a line on their use at the end."""

    def __init__(self, label, stream=None):
        self.label = label
        self.bar = None
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.started = time.perf_counter()

    def __call__(self, event):
        if event.usage is not None:  # the end: how the workers were used
            self.close()
            print(f"fdlsr: {self.label}: {event.usage}", file=self.stream, flush=True)
            return
        if not self.enabled:
            self._log(event)
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=event.total,
                initial=event.done,
                desc=self.label,
                unit="run",
                leave=False,
            )
        else:
            self.bar.update(event.done - self.bar.n)
        self.bar.set_postfix_str(event.run, refresh=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _log(self, event):
        done, total = event.done, event.total
        if not event.run:  # the event before the first run
            if done < total:
                print(
                    f"fdlsr: {self.label}: {total - done} runs to compute"
                    + (f" ({done} already stored)" if done else "")
                    + "; a line follows each method finished at each k",
                    file=self.stream,
                    flush=True,
                )
            return
        finished = event.finished
        if finished is None:
            return
        scores = [100 * a for a in finished.accuracies if a is not None]
        result = (
            f"{sum(scores) / len(scores):.2f}% mean accuracy over {len(scores)} "
            f"split{'s' if len(scores) != 1 else ''}"
            if scores
            else "failed"
        )
        if scores and len(scores) < len(finished.accuracies):
            result += f" ({len(finished.accuracies) - len(scores)} failed)"
        elapsed = time.perf_counter() - self.started
        eta = event.eta
        left = f", about {_duration(eta)} left" if eta and done < total else ""
        print(
            f"fdlsr: {self.label}: {finished.method} k={finished.k}: {result} "
            f"[{done}/{total} runs, {elapsed:.0f} s{left}]",
            file=self.stream,
            flush=True,
        )


def _duration(seconds):
    """``seconds`` in words a reader takes in at a glance: 45 s, 12 min, 3.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# A figure computed faster than this shows no progress (``fdlsr plot``).
QUIET_SECONDS = 2.0


class Bar:
    """A progress line on stderr: redrawn in place on a terminal, else a line per 10%;
    nothing until ``delay`` seconds have passed."""

    def __init__(self, label, stream=None, unit="images", delay=0.0):
        self.label = label
        self.delay = delay
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty()
        self.started = time.perf_counter()
        self.shown = -1

    def __call__(self, done, total, unit=None):
        """Show ``done`` of ``total`` (counted in ``unit``, else the bar's own)."""
        tenth = 10 * done // max(total, 1)
        if not self.tty and tenth == self.shown:
            return
        if time.perf_counter() - self.started < self.delay:
            return
        self.shown = tenth
        elapsed = time.perf_counter() - self.started
        filled = 30 * done // max(total, 1)
        line = (
            f"fdlsr: {self.label} [{'#' * filled}{'.' * (30 - filled)}] "
            f"{done}/{total} {unit or self.unit}, {elapsed:.0f} s"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n",
              file=self.stream, flush=True)  # fmt: skip

    def close(self):
        if self.tty and self.shown >= 0:
            print(file=self.stream, flush=True)
