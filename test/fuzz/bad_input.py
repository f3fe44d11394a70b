"""Bad-input fuzzer: bad input must never kill the process, hang, leak a traceback or lie.

Generates inputs by grammar-aware mutation of valid seeds (see
:mod:`bad_input_gen`): symshape syntax through ``symshape-opt`` and its
passes, ``symshape-opt`` options, runtime arguments to a compiled module
(:mod:`bad_input_programs`), and the Python extent algebra. Every case runs in
a child process with a timeout and is classified as one of :data:`CLASSES`:

* ``crash`` — the child was killed by a signal (SIGSEGV, SIGFPE, SIGABRT, ...);
* ``hang`` — it ran past the timeout;
* ``traceback`` — a raw Python traceback / an exception that is not one of the
  project's structured errors nor an MLIR diagnostic;
* ``unlocated`` — an error without a usable ``file:line:col`` in the user's
  input (or one pointing into attribute text the user never wrote, such as
  ``#symshape.extent<...>:1:19``), or a runtime check failure naming no source;
* ``wrong`` — a result disagreeing with numpy or the reference algebra, a
  silently truncated value, invalid input accepted silently, or resolved IR
  that still holds symshape;
* ``ok``.

Usage::

    python test/fuzz/bad_input.py --cases 500 --seed 1 --out /tmp/fuzz/out

prints the counts per class and per failure signature, and writes a
reproducer folder (input, command, output) for every non-ok case under
``--out/<class>/<case id>/``. Exit status 1 when any case is not ok.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bad_input_gen import FAMILIES, Case, generate

__all__ = ["CLASSES", "Result", "Summary", "classify_opt", "main", "run_campaign", "run_case"]

logger = logging.getLogger(__name__)

CLASSES = ("crash", "hang", "traceback", "unlocated", "wrong", "ok")
FUZZ_DIR = Path(__file__).resolve().parent
CHILD = FUZZ_DIR / "bad_input_child.py"
DEFAULT_TIMEOUT = 30.0
# Lines of the form `file:line:col: error: message` in symshape-opt's stderr.
_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")
_ANY_ERROR = re.compile(r"\berror\b", re.IGNORECASE)
# Resolved IR must hold no symshape op, type or attribute (string literals aside).
_SYMSHAPE_LEFT = re.compile(r"(#|!)symshape\.|\bsymshape\.[a-z_]+\b")
_RESOLVING = ("--symshape-resolve", "--symshape-to-iree")


@dataclasses.dataclass
class Result:
    """The outcome of one case.

    Attributes:
        case: The case.
        cls: One of :data:`CLASSES`.
        detail: Why (one line).
        returncode: The child's exit status (negative: killed by that signal).
        stdout: The child's stdout (truncated).
        stderr: The child's stderr (truncated).
        seconds: Wall time of the child.
        command: The child's command line.
    """

    case: Case
    cls: str
    detail: str
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    command: list[str]

    @property
    def signature(self) -> str:
        """A coarse failure signature, to group cases sharing a root cause."""
        text = re.sub(
            r"returned .*? (for invalid input|, numpy says)",
            r"returned … \1",
            self.detail,
            flags=re.S,
        )
        text = re.sub(r"0x[0-9a-fA-F]+", "ADDR", text)
        text = re.sub(r"\s+", " ", re.sub(r"\d+", "N", text))
        text = re.sub(r"'[^']{30,}'", "'…'", text)
        where = self.case.family
        if self.case.mode == "runtime":
            where += "/" + str(self.case.payload.get("function"))
        elif self.cls in ("crash", "hang"):
            where += (
                " (" + re.sub(r"\d+", "N", self.case.note.split(":")[0].split(" (")[0])[:40] + ")"
            )
        return f"{self.cls}: {where}: {text[:160]}"


@dataclasses.dataclass
class Summary:
    """Counts of a campaign.

    Attributes:
        counts: Cases per class.
        signatures: Non-ok cases per signature, with the first case's id.
        results: Every result.
        seconds: Wall time of the campaign.
    """

    counts: dict[str, int]
    signatures: dict[str, list[str]]
    results: list[Result] = dataclasses.field(repr=False)
    seconds: float = 0.0

    def failures(self) -> list[Result]:
        """The non-ok results."""
        return [r for r in self.results if r.cls != "ok"]

    def format(self) -> str:
        """The human-readable report."""
        total = sum(self.counts.values())
        lines = [f"{total} cases in {self.seconds:.1f} s"]
        lines += [f"  {cls:10s} {self.counts.get(cls, 0)}" for cls in CLASSES]
        if self.signatures:
            lines.append("failure signatures (count, first case):")
            for sig, ids in sorted(self.signatures.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                lines.append(f"  {len(ids):4d}  {ids[0]:14s} {sig}")
        return "\n".join(lines)


def _tail(text: str, limit: int = 6000) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def _last_exception_line(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln and not ln.startswith(" ")]
    return lines[-1][:200] if lines else "traceback"


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def classify_opt(
    case: Case, input_path: str, returncode: int, stdout: str, stderr: str
) -> tuple[str, str]:
    """Classifies a finished ``symshape-opt`` run (see the module docstring)."""
    if "Traceback (most recent call last)" in stderr:
        return "traceback", _last_exception_line(stderr)
    if returncode not in (0, 1):
        return "traceback", f"exit status {returncode}: {_last_exception_line(stderr)}"
    lines = case.text.split("\n")

    def in_input(m: re.Match[str]) -> bool:
        line, col = int(m["line"]), int(m["col"])
        # MLIR columns count bytes.
        width = (
            len(lines[line - 1].encode("utf-8", "surrogateescape"))
            if 1 <= line <= len(lines)
            else 0
        )
        return 1 <= line <= len(lines) and 1 <= col <= width + 1

    if returncode == 1:
        errors = [m for m in map(_LOCATED.match, stderr.splitlines()) if m]
        good = [m for m in errors if m["file"] == input_path and in_input(m)]
        foreign = [m for m in errors if m["file"] != input_path]
        if foreign:
            f = foreign[0]
            where = f"{f['file'][:60]!r}:{f['line']}:{f['col']}"
            return "unlocated", f"error located in {where}, not the input: {f['msg'][:120]}"
        if good:
            return "ok", good[0]["msg"][:160]
        # An error about the command line (bindings, options) is reported at `input:0:0`.
        about_options = [
            m for m in errors if m["file"] == input_path and re.search(r"binding|option", m["msg"])
        ]
        if about_options and any(re.search(r"binding|option", a) for a in case.args):
            return "ok", about_options[0]["msg"][:160]
        if case.cli:
            if stderr.strip():
                return "ok", stderr.strip().splitlines()[-1][:160]
            return "unlocated", "exit status 1 with no message"
        message = next(
            (ln for ln in stderr.splitlines() if _ANY_ERROR.search(ln)), stderr.strip()[:200]
        )
        return "unlocated", f"error without a location in the input: {message[:200]}"
    # Exit status 0.
    if case.expect_reject:
        return "wrong", f"accepted invalid input ({case.why})"
    if any(a.startswith(_RESOLVING) for a in case.args) or "symshape-to-iree" in " ".join(
        case.args
    ):
        body = re.sub(r'"(?:[^"\\]|\\.)*"', '""', stdout)
        left = _SYMSHAPE_LEFT.search(body)
        if left:
            return "wrong", f"resolved output still holds {left.group(0)!r}"
    return "ok", ""


def _opt_command() -> list[str]:
    script = Path(sys.executable).with_name("symshape-opt")
    if script.exists():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from symshape_mlir.tools.opt import main; sys.exit(main())",
    ]


def run_case(case: Case, work: Path, timeout: float, vmfb: Path | None) -> Result:
    """Runs one case in a child process and classifies it."""
    work.mkdir(parents=True, exist_ok=True)
    if case.mode == "opt":
        input_path = work / "input.mlir"
        input_path.write_text(case.text, encoding="utf-8", errors="surrogateescape")
        command = [*_opt_command(), *case.args, str(input_path)]
    else:
        payload = dict(case.payload)
        if case.mode == "runtime":
            if vmfb is None:
                return Result(
                    case, "ok", "skipped: runtime program did not build", None, "", "", 0.0, []
                )
            payload["vmfb"] = str(vmfb)
        case_path = work / "case.json"
        case_path.write_text(json.dumps(payload), encoding="utf-8")
        command = [sys.executable, str(CHILD), case.mode, str(case_path)]
    env = dict(os.environ, PYTHONFAULTHANDLER="", PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    try:
        proc = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
            env=env,
            cwd=str(work),
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode("utf-8", "replace")
        err = (exc.stderr or b"").decode("utf-8", "replace")
        return Result(
            case,
            "hang",
            f"no answer within {timeout:.0f} s",
            None,
            _tail(out),
            _tail(err),
            timeout,
            command,
        )
    seconds = time.monotonic() - start
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    rc = proc.returncode
    if rc < 0:
        cls, detail = "crash", f"killed by {_signal_name(rc)}"
    elif case.mode == "opt":
        cls, detail = classify_opt(case, str(input_path), rc, stdout, stderr)
    else:
        cls, detail = _classify_child(rc, stdout, stderr)
    return Result(case, cls, detail, rc, _tail(stdout), _tail(stderr), seconds, command)


def _classify_child(returncode: int, stdout: str, stderr: str) -> tuple[str, str]:
    marker = stdout.rfind("@@RESULT ")
    if marker < 0:
        if "Traceback (most recent call last)" in stderr:
            return "traceback", _last_exception_line(stderr)
        return (
            "traceback",
            f"exit status {returncode} without a result: {_last_exception_line(stderr)}",
        )
    report = json.loads(stdout[marker + len("@@RESULT ") :].splitlines()[0])
    outcome = report["outcome"]
    if outcome == "ok":
        return "ok", report.get("error", "")
    if outcome == "raw":
        return "traceback", f"{report['type']}: {report['message'][:160]}"
    if outcome in ("wrong", "unlocated"):
        return outcome, report["detail"]
    return "traceback", f"child reported {outcome}: {report.get('detail', '')[:160]}"


def build_runtime_program(out: Path, timeout: float = 600.0) -> Path | None:
    """Builds the runtime seed program (cached by content) and returns its vmfb."""
    import hashlib

    from bad_input_programs import RUNTIME_PASSES, RUNTIME_SOURCE

    digest = hashlib.sha256(("file:" + RUNTIME_SOURCE + " ".join(RUNTIME_PASSES)).encode())
    # The passes and the dialect build the program: a change to them is a new key.
    root = Path(__file__).resolve().parents[2]
    for source in sorted([*root.glob("python/**/*.py"), *root.glob("passes/*.py"),
                          *root.glob("dialect/**/*.cpp"), *root.glob("dialect/**/*.td")]):
        digest.update(source.read_bytes())
    key = digest.hexdigest()[:16]
    cache = Path(
        os.environ.get("BAD_INPUT_CACHE", Path(tempfile.gettempdir()) / "symshape_bad_input_cache")
    )
    cache.mkdir(parents=True, exist_ok=True)
    vmfb = cache / f"runtime-{key}.vmfb"
    if vmfb.exists():
        return vmfb
    spec = out / "_setup" / "compile.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(json.dumps({"vmfb": str(vmfb) + ".tmp"}), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(CHILD), "compile", str(spec)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    tmp = Path(str(vmfb) + ".tmp")
    if proc.returncode != 0 or not tmp.exists():
        logger.warning(
            "runtime seed program did not build:\n%s", proc.stderr[-3000:] + proc.stdout[-2000:]
        )
        (out / "_setup" / "compile.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
        return None
    tmp.replace(vmfb)
    return vmfb


def write_reproducer(result: Result, out: Path) -> Path:
    """Writes a reproducer folder for a non-ok result and returns it."""
    folder = out / result.cls / result.case.id
    folder.mkdir(parents=True, exist_ok=True)
    case = result.case
    if case.mode == "opt":
        (folder / "input.mlir").write_text(case.text, encoding="utf-8", errors="surrogateescape")
        command = [*_opt_command(), *case.args, "input.mlir"]
    else:
        (folder / "case.json").write_text(
            json.dumps(result_payload(result), indent=1), encoding="utf-8"
        )
        command = [sys.executable, str(CHILD), case.mode, "case.json"]
    (folder / "cmd.sh").write_text(
        f"cd {shlex.quote(str(folder))}\n" + " ".join(shlex.quote(c) for c in command) + "\n",
        encoding="utf-8",
    )
    (folder / "result.txt").write_text(
        f"class: {result.cls}\ndetail: {result.detail}\nnote: {case.note}\n"
        f"exit status: {result.returncode}\nseconds: {result.seconds:.2f}\n"
        f"--- stdout ---\n{result.stdout[-3000:]}\n--- stderr ---\n{result.stderr[-6000:]}\n",
        encoding="utf-8",
    )
    return folder


def result_payload(result: Result) -> dict[str, object]:
    """The child-mode JSON of a result's case (with the vmfb path for runtime)."""
    payload = dict(result.case.payload)
    for arg in result.command[-1:]:
        path = Path(arg)
        if path.name == "case.json" and path.exists():
            payload = json.loads(path.read_text(encoding="utf-8"))
    return payload


def run_campaign(
    count: int,
    seed: int,
    *,
    out: Path | None = None,
    jobs: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
    families: list[str] | None = None,
    progress: bool = False,
) -> Summary:
    """Generates and runs ``count`` cases; writes reproducers under ``out``."""
    start = time.monotonic()
    cases = generate(count, seed, families)
    scratch = Path(tempfile.mkdtemp(prefix="bad_input_"))
    out_dir = out or scratch / "out"
    vmfb = build_runtime_program(out_dir) if any(c.mode == "runtime" for c in cases) else None
    results: list[Result] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_case, c, scratch / c.id, timeout, vmfb) for c in cases]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            result = future.result()
            results.append(result)
            if result.cls != "ok":
                write_reproducer(result, out_dir)
            if progress and done % 50 == 0:
                print(
                    f"  {done}/{count} ({time.monotonic() - start:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    results.sort(key=lambda r: int(r.case.id.rsplit("-", 1)[1]))
    counts = collections.Counter(r.cls for r in results)
    signatures: dict[str, list[str]] = collections.defaultdict(list)
    for r in results:
        if r.cls != "ok":
            signatures[r.signature].append(r.case.id)
    summary = Summary(
        {c: counts.get(c, 0) for c in CLASSES}, dict(signatures), results, time.monotonic() - start
    )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.txt").write_text(summary.format() + "\n", encoding="utf-8")
        with (out / "results.jsonl").open("w", encoding="utf-8") as f:
            for r in results:
                f.write(
                    json.dumps(
                        {
                            "id": r.case.id,
                            "class": r.cls,
                            "detail": r.detail,
                            "note": r.case.note,
                            "seconds": round(r.seconds, 2),
                        }
                    )
                    + "\n"
                )
    return summary


def _rerun(case_id: str, seed: int, families: list[str] | None, out: Path, timeout: float) -> int:
    index = int(case_id.rsplit("-", 1)[1])
    case = generate(index + 1, seed, families)[index]
    if case.id != case_id:
        print(f"case {index} of seed {seed} is {case.id}, not {case_id}", file=sys.stderr)
        return 2
    vmfb = build_runtime_program(out) if case.mode == "runtime" else None
    result = run_case(case, Path(tempfile.mkdtemp(prefix="bad_input_")) / case.id, timeout, vmfb)
    print(f"{case.id}: {result.cls}: {result.detail}\nnote: {case.note}\ncommand: {result.command}")
    print(result.stderr[-3000:])
    if result.cls != "ok":
        print(f"reproducer: {write_reproducer(result, out)}")
    return 0 if result.cls == "ok" else 1


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200, help="number of cases (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out", type=Path, default=Path("/tmp/fuzz/bad_input_out"), help="reproducer folder"
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel children (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per case (hang)"
    )
    parser.add_argument(
        "--family", action="append", choices=sorted(FAMILIES), help="restrict to these families"
    )
    parser.add_argument("--case", help="rerun one case id of this seed (e.g. syntax-42), verbosely")
    args = parser.parse_args(argv)
    if args.case:
        return _rerun(args.case, args.seed, args.family, args.out, args.timeout)
    summary = run_campaign(
        args.cases,
        args.seed,
        out=args.out,
        jobs=args.jobs,
        timeout=args.timeout,
        families=args.family,
        progress=True,
    )
    print(summary.format())
    print(f"reproducers: {args.out}")
    return 0 if summary.counts.get("ok", 0) == sum(summary.counts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
