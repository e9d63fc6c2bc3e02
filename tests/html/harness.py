"""What the HTML view's tests share (html_test, swizzle_test, firefox_test,
palette_test, timing_test): "ok"/"FAIL" lines and their tally, smemlab runs
that stop the test on an unexpected exit status, and headless Chromium."""
import os
import subprocess
import sys

failures = []


def check(cond, what):
    """Prints the check's line; a failed one is counted, the test goes on."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def finish():
    """Exits 1 if any check failed, else 0, after saying which."""
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)


def runner(smemlab, source_dir):
    """run(args, ok=(0,)): smemlab's stdout, run in source_dir; another exit
    status stops the test with smemlab's stderr."""
    def run(args, ok=(0,)):
        p = subprocess.run([smemlab] + args, cwd=source_dir, capture_output=True, text=True)
        if p.returncode not in ok:
            sys.exit(f"smemlab {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
        return p.stdout
    return run


def browser(url, *extra):
    """Headless Chromium ($CHROMIUM, else chromium) on url; its stdout
    (e.g. the DOM with --dump-dom)."""
    cmd = [os.environ.get("CHROMIUM", "chromium"), "--headless", "--no-sandbox", "--disable-gpu",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-default-apps", "--disable-sync", "--metrics-recording-only",
           "--window-size=1500,1000", *extra, url]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"chromium failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p.stdout


def duration_text(ns):
    """A predicted duration as the text output and the page print it."""
    return f"{ns / 1e6:.3g} ms" if ns >= 1e6 else f"{ns / 1e3:.3g} µs"
